package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every vector kernel — each (dtype, op) at 128, 256 and 512 bits, as far as this CPU runs them
 * natively — against the scalar reference, through {@link EquivalenceSweep}. The kernels are built
 * for an explicit size ({@link VectorReducers#VectorReducers(int)}), so one JVM covers every size.
 *
 * <p>These kernels are called a few hundred times each, so they run in the interpreter and C1, i.e.
 * through the Vector API's Java fallback: this checks the loop structure (bounds, tails, offsets,
 * aliasing) and the routing of heap operands at every size. {@link VectorReducerCompiledTest} checks the
 * C2-compiled code.
 */
class VectorReducerTest {

    static List<Arguments> kernels() {
        List<Arguments> all = new ArrayList<>();
        for (int bits : new int[] {128, 256, 512}) {
            for (DType dtype : DType.values()) {
                for (Op op : Op.values()) {
                    if (Reducers.ownKernel(dtype, op) && (VectorKernelSpec.hasLanes(dtype) || dtype.isHalf())) {
                        all.add(Arguments.of(bits, dtype, op));
                    }
                }
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{0}-bit {1} {2}")
    @MethodSource("kernels")
    void matchesScalarReference(int bits, DType dtype, Op op) {
        assumeTrue(Reducers.vectorFactory().isPresent(), Reducers::implementation);
        assumeTrue(bits <= VectorConstants.PREFERRED_BITS,
                () -> bits + "-bit vectors are wider than this CPU's " + VectorConstants.PREFERRED_BITS);
        Reducer reducer = new VectorReducers(bits).create(dtype, op);
        assertEquals(dtype, reducer.dtype());
        assertEquals(op, reducer.op());
        assertEquals("vector " + dtype.cliName() + " " + op.cliName() + " (" + bits + "-bit)", reducer.toString());
        new EquivalenceSweep(reducer, bits / 8 / dtype.size()).run(31L * bits + 7L * dtype.ordinal() + op.ordinal(), true);
    }
}
