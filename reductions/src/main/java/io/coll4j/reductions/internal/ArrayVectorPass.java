package io.coll4j.reductions.internal;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API pass over Java arrays ({@link ArrayPass}), a template specialised per (dtype, op) exactly
 * as {@link VectorReducer} is (hidden copies with a {@link VectorKernelSpec} as class data, so species,
 * operator and dtype are constants for C2), and kept apart from it so that heap calls never reach the
 * native-segment loops' profiles.
 *
 * <p>Why arrays and not heap segments: measured on JDK 25, {@code d[i] = a[i] + b[i]} through
 * {@code FloatVector.fromArray}/{@code intoArray} on the arrays came close to {@link VectorReducer} on native
 * segments, a plain array loop (C2's auto-vectorisation) took 2–3 times as long and
 * {@code fromMemorySegment} on heap segments over the same arrays about 4 times (the numbers:
 * docs/measurements.md). So the loads and stores here go to the
 * segments' backing arrays; the dtype switch on the store is on a constant and folds away.
 *
 * <p>Order: one pass is one {@code op} per element, so a k-ary fold of k − 1 passes is the scalar left
 * fold, bitwise. Loads come before the store in every step, so {@code d} may be {@code a} or {@code b}.
 */
@SuppressWarnings("unchecked")
final class ArrayVectorPass implements ArrayPass {

    private static final VectorKernelSpec SPEC = VectorKernelSpec.classData(MethodHandles.lookup(), "ArrayVectorPass");
    private static final VectorSpecies<Object> SPECIES = (VectorSpecies<Object>) SPEC.species();
    private static final VectorOperators.Binary OPERATOR = SPEC.operator();
    /** The exact vector class, for the reason given at {@code VectorReducer.VECTOR}. */
    private static final Class<? extends Vector<Object>> VECTOR = SPECIES.vectorType();
    private static final ReductionKernel SCALAR = SPEC.scalar();
    /** The scalar loop of this (dtype, op) for the tails, a constant C2 inlines ({@link ScalarReducer#loop2}). */
    private static final ReductionKernel.Loop2 TAIL = SCALAR.loop2();
    private static final Class<?> LANE = SPEC.dtype().javaType();
    private static final boolean FLOATS = LANE == float.class;
    private static final boolean DOUBLES = LANE == double.class;
    private static final boolean INTS = LANE == int.class;
    private static final int ELEMENT_BYTES = SPEC.dtype().size();
    private static final int LANES = SPECIES.length();

    private ArrayVectorPass() {
    }

    @Override
    public void pass(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, int n) {
        Object da = d.heapBase().orElseThrow();
        Object aa = a.heapBase().orElseThrow();
        Object ba = b.heapBase().orElseThrow();
        // address() of a heap segment is its byte offset in the array
        int di = (int) ((d.address() + dOff) / ELEMENT_BYTES);
        int ai = (int) ((a.address() + aOff) / ELEMENT_BYTES);
        int bi = (int) ((b.address() + bOff) / ELEMENT_BYTES);
        int i = 0;
        for (; i <= n - LANES; i += LANES) {
            Vector<Object> v = VECTOR.cast(SPECIES.fromArray(aa, ai + i)).lanewise(OPERATOR, SPECIES.fromArray(ba, bi + i));
            if (FLOATS) {
                ((FloatVector) (Vector<?>) v).intoArray((float[]) da, di + i);
            } else if (DOUBLES) {
                ((DoubleVector) (Vector<?>) v).intoArray((double[]) da, di + i);
            } else if (INTS) {
                ((IntVector) (Vector<?>) v).intoArray((int[]) da, di + i);
            } else {
                ((LongVector) (Vector<?>) v).intoArray((long[]) da, di + i);
            }
        }
        if (i < n) {
            long o = (long) i * ELEMENT_BYTES;
            TAIL.run(d, dOff + o, a, aOff + o, b, bOff + o, n - i);
        }
    }
}
