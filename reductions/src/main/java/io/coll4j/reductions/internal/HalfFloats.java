package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;

/**
 * Conversions of the 2-byte floating types to and from f32, the type they are folded in ({@link DType#F16},
 * {@link DType#BF16}). Widening is exact for both. Narrowing rounds to nearest, ties to even: F16 through
 * {@link Float#floatToFloat16} (the JDK's IEEE conversion, an intrinsic on x86 with F16C); BF16 by rounding
 * away the low 16 bits of the f32, which is the whole conversion because bfloat16 is f32's upper half.
 */
public final class HalfFloats {

    private HalfFloats() {
    }

    /** The f32 value of the 2-byte element {@code bits} of {@code dtype} (F16 or BF16), exactly. */
    public static float toFloat(DType dtype, short bits) {
        return dtype == DType.F16 ? Float.float16ToFloat(bits) : bf16ToFloat(bits);
    }

    /** {@code value} rounded to {@code dtype} (F16 or BF16), to nearest even. */
    public static short fromFloat(DType dtype, float value) {
        return dtype == DType.F16 ? Float.floatToFloat16(value) : floatToBf16(value);
    }

    static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat(bits << 16);
    }

    /**
     * Round to nearest even on the 16 discarded bits: adding {@code 0x7FFF} plus the lowest kept bit carries
     * into the kept half exactly when the discarded half is above one half, or equal to it with an odd kept
     * half; a carry out of the significand steps the exponent, which is the right result (up to infinity).
     * NaN keeps its sign and upper payload and is made quiet, so a payload held only in the low bits does not
     * turn into infinity.
     */
    static short floatToBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
