package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The array folds for heap operands: bitwise the scalar left fold for every lane dtype and op, at every k, offset and aliasing. */
class HeapArrayFoldTest {
    // below, at and around one 512-bit vector of each lane width, and long enough for several
    private static final long[] COUNTS = {0, 1, 7, 8, 15, 16, 17, 1000, 4099};
    private static final DType[] LANE_TYPES = {DType.F32, DType.F64, DType.I32, DType.I64, DType.U32, DType.U64};

    private static MemorySegment heap(DType t, int n) {
        return switch (t) {
            case F32 -> MemorySegment.ofArray(new float[n]);
            case F64 -> MemorySegment.ofArray(new double[n]);
            case I32, U32 -> MemorySegment.ofArray(new int[n]);
            case I64, U64 -> MemorySegment.ofArray(new long[n]);
            default -> throw new IllegalArgumentException(t.toString());
        };
    }

    @Test
    void foldsEveryKAndOffsetLikeTheScalarLoop() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (DType t : LANE_TYPES) {
            for (Op op : Op.values()) {
                if (!Reducers.ownKernel(t, op)) {
                    continue;
                }
                foldsLikeTheScalarLoop(t, op, rnd);
            }
        }
    }

    private static void foldsLikeTheScalarLoop(DType t, Op op, SplittableRandom rnd) {
        // without the vector module only SUM of the signed types has array loops; the rest declines
        boolean taken = Reducers.vectorFactory().isPresent() || op == Op.SUM && !t.isUnsigned();
        Reducer scalar = new ScalarReducer(t, op);
        for (long count : COUNTS) {
            for (int k = 2; k <= 5; k++) {
                    int off = rnd.nextInt(3);
                    MemorySegment[] srcs = new MemorySegment[k];
                    long[] offs = new long[k];
                    for (int j = 0; j < k; j++) {
                        srcs[j] = heap(t, (int) count + 3);
                        TestValues.fill(srcs[j], 0, t, count + 3, rnd);
                        offs[j] = (long) off * t.size();
                    }
                    MemorySegment got = heap(t, (int) count + 3);
                    MemorySegment want = heap(t, (int) count + 3);
                    boolean folded = HeapArrayFold.reduceMany(t, op, got, (long) off * t.size(), srcs, offs, k, count);
                    assertEquals(taken, folded, t + " " + op + " taken");
                    if (!folded) {
                        continue;
                    }
                    reference(scalar, want, (long) off * t.size(), srcs, offs, k, count);
                    // NaN payloads may differ (Java leaves them open), every other bit must not
                    ReductionAssertions.assertSameResult(t, op, want, 0, got, 0, count + 3, t + " " + op + " k=" + k + " count=" + count);
            }
        }
    }

    /**
     * The left fold into {@code want} by the vector reducer over native copies of the sources (itself held
     * bitwise to the scalar loops by VectorReducerTest), or by the scalar loops without the vector module.
     * Not the scalar loops directly: they are the vector reducers' tails, and once they had run every op
     * here, C2 compiled the vector reducers of VectorReducerCompiledTest (same JVM, later) into code that
     * allocated.
     */
    private static void reference(Reducer scalar, MemorySegment want, long wantOffset, MemorySegment[] srcs, long[] offs, int k,
                                  long count) {
        Reducer r = Reducers.vectorFactory().isPresent() ? Reducers.vector(scalar.dtype(), scalar.op()) : scalar;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] copies = new MemorySegment[k];
            for (int j = 0; j < k; j++) {
                copies[j] = arena.allocate(srcs[j].byteSize(), 8).copyFrom(srcs[j]);
            }
            MemorySegment out = arena.allocate(want.byteSize(), 8).copyFrom(want);
            r.reduceMany(out, wantOffset, copies, offs, k, count);
            want.copyFrom(out);
        }
    }

    @Test
    void inPlaceOnEverySourceGivesTheScalarResult() {
        SplittableRandom rnd = new SplittableRandom(11);
        DType t = DType.F32;
        Reducer scalar = new ScalarReducer(t, Op.SUM);
        int k = 4;
        int n = 1001;
        for (int alias = 0; alias < k; alias++) {
            MemorySegment[] a = new MemorySegment[k];
            MemorySegment[] b = new MemorySegment[k];
            long[] offs = new long[k];
            for (int j = 0; j < k; j++) {
                a[j] = heap(t, n);
                TestValues.fill(a[j], 0, t, n, rnd);
                b[j] = heap(t, n);
                MemorySegment.copy(a[j], 0, b[j], 0, 4L * n);
            }
            // dst is source `alias`; a later source than the second declines, and the caller folds with the scalar loop
            if (!HeapArrayFold.reduceMany(t, Op.SUM, a[alias], 0, a, offs, k, n)) {
                assertTrue(alias >= 2, "declined alias " + alias);
                scalar.reduceMany(a[alias], 0, a, offs, k, n);
            }
            scalar.reduceMany(b[alias], 0, b, offs, k, n);
            ReductionAssertions.assertSameResult(t, Op.SUM, b[alias], 0, a[alias], 0, n, "alias " + alias);
        }
    }

    @Test
    void declinesWhatItCannotDo() {
        MemorySegment f = MemorySegment.ofArray(new float[8]);
        MemorySegment bytes = MemorySegment.ofArray(new byte[32]);
        MemorySegment[] two = {f, f};
        long[] offs = {0, 0};
        assertFalse(HeapArrayFold.reduceMany(DType.F32, Op.AVG, f, 0, two, offs, 2, 8), "AVG (the caller passes its fold op, SUM)");
        assertFalse(HeapArrayFold.reduceMany(DType.F32, Op.SUM, f, 0, new MemorySegment[]{f, MemorySegment.ofArray(new double[8])}, offs, 2, 8),
                "double[] under F32");
        assertFalse(HeapArrayFold.reduceMany(DType.F32, Op.SUM, bytes, 0, new MemorySegment[]{bytes, bytes}, offs, 2, 8), "byte[] backing");
        assertFalse(HeapArrayFold.reduceMany(DType.F32, Op.SUM, f, 2, two, offs, 2, 1), "offset inside an element");
        assertFalse(HeapArrayFold.reduceMany(DType.F32, Op.SUM, f, 0, new MemorySegment[]{MemorySegment.ofArray(new float[8]), f, f},
                new long[]{0, 0, 0}, 3, 8), "dst is a later source");
        assertTrue(HeapArrayFold.reduceMany(DType.F32, Op.SUM, f, 0, two, offs, 2, 8));
        assertEquals(0f, ((float[]) f.heapBase().orElseThrow())[0]);
    }
}
