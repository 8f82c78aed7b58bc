package io.coll4j.reductions;

import io.coll4j.reductions.internal.HalfFloats;
import io.coll4j.reductions.internal.ScalarReference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The division that ends an {@link Op#AVG} collective: each result element, already the SUM of {@code n}
 * contributions, becomes {@code sum / n} — one correctly rounded division for F32/F64, f32 then rounded to
 * nearest even for F16/BF16, truncation toward zero for I32/I64 and unsigned division for U32/U64 (the
 * semantics on {@link Op}). It runs once over the result, after the fold: a rank divides only the
 * elements it returns, so every rank's bits are those of the scalar reference's sum, divided.
 */
public final class Averages {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private Averages() {
    }

    /**
     * {@code x[i] = x[i] / n} for the {@code count} elements of {@code dtype} at byte {@code offset}.
     *
     * @throws IllegalArgumentException for a pair dtype, {@code n < 1}, or a range outside the segment
     */
    public static void divide(DType dtype, MemorySegment x, long offset, long count, long n) {
        Op.AVG.checkSupports(dtype);
        if (n < 1) {
            throw new IllegalArgumentException("an average needs at least one contribution, got " + n);
        }
        long bytes = dtype.bytes(count);
        if (offset < 0 || offset > x.byteSize() - bytes) {
            throw new IllegalArgumentException("x is too small: " + bytes + " bytes at offset " + offset
                    + " do not fit in its " + x.byteSize() + " bytes");
        }
        if (n == 1) {
            return;
        }
        switch (dtype) {
            case F32 -> {
                float d = n;   // exact: n is a rank count, far below 2^24
                for (long i = 0; i < bytes; i += 4) {
                    x.set(F32, offset + i, x.get(F32, offset + i) / d);
                }
            }
            case F64 -> {
                double d = n;
                for (long i = 0; i < bytes; i += 8) {
                    x.set(F64, offset + i, x.get(F64, offset + i) / d);
                }
            }
            default -> {
                int size = dtype.size();
                for (long i = 0; i < bytes; i += size) {
                    ScalarReference.set(dtype, x, offset + i, of(dtype, ScalarReference.get(dtype, x, offset + i), n));
                }
            }
        }
    }

    /** One element's {@code sum / n} on raw bits (F64 as {@link Double#doubleToRawLongBits}, F32 as
     * {@link Float#floatToRawIntBits} in the low 32 bits, integers sign-extended, F16/BF16 in the low 16 bits), for any non-pair type. */
    public static long of(DType dtype, long sumBits, long n) {
        return switch (dtype) {
            case F64 -> Double.doubleToRawLongBits(Double.longBitsToDouble(sumBits) / n);
            case F32 -> Float.floatToRawIntBits(Float.intBitsToFloat((int) sumBits) / n);
            case F16, BF16 -> HalfFloats.fromFloat(dtype, HalfFloats.toFloat(dtype, (short) sumBits) / n);
            case I32 -> (int) sumBits / (int) n;
            case I64 -> sumBits / n;
            case U32 -> Integer.divideUnsigned((int) sumBits, (int) n);
            case U64 -> Long.divideUnsigned(sumBits, n);
            default -> throw new IllegalArgumentException("avg is not defined for dtype " + dtype.cliName());
        };
    }
}
