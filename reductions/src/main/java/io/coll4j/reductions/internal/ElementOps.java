package io.coll4j.reductions.internal;

import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code a op b} on one element of any non-pair dtype, as raw bits in a {@code long}, and the loads and
 * stores of those bits: the one definition of the types that have no plain loop of their own in
 * {@link ScalarReducer} (F16, BF16, U32, U64) and of {@link ScalarReference}. Bits: F64 as
 * {@link Double#doubleToRawLongBits}; F32 as {@link Float#floatToRawIntBits}, I32 and U32 in the low 32 bits;
 * F16/BF16 in the low 16 bits; I64 and U64 as is.
 */
final class ElementOps {

    private static final ValueLayout.OfShort S16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt S32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong S64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private ElementOps() {
    }

    /** {@code a op b} for a non-pair {@code dtype}; AVG combines as SUM (its division is {@link Averages}'). */
    static long apply(DType dtype, Op op, long a, long b) {
        Op o = op.foldOp();
        return switch (dtype) {
            case F64 -> Double.doubleToRawLongBits(
                    ScalarReducer.apply(o, Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            case F32 -> Float.floatToRawIntBits(
                    ScalarReducer.apply(o, Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b)));
            case I32 -> ScalarReducer.apply(o, (int) a, (int) b);
            case I64 -> ScalarReducer.apply(o, a, b);
            case U32 -> unsigned32(o, (int) a, (int) b);
            case U64 -> unsigned64(o, a, b);
            case F16, BF16 -> half(dtype, o, (short) a, (short) b);
            default -> throw new IllegalArgumentException("op " + op.cliName() + " on dtype " + dtype.cliName()
                    + " is a pair op (PairOps), not an element op");
        };
    }

    /** U32: MIN/MAX unsigned, everything else bit-identical to I32. */
    static int unsigned32(Op op, int a, int b) {
        return switch (op) {
            case MIN -> Integer.compareUnsigned(a, b) <= 0 ? a : b;
            case MAX -> Integer.compareUnsigned(a, b) >= 0 ? a : b;
            default -> ScalarReducer.apply(op, a, b);
        };
    }

    /** U64: MIN/MAX unsigned, everything else bit-identical to I64. */
    static long unsigned64(Op op, long a, long b) {
        return switch (op) {
            case MIN -> Long.compareUnsigned(a, b) <= 0 ? a : b;
            case MAX -> Long.compareUnsigned(a, b) >= 0 ? a : b;
            default -> ScalarReducer.apply(op, a, b);
        };
    }

    /**
     * F16/BF16: widen, compute in f32, round back. MIN and MAX return one of the operands' own bits
     * (widening is exact, so the f32 winner identifies it), as MIN and MAX never make up a value.
     */
    static short half(DType dtype, Op op, short a, short b) {
        float x = HalfFloats.toFloat(dtype, a);
        float y = HalfFloats.toFloat(dtype, b);
        return switch (op) {
            case MIN, MAX -> {
                float r = ScalarReducer.apply(op, x, y);
                yield Float.floatToRawIntBits(r) == Float.floatToRawIntBits(x) || Float.isNaN(x) ? a : b;
            }
            default -> HalfFloats.fromFloat(dtype, ScalarReducer.apply(op, x, y));
        };
    }

    /** The raw bits of the element at {@code offset} (see the class comment for the encoding). */
    static long get(DType dtype, MemorySegment s, long offset) {
        return switch (dtype.size()) {
            case 2 -> s.get(S16, offset);
            case 4 -> s.get(S32, offset);
            default -> s.get(S64, offset);
        };
    }

    /** Stores the low {@code dtype.size()} bytes of {@code bits} at {@code offset}. */
    static void set(DType dtype, MemorySegment s, long offset, long bits) {
        switch (dtype.size()) {
            case 2 -> s.set(S16, offset, (short) bits);
            case 4 -> s.set(S32, offset, (int) bits);
            default -> s.set(S64, offset, bits);
        }
    }
}
