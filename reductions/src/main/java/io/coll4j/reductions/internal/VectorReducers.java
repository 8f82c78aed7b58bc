package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The Vector API family: the only entry point to classes that touch {@code jdk.incubator.vector}.
 * {@link Reducers} loads it by name, after checking that the module is readable, exactly as Lucene's
 * {@code VectorizationProvider} loads {@code PanamaVectorizationProvider}.
 *
 * <p>Each reducer is a hidden class defined from the bytes of the {@link VectorReducer} template with its
 * {@link VectorKernelSpec} as class data (see {@link VectorReducer} for why).
 */
final class VectorReducers implements ReducerFactory {

    private static final String TEMPLATE = "VectorReducer.class";
    private static final String HALF_TEMPLATE = "HalfVectorReducer.class";
    private static final String ARRAY_TEMPLATE = "ArrayVectorPass.class";

    private final int bits;
    private final byte[] template;
    private final byte[] halfTemplate;
    private final byte[] arrayTemplate;

    /**
     * The family at the process-wide size ({@link VectorConstants#bits()}).
     *
     * @throws UnsupportedOperationException with the reason when vectors cannot be used
     */
    VectorReducers() {
        this(VectorConstants.bits());
    }

    /** The family at an explicit size, for tests that cover 128, 256 and 512 bits in one JVM. */
    VectorReducers(int bits) {
        VectorConstants.checkBits(bits);
        this.bits = bits;
        this.template = readTemplate(TEMPLATE);
        this.halfTemplate = readTemplate(HALF_TEMPLATE);
        this.arrayTemplate = readTemplate(ARRAY_TEMPLATE);
    }

    /**
     * Defines the {@link VectorReducer} copy of (dtype, op) at this family's size ({@link HalfVectorReducer}'s
     * for F16 and BF16). The pair types have no vector kernel and get the scalar reducer.
     */
    @Override
    public Reducer create(DType dtype, Op op) {
        if (dtype.isHalf()) {
            return (Reducer) instantiate(halfTemplate, VectorKernelSpec.of(dtype, op, bits));
        }
        if (!VectorKernelSpec.hasLanes(dtype)) {
            return Reducers.scalar(dtype, op);
        }
        return (Reducer) instantiate(template, VectorKernelSpec.of(dtype, op, bits));
    }

    /** The {@link ArrayVectorPass} copy of (dtype, op) at this family's size; null for the half and pair types. */
    @Override
    public ArrayPass arrayPass(DType dtype, Op op) {
        if (!VectorKernelSpec.hasLanes(dtype)) {
            return null;
        }
        return (ArrayPass) instantiate(arrayTemplate, VectorKernelSpec.of(dtype, op, bits));
    }

    /** A hidden class from {@code template} with {@code classData}, and its one (no-argument) instance. */
    private static Object instantiate(byte[] template, Object classData) {
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClassWithClassData(template, classData, true);
            return copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot define a hidden copy of a vector template for " + classData, e);
        }
    }

    @Override
    public String describe() {
        return "vector (Vector API, " + bits + "-bit species)";
    }

    /** The vector size of every reducer this family creates. */
    int bits() {
        return bits;
    }

    private static byte[] readTemplate(String name) {
        try (InputStream in = VectorReducers.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing next to " + VectorReducers.class.getName());
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }
}
