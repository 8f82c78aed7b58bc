package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Result comparison under the contract of {@link Op}: every element bitwise equal, except that two
 * F32/F64 NaNs are equal whatever their payloads (Java does not fix which payload {@code a + b} or
 * {@code Math.min(a, b)} returns when both are NaN: the interpreter and C2 differ). {@link MinMaxTest}
 * checks the stronger MIN/MAX property that the result is bitwise one of the operands.
 */
final class ReductionAssertions {

    private ReductionAssertions() {
    }

    static void assertSameResult(DType dtype, Op op, MemorySegment expected, long expectedOffset,
                                 MemorySegment actual, long actualOffset, long count, String context) {
        long bytes = count * dtype.size();
        if (MemorySegment.mismatch(expected, expectedOffset, expectedOffset + bytes,
                actual, actualOffset, actualOffset + bytes) == -1) {
            return;
        }
        boolean anyNanEqual = dtype.isFloating();
        if (dtype.isPair()) {
            fail(context + ": pairs differ at byte " + MemorySegment.mismatch(expected, expectedOffset,
                    expectedOffset + bytes, actual, actualOffset, actualOffset + bytes));
        }
        for (long i = 0; i < count; i++) {
            long e = expectedOffset + i * dtype.size();
            long a = actualOffset + i * dtype.size();
            long eb = bits(dtype, expected, e);
            long ab = bits(dtype, actual, a);
            if (eb == ab || anyNanEqual && isNaN(dtype, eb) && isNaN(dtype, ab)) {
                continue;
            }
            fail(context + ": element " + i + " of " + count + " differs: expected " + show(dtype, eb)
                    + " but was " + show(dtype, ab));
        }
    }

    /** Asserts that {@code seg} is still the byte pattern of {@link TestValues#poison}. */
    static void assertUntouched(MemorySegment seg, String context) {
        for (long i = 0; i < seg.byteSize(); i++) {
            if (seg.get(ValueLayout.JAVA_BYTE, i) != 0x5A) {
                fail(context + ": byte " + i + " of dst was written");
            }
        }
    }

    private static long bits(DType dtype, MemorySegment seg, long at) {
        return switch (dtype) {
            case F32 -> Float.floatToRawIntBits(seg.get(ValueLayout.JAVA_FLOAT_UNALIGNED, at)) & 0xFFFF_FFFFL;
            case I32, U32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, at) & 0xFFFF_FFFFL;
            case F64 -> Double.doubleToRawLongBits(seg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at));
            case F16, BF16 -> seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, at) & 0xFFFFL;
            default -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        };
    }

    private static boolean isNaN(DType dtype, long bits) {
        return switch (dtype) {
            case F32 -> Float.isNaN(Float.intBitsToFloat((int) bits));
            case F16, BF16 -> Float.isNaN(HalfFloats.toFloat(dtype, (short) bits));
            default -> Double.isNaN(Double.longBitsToDouble(bits));
        };
    }

    private static String show(DType dtype, long bits) {
        return switch (dtype) {
            case F32 -> Float.intBitsToFloat((int) bits) + " (0x" + Integer.toHexString((int) bits) + ")";
            case F64 -> Double.longBitsToDouble(bits) + " (0x" + Long.toHexString(bits) + ")";
            case F16, BF16 -> HalfFloats.toFloat(dtype, (short) bits) + " (0x" + Long.toHexString(bits) + ")";
            case I32, U32 -> Integer.toString((int) bits);
            default -> Long.toString(bits);
        };
    }
}
