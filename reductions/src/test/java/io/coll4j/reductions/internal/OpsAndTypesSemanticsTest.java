package io.coll4j.reductions.internal;

import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/**
 * The semantics of the types and ops beyond f32/f64/i32/i64 and sum … bxor, on literal values and against
 * definitions written independently of the kernels: unsigned MIN/MAX, half-precision rounding (ties to
 * even, overflow), MINLOC/MAXLOC's lowest-index rule, AVG's division, a non-commutative user op's order,
 * and the errors for combinations that are not defined.
 */
class OpsAndTypesSemanticsTest {

    @Test
    void unsignedMinMaxCompareUnsignedAndTheRestWrapLikeSigned() {
        assertEquals(1, ScalarReference.apply(DType.U32, Op.MIN, -1, 1));
        assertEquals(-1, (int) ScalarReference.apply(DType.U32, Op.MAX, -1, 1));
        assertEquals(Long.MIN_VALUE, ScalarReference.apply(DType.U64, Op.MAX, Long.MIN_VALUE, Long.MAX_VALUE));
        assertEquals(0L, ScalarReference.apply(DType.U64, Op.SUM, -1L, 1L));
        assertEquals(ScalarReference.apply(DType.I32, Op.PROD, 65_537, -3), ScalarReference.apply(DType.U32, Op.PROD, 65_537, -3));
        assertEquals(0b1000, ScalarReference.apply(DType.U64, Op.BAND, 0b1100, 0b1010));
    }

    @Test
    void halfSumsRoundToNearestEven() {
        // f16: ulp(1) = 2^-10, so 1 + 2^-11 is a tie and goes to the even 1.0; 1 + 3·2^-11 goes up to 1 + 2^-9
        assertEquals(1.0f, f16(Op.SUM, 1.0f, 0x1p-11f));
        assertEquals(1.0f + 0x1p-9f, f16(Op.SUM, 1.0f + 0x1p-10f, 0x1p-11f));
        // the largest f16 is 65504 (odd significand): + 16 is a tie that rounds to even, i.e. overflows
        assertEquals(Float.POSITIVE_INFINITY, f16(Op.SUM, 65504f, 16f));
        assertEquals(65504f, f16(Op.SUM, 65504f, 8f));
        // bf16: ulp(1) = 2^-7
        assertEquals(1.0f, bf16(Op.SUM, 1.0f, 0x1p-8f));
        assertEquals(1.0f + 0x1p-6f, bf16(Op.SUM, 1.0f + 0x1p-7f, 0x1p-8f));
        assertEquals(6.0f, bf16(Op.PROD, 2.0f, 3.0f));
        assertEquals(-0.0f, f16(Op.MIN, 0.0f, -0.0f));
        assertTrue(Float.isNaN(bf16(Op.MAX, Float.NaN, 1.0f)));
    }

    /**
     * BF16 narrowing against a definition by distances: the nearer of the two neighbours, ties to the even
     * one, and overflow to infinity from half an ulp above the largest finite value.
     */
    @Test
    void bf16RoundingMatchesNearestEvenByDistance() {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int n = 0; n < 200_000; n++) {
            float f = Float.intBitsToFloat(rnd.nextInt());
            if (Float.isNaN(f) || Float.isInfinite(f)) {
                continue;
            }
            int lo = Float.floatToRawIntBits(f) >>> 16;
            double down = Float.intBitsToFloat(lo << 16);
            float upF = Float.intBitsToFloat((lo + 1) << 16);
            // IEEE rounds as if the exponent were unbounded: the neighbour above the largest finite is 2^128
            double up = Float.isInfinite(upF) ? Math.copySign(0x1p128, upF) : upF;
            double dd = Math.abs(f - down);
            double du = Math.abs(up - f);
            int expected = dd < du || dd == du && (lo & 1) == 0 ? lo : lo + 1;
            assertEquals(expected & 0xFFFF, HalfFloats.floatToBf16(f) & 0xFFFF, () -> "bf16 of " + f);
        }
        assertTrue(Float.isNaN(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(Float.intBitsToFloat(0x7f80_0001)))));
    }

    @Test
    void minlocAndMaxlocKeepTheLowestIndexOnTies() {
        try (Arena arena = Arena.ofConfined()) {
            double[] values = {3, 1, 5, 1, 5};
            long[] indices = {40, 72, 9, 20, 9};
            MemorySegment[] srcs = new MemorySegment[5];
            for (int j = 0; j < 5; j++) {
                srcs[j] = arena.allocate(16);
                srcs[j].set(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, values[j]);
                srcs[j].set(ValueLayout.JAVA_LONG_UNALIGNED, 8, indices[j]);
            }
            MemorySegment dst = arena.allocate(16);
            Reducers.of(DType.F64_I64, Op.MINLOC).reduceMany(dst, 0, srcs, new long[5], 5, 1);
            assertEquals(1.0, dst.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
            assertEquals(20L, dst.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
            Reducers.of(DType.F64_I64, Op.MAXLOC).reduceMany(dst, 0, srcs, new long[5], 5, 1);
            assertEquals(5.0, dst.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, 0));
            assertEquals(9L, dst.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
            // NaN wins both, −0.0 is below +0.0; in place (dst = a)
            MemorySegment a = pairF32(arena, 0.0f, 1);
            Reducers.of(DType.F32_I32, Op.MINLOC).reduceInto(a, 0, pairF32(arena, -0.0f, 5), 0, 1);
            assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(a.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 0)));
            assertEquals(5, a.get(ValueLayout.JAVA_INT_UNALIGNED, 4));
            Reducers.of(DType.F32_I32, Op.MAXLOC).reduceInto(a, 0, pairF32(arena, Float.NaN, 7), 0, 1);
            assertEquals(7, a.get(ValueLayout.JAVA_INT_UNALIGNED, 4));
        }
    }

    @Test
    void averagesDivideOnceWithTheTypesRule() {
        assertEquals(-3, (int) Averages.of(DType.I32, -7, 2));             // truncation toward zero
        assertEquals(0x7FFF_FFFF, (int) Averages.of(DType.U32, 0xFFFF_FFFEL, 2));   // unsigned
        assertEquals(Long.divideUnsigned(-1L, 3), Averages.of(DType.U64, -1L, 3));
        assertEquals(1.0 / 3, Double.longBitsToDouble(Averages.of(DType.F64, Double.doubleToRawLongBits(1.0), 3)));
        assertEquals(1.5f, HalfFloats.toFloat(DType.F16, (short) Averages.of(DType.F16, HalfFloats.fromFloat(DType.F16, 3f), 2)));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(3 * 4);
            x.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 4, 10f);
            x.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 8, 1f);
            Averages.divide(DType.F32, x, 4, 2, 4);
            assertEquals(2.5f, x.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 4));
            assertEquals(0.25f, x.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 8));
            assertThrows(IllegalArgumentException.class, () -> Averages.divide(DType.F32, x, 4, 3, 2));
        }
        assertSame(Reducers.of(DType.F32, Op.SUM), Reducers.of(DType.F32, Op.AVG));
    }

    @Test
    void undefinedCombinationsNameOpAndDtype() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Reducers.of(DType.BF16, Op.BXOR));
        assertTrue(e.getMessage().contains("bxor") && e.getMessage().contains("bf16"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Reducers.of(DType.F64, Op.MINLOC));
        assertTrue(e.getMessage().contains("pair dtype"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Reducers.of(DType.I32_I32, Op.SUM));
        assertTrue(e.getMessage().contains("i32_i32"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Reducers.of(DType.F64, Op.USER));
        assertThrows(IllegalArgumentException.class, () -> Op.parse("user"));
        assertEquals(DType.BF16, DType.parse("bf16"));
        assertEquals(DType.F32_I32, DType.parse("F32_I32"));
        assertEquals(Op.MAXLOC, Op.parse("maxloc"));
    }

    /**
     * "The first non-zero": {@code a op b = a != 0 ? a : b}, associative and not commutative, so a fold in any
     * order but left to right gives a different answer (the kernel tests use 2x2 matrix products).
     */
    static final UserOp FIRST_NON_ZERO = UserOp.ofLongs("first-non-zero", DType.I64, false, OpsAndTypesSemanticsTest::firstNonZero);

    static long firstNonZero(long x, long y) {
        return x != 0 ? x : y;
    }

    @Test
    void nonCommutativeUserOpFoldsLeftToRightEvenWhenDstIsALaterSource() {
        Reducer r = FIRST_NON_ZERO.reducer();
        assertFalse(r.commutative());
        assertEquals(Op.USER, r.op());
        SplittableRandom rnd = new SplittableRandom(3);
        try (Arena arena = Arena.ofConfined()) {
            int k = 5;
            long count = 7;
            MemorySegment[] srcs = new MemorySegment[k];
            for (int j = 0; j < k; j++) {
                srcs[j] = arena.allocate(count * 8);
                for (long i = 0; i < count; i++) {
                    srcs[j].setAtIndex(ValueLayout.JAVA_LONG, i, rnd.nextInt(3) == 0 ? 0 : rnd.nextLong());
                }
            }
            long[] expected = new long[(int) count];
            long[] reversed = new long[(int) count];
            for (int i = 0; i < count; i++) {
                expected[i] = srcs[0].getAtIndex(ValueLayout.JAVA_LONG, i);
                reversed[i] = srcs[k - 1].getAtIndex(ValueLayout.JAVA_LONG, i);
                for (int j = 1; j < k; j++) {
                    expected[i] = firstNonZero(expected[i], srcs[j].getAtIndex(ValueLayout.JAVA_LONG, i));
                    reversed[i] = firstNonZero(reversed[i], srcs[k - 1 - j].getAtIndex(ValueLayout.JAVA_LONG, i));
                }
            }
            assertNotEquals(expected[0], reversed[0], "the test op must not commute on this data");
            MemorySegment dst = srcs[3];   // exactly a later source
            r.reduceMany(dst, 0, srcs, new long[k], k, count);
            for (int i = 0; i < count; i++) {
                assertEquals(expected[i], dst.getAtIndex(ValueLayout.JAVA_LONG, i), "element " + i);
            }
        }
    }

    /** Issue 30: a later source that is a read-only view of dst's array (heapBase() empty) is still dst. */
    @Test
    void userOpSeesAReadOnlyHeapViewOfDstAsDst() {
        Reducer r = UserOp.ofLongs("plus", DType.I64, true, Long::sum).reducer();
        for (int at = 2; at < 4; at++) {
            long[] dstArray = {1, 2, 3};
            MemorySegment dst = MemorySegment.ofArray(dstArray);
            MemorySegment[] srcs = new MemorySegment[4];
            for (int j = 0; j < srcs.length; j++) {
                srcs[j] = j == at ? dst.asReadOnly() : MemorySegment.ofArray(new long[]{10L * (j + 1), 10L * (j + 1), 10L * (j + 1)});
            }
            long[] expected = new long[3];
            for (int i = 0; i < 3; i++) {
                for (MemorySegment s : srcs) {
                    expected[i] += s.getAtIndex(ValueLayout.JAVA_LONG, i);
                }
            }
            r.reduceMany(dst, 0, srcs, new long[srcs.length], srcs.length, 3);
            assertArrayEquals(expected, dstArray, "dst is source " + at);
        }
    }

    private static MemorySegment pairF32(Arena arena, float v, int index) {
        MemorySegment s = arena.allocate(8);
        s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, 0, v);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 4, index);
        return s;
    }

    private static float f16(Op op, float a, float b) {
        return half(DType.F16, op, a, b);
    }

    private static float bf16(Op op, float a, float b) {
        return half(DType.BF16, op, a, b);
    }

    /** Through a reducer (not just the element function), with both operands exact in the type. */
    private static float half(DType t, Op op, float a, float b) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment x = arena.allocate(2);
            MemorySegment y = arena.allocate(2);
            x.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, HalfFloats.fromFloat(t, a));
            y.set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, HalfFloats.fromFloat(t, b));
            assertEquals(a, HalfFloats.toFloat(t, x.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0)), "operand not exact in " + t);
            Reducers.of(t, op).reduceInto(x, 0, y, 0, 1);
            return HalfFloats.toFloat(t, x.get(ValueLayout.JAVA_SHORT_UNALIGNED, 0));
        }
    }
}
