package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static io.coll4j.reductions.internal.ReductionAssertions.assertSameResult;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The scalar reference itself: its 22 hand-written {@code reduce} loops against its element-wise
 * definition ({@link ScalarReducer#apply}, used by {@code reduceMany}), and the semantics of {@link Op}
 * on literal values, independent of any implementation — wrapping integers, {@code Math.min}/{@code max}
 * on signed zeros and NaN, no flush of subnormals, left-to-right order.
 */
class ScalarReducerTest {

    @Test
    void loopsMatchTheElementwiseDefinition() {
        SplittableRandom rnd = new SplittableRandom(42);
        try (Arena arena = Arena.ofConfined()) {
            for (DType dtype : DType.values()) {
                for (Op op : Op.values()) {
                    if (!(Reducers.ownKernel(dtype, op))) {
                        continue;
                    }
                    Reducer r = Reducers.scalar(dtype, op);
                    long count = 1000;
                    MemorySegment a = arena.allocate(count * dtype.size());
                    MemorySegment b = arena.allocate(count * dtype.size());
                    TestValues.fill(a, 0, dtype, count, rnd);
                    TestValues.fill(b, 0, dtype, count, rnd);
                    MemorySegment byLoop = arena.allocate(count * dtype.size());
                    MemorySegment byFold = arena.allocate(count * dtype.size());
                    r.reduce(byLoop, 0, a, 0, b, 0, count);
                    r.reduceMany(byFold, 0, new MemorySegment[] {a, b}, new long[2], 2, count);
                    assertSameResult(dtype, op, byFold, 0, byLoop, 0, count, r + " loop vs fold");
                    r.reduceInto(a, 0, b, 0, count);
                    assertSameResult(dtype, op, byFold, 0, a, 0, count, r + " reduceInto vs fold");
                }
            }
        }
    }

    @Test
    void integersWrap() {
        assertEquals(Integer.MIN_VALUE, i32(Op.SUM, Integer.MAX_VALUE, 1));
        assertEquals(0, i32(Op.PROD, 65_536, 65_536));
        assertEquals(Integer.MIN_VALUE, i32(Op.MIN, Integer.MIN_VALUE, Integer.MAX_VALUE));
        assertEquals(0b0110, i32(Op.BXOR, 0b1100, 0b1010));
        assertEquals(0b1000, i32(Op.BAND, 0b1100, 0b1010));
        assertEquals(0b1110, i32(Op.BOR, 0b1100, 0b1010));
        assertEquals(Long.MIN_VALUE, i64(Op.SUM, Long.MAX_VALUE, 1));
        assertEquals(0L, i64(Op.PROD, 1L << 32, 1L << 32));
        assertEquals(-1L, i64(Op.MAX, -1L, Long.MIN_VALUE));
    }

    @Test
    void floatsFollowMathMinMax() {
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(f64(Op.MIN, 0.0, -0.0)));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(f64(Op.MIN, -0.0, 0.0)));
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(f64(Op.MAX, -0.0, 0.0)));
        assertEquals(Float.floatToRawIntBits(0.0f), Float.floatToRawIntBits(f32(Op.MAX, 0.0f, -0.0f)));
        assertEquals(true, Double.isNaN(f64(Op.MIN, 1.0, Double.NaN)));
        assertEquals(true, Double.isNaN(f64(Op.MAX, Double.NaN, Double.POSITIVE_INFINITY)));
        assertEquals(true, Float.isNaN(f32(Op.MIN, Float.NEGATIVE_INFINITY, Float.NaN)));
        // subnormals are not flushed to zero
        assertEquals(2 * Double.MIN_VALUE, f64(Op.SUM, Double.MIN_VALUE, Double.MIN_VALUE));
        assertEquals(Float.MIN_NORMAL / 4, f32(Op.PROD, Float.MIN_NORMAL / 2, 0.5f));
        assertEquals(Double.POSITIVE_INFINITY, f64(Op.SUM, Double.MAX_VALUE, Double.MAX_VALUE));
    }

    /** reduceMany folds left to right: ((1e16 + 1) + -1e16) + 1 = 1, where (1e16 + -1e16) + (1 + 1) would give 2. */
    @Test
    void reduceManyFoldsLeftToRight() {
        for (Reducer r : new Reducer[] {Reducers.scalar(DType.F64, Op.SUM), Reducers.of(DType.F64, Op.SUM)}) {
            try (Arena arena = Arena.ofConfined()) {
                double[] values = {1e16, 1, -1e16, 1};
                long count = 100;
                MemorySegment[] srcs = new MemorySegment[values.length];
                for (int j = 0; j < values.length; j++) {
                    srcs[j] = arena.allocate(count * 8);
                    for (long i = 0; i < count; i++) {
                        srcs[j].setAtIndex(ValueLayout.JAVA_DOUBLE, i, values[j]);
                    }
                }
                MemorySegment dst = arena.allocate(count * 8);
                r.reduceMany(dst, 0, srcs, new long[values.length], count);
                for (long i = 0; i < count; i++) {
                    assertEquals(1.0, dst.getAtIndex(ValueLayout.JAVA_DOUBLE, i), r + " element " + i);
                }
            }
        }
    }

    private static int i32(Op op, int x, int y) {
        MemorySegment d = MemorySegment.ofArray(new int[1]);
        Reducers.scalar(DType.I32, op).reduce(d, 0, MemorySegment.ofArray(new int[] {x}), 0,
                MemorySegment.ofArray(new int[] {y}), 0, 1);
        return d.get(ValueLayout.JAVA_INT, 0);
    }

    private static long i64(Op op, long x, long y) {
        MemorySegment d = MemorySegment.ofArray(new long[1]);
        Reducers.scalar(DType.I64, op).reduce(d, 0, MemorySegment.ofArray(new long[] {x}), 0,
                MemorySegment.ofArray(new long[] {y}), 0, 1);
        return d.get(ValueLayout.JAVA_LONG, 0);
    }

    private static double f64(Op op, double x, double y) {
        MemorySegment d = MemorySegment.ofArray(new double[1]);
        Reducers.scalar(DType.F64, op).reduce(d, 0, MemorySegment.ofArray(new double[] {x}), 0,
                MemorySegment.ofArray(new double[] {y}), 0, 1);
        return d.get(ValueLayout.JAVA_DOUBLE, 0);
    }

    private static float f32(Op op, float x, float y) {
        MemorySegment d = MemorySegment.ofArray(new float[1]);
        Reducers.scalar(DType.F32, op).reduce(d, 0, MemorySegment.ofArray(new float[] {x}), 0,
                MemorySegment.ofArray(new float[] {y}), 0, 1);
        return d.get(ValueLayout.JAVA_FLOAT, 0);
    }
}
