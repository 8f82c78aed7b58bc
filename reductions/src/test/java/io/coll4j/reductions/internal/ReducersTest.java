package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;

/**
 * The provider on a JVM with {@code --add-modules jdk.incubator.vector} (the default test run): one
 * cached reducer per (dtype, op), {@link Reducers#of} = {@link Reducers#vector}, and the size chosen
 * once — the preferred one, or {@value Reducers#BITS_PROPERTY} when a test execution sets it.
 * {@link ReducersFallbackTest} covers JVMs where the vector path cannot be used.
 */
class ReducersTest {

    @Test
    void reducersAreCreatedOnceAndReportTheirPair() {
        for (DType dtype : DType.values()) {
            for (Op op : Op.values()) {
                if (!(Reducers.ownKernel(dtype, op))) {
                    continue;
                }
                Reducer scalar = Reducers.scalar(dtype, op);
                assertSame(scalar, Reducers.scalar(dtype, op));
                assertEquals(dtype, scalar.dtype());
                assertEquals(op, scalar.op());
                assertEquals("scalar " + dtype.cliName() + " " + op.cliName(), scalar.toString());
                Reducer of = Reducers.of(dtype, op);
                assertSame(of, Reducers.of(dtype, op));
                assertEquals(dtype, of.dtype());
                assertEquals(op, of.op());
            }
        }
    }

    @Test
    void ofIsTheVectorReducerAtTheChosenSize() {
        assumeTrue(System.getProperty(Reducers.DISABLE_PROPERTY) == null, "vector path disabled in this execution");
        assertTrue(Reducers.vectorFactory().isPresent(), Reducers::implementation);
        String forced = System.getProperty(Reducers.BITS_PROPERTY);
        int bits = forced != null ? Integer.parseInt(forced) : VectorConstants.PREFERRED_BITS;
        assertEquals("vector (Vector API, " + bits + "-bit species)", Reducers.implementation());
        Reducer r = Reducers.of(DType.F32, Op.MAX);
        assertSame(Reducers.vector(DType.F32, Op.MAX), r);
        assertEquals("vector f32 max (" + bits + "-bit)", r.toString());
    }
}
