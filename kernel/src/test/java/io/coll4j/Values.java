package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Test inputs and the scalar reference. Values are a pure function of (rank, index, salt), so every
 * rank can compute every other rank's input and the expected result without communicating.
 *
 * <p>{@link #exact} inputs make float results independent of the reduction order (small integers for
 * SUM, powers of two for PROD, and for MIN/MAX the special values NaN, ±0.0, ±Infinity, subnormals), so
 * every algorithm must match the rank-ordered reference exactly; {@link #random} inputs are arbitrary
 * finite floats, for the bitwise determinism and reproducibility tests.
 */
final class Values {
    /**
     * The dtypes the algorithm tests sweep: every algorithm path is per element size and per fold, not per
     * type, and these four cover the C kernel's types; {@code OpsAndTypesCollectivesTest} runs the others.
     */
    static final java.util.List<DType> CORE_TYPES = java.util.List.of(DType.F32, DType.F64, DType.I32, DType.I64);

    private Values() {
    }

    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static long bits(int rank, long i, long salt) {
        return mix(mix(salt * 0x9E3779B97F4A7C15L + rank) ^ (i * 0xC2B2AE3D27D4EB4FL));
    }

    private static final double[] MINMAX_POOL = {-0.0, 0.0, 1.5, -2.25, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.NaN, Double.MIN_VALUE, -Double.MIN_VALUE, 7.0, -7.0, 3.0e10};
    private static final double[] PROD_POOL = {1, -1, 2, 0.5, 1, -2, 1, 0.25};

    /** An input whose fold is exact in any order (see class comment). */
    static double exactDouble(Op op, int rank, long i, long salt) {
        long b = bits(rank, i, salt);
        return switch (op) {
            case SUM -> (double) ((b & 31) - 16);
            case PROD -> PROD_POOL[(int) (b & 7)];
            case MIN, MAX -> MINMAX_POOL[(int) Long.remainderUnsigned(b, MINMAX_POOL.length)];
            default -> throw new IllegalArgumentException(op.toString());
        };
    }

    /** Arbitrary finite doubles of mixed magnitude: sums depend on the order. */
    static double randomDouble(int rank, long i, long salt) {
        long b = bits(rank, i, salt);
        return ((b >>> 11) * 0x1.0p-53 - 0.5) * Math.scalb(1.0, (int) ((b & 15) - 4));
    }

    /** Writes rank {@code rank}'s input (count elements) into seg at byte offset off. */
    static void fill(MemorySegment seg, long off, DType t, Op op, int rank, long count, long salt, boolean exact) {
        // the op's shape is decided once, outside the loop: with the null test inside it, C2 (JDK 25.0.3) twice
        // compiled this loop into code that folded a null op without the test and crashed the JVM (SIGSEGV at
        // null + 12, the ordinal's offset) — under load, in CollectiveCorrectnessTest's bcast cases (op null)
        Op shape = shape(op);
        for (long i = 0; i < count; i++) {
            long at = off + i * t.size();
            switch (t) {
                case F64 -> seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, value(t, shape, rank, i, salt, exact));
                case F32 -> seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) value(t, shape, rank, i, salt, exact));
                case I32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) bits(rank, i, salt));
                case I64 -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, bits(rank, i, salt));
                default -> ScalarReference.set(t, seg, at, bitsOf(t, shape, rank, i, salt, exact));
            }
        }
    }

    /** The op whose inputs a call gets: its fold op, SUM's for a collective without one (op null). */
    private static Op shape(Op op) {
        return op == null ? Op.SUM : op.foldOp();
    }

    /** {@code shape} is never null here (see {@link #fill}). */
    private static double value(DType t, Op shape, int rank, long i, long salt, boolean exact) {
        if (!exact) {
            return randomDouble(rank, i, salt);
        }
        double v = exactDouble(shape, rank, i, salt);
        if (t == DType.F32 && v == 3.0e10) {
            return 3.0e10f;
        }
        return v;
    }

    /** The raw bits of element i of rank's input, as stored (for exact comparisons). */
    static long inputBits(DType t, Op op, int rank, long i, long salt, boolean exact) {
        return bitsOf(t, shape(op), rank, i, salt, exact);
    }

    private static long bitsOf(DType t, Op shape, int rank, long i, long salt, boolean exact) {
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(value(t, shape, rank, i, salt, exact));
            case F32 -> Float.floatToRawIntBits((float) value(t, shape, rank, i, salt, exact));
            case I32, U32 -> (int) bits(rank, i, salt);
            case I64, U64 -> bits(rank, i, salt);
            // exact inputs are small integers, powers of two and specials, all exact in both (or rounded
            // the same on every rank); sums of up to 8 of them stay exact even in bf16's 8 bits
            case F16 -> Float.floatToFloat16((float) value(t, shape, rank, i, salt, exact));
            case BF16 -> bf16((float) value(t, shape, rank, i, salt, exact));
            default -> throw new IllegalArgumentException("a pair is not one number: " + t);
        };
    }

    /** bf16 of f, to nearest even (the test's own conversion, not coll4j's). */
    static short bf16(float f) {
        int b = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((b >>> 16) | 0x40);
        }
        int lower = b & 0xFFFF;
        int upper = b >>> 16;
        boolean up = lower > 0x8000 || lower == 0x8000 && (upper & 1) == 1;
        return (short) (up ? upper + 1 : upper);
    }

    /** Reference: the left fold over ranks {@code 0..p-1} of element i (at element index {@code i + base} of each input). */
    static long foldBits(DType t, Op op, int p, long i, long salt, boolean exact) {
        long acc = inputBits(t, op, 0, i, salt, exact);
        for (int q = 1; q < p; q++) {
            acc = ScalarReference.apply(t, op, acc, inputBits(t, op, q, i, salt, exact));
        }
        // AVG: the SUM of the p contributions, divided by p (Op's definition)
        return op == Op.AVG ? io.coll4j.reductions.Averages.of(t, acc, p) : acc;
    }

    /** Element i of seg (at byte offset off) as raw bits. */
    static long read(MemorySegment seg, long off, DType t, long i) {
        long at = off + i * t.size();
        return ScalarReference.get(t, seg, at);
    }

    /** Equal as values of t: {@link ScalarReference#same} (any NaN equals any NaN, −0.0 ≠ +0.0). */
    static boolean same(DType t, long expected, long actual) {
        return ScalarReference.same(t, expected, actual);
    }

    static String show(DType t, long bits) {
        return switch (t) {
            case F64 -> Double.toString(Double.longBitsToDouble(bits));
            case F32 -> Float.toString(Float.intBitsToFloat((int) bits));
            case I32 -> Integer.toString((int) bits);
            case I64 -> Long.toString(bits);
            case U32 -> Integer.toUnsignedString((int) bits);
            case U64 -> Long.toUnsignedString(bits);
            case F16 -> Float.float16ToFloat((short) bits) + " (0x" + Integer.toHexString((int) bits & 0xFFFF) + ")";
            case BF16 -> Float.intBitsToFloat((int) bits << 16) + " (0x" + Integer.toHexString((int) bits & 0xFFFF) + ")";
            default -> "0x" + Long.toHexString(bits);
        };
    }
}
