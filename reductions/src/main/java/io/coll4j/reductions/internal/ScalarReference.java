package io.coll4j.reductions.internal;

import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The scalar reference of one element, on raw bits: what every algorithm's result is checked against
 * (the CLI's {@code --validate}, the collective tests). The arithmetic is {@link ScalarReducer}'s — the
 * plain-loop reducer — so there is one definition of {@code a op b} per type in coll4j.
 *
 * <p>Values travel as raw bits in a {@code long}: F64 as {@link Double#doubleToRawLongBits}, F32 as
 * {@link Float#floatToRawIntBits} in the low 32 bits, I32/U32 sign-extended, I64/U64 as is, F16/BF16 in
 * the low 16 bits. Pairs do not fit a {@code long}: use the segment form of {@link #apply}.
 */
public final class ScalarReference {

    private ScalarReference() {
    }

    /**
     * {@code a op b} for {@code dtype}, integers wrapping.
     *
     * @throws IllegalArgumentException for a bitwise op on a floating type
     */
    public static long apply(DType dtype, Op op, long a, long b) {
        op.checkSupports(dtype);
        return ElementOps.apply(dtype, op, a, b);
    }

    /**
     * {@code dst = a op b} for the one element (of any dtype, pairs included) at each offset: the reference
     * for types whose element does not fit a {@code long}. AVG combines as SUM ({@link Averages} divides).
     *
     * @throws IllegalArgumentException for an op the dtype does not support
     */
    public static void apply(DType dtype, Op op, MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                             MemorySegment b, long bOffset) {
        op.checkSupports(dtype);
        if (dtype.isPair()) {
            PairOps.combine(dtype, op, dst, dstOffset, a, aOffset, b, bOffset);
        } else {
            ElementOps.set(dtype, dst, dstOffset,
                    ElementOps.apply(dtype, op, ElementOps.get(dtype, a, aOffset), ElementOps.get(dtype, b, bOffset)));
        }
    }

    /** The raw bits of the non-pair element at {@code offset} (the encoding of the class comment). */
    public static long get(DType dtype, MemorySegment s, long offset) {
        return ElementOps.get(dtype, s, offset);
    }

    /** Stores {@code bits} as the non-pair element at {@code offset}. */
    public static void set(DType dtype, MemorySegment s, long offset, long bits) {
        ElementOps.set(dtype, s, offset, bits);
    }

    /**
     * Equal as values of {@code dtype}: floats compare as {@link Double#compare}/{@link Float#compare} do
     * (any NaN equals any NaN, −0.0 differs from +0.0), integers by their {@code dtype}-wide bits.
     */
    public static boolean same(DType dtype, long expected, long actual) {
        return switch (dtype) {
            case F64 -> Double.compare(Double.longBitsToDouble(expected), Double.longBitsToDouble(actual)) == 0;
            case F32 -> Float.compare(Float.intBitsToFloat((int) expected), Float.intBitsToFloat((int) actual)) == 0;
            case F16, BF16 -> Float.compare(HalfFloats.toFloat(dtype, (short) expected),
                    HalfFloats.toFloat(dtype, (short) actual)) == 0;
            case I32, U32 -> (int) expected == (int) actual;
            case I64, U64 -> expected == actual;
            default -> throw new IllegalArgumentException("dtype " + dtype.cliName() + " is a pair: compare its bytes");
        };
    }
}
