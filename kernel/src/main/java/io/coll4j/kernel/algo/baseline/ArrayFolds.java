package io.coll4j.kernel.algo.baseline;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;

/**
 * The loops a Java developer writes over arrays: {@code dst[d+i] = dst[d+i] op src[s+i]} for i < n,
 * one plain loop per type and op, chosen outside the loop (C2 auto-vectorises the simple ones). Float
 * MIN/MAX are {@link Math#min}/{@link Math#max}, integer SUM/PROD wrap: the same semantics as
 * {@link Op}. The types without a Java primitive of their own go element by element through the scalar
 * reference. AVG arrives here as SUM (the runtime divides after the collective); user ops are refused.
 */
final class ArrayFolds {
    private ArrayFolds() {
    }

    static void foldInto(Object dst, int dOff, Object src, int sOff, int n, DType dtype, Op op) {
        if (op == Op.USER) {
            throw new IllegalArgumentException("the cyclicbarrier baselines have no user ops (a user op runs on coll4j's algorithms)");
        }
        if (dtype.isHalf() || dtype.isUnsigned()) {
            foldBits(dst, dOff, src, sOff, n, dtype, op);
            return;
        }
        switch (dst) {
            case double[] d -> fold(d, dOff, (double[]) src, sOff, n, op);
            case float[] d -> fold(d, dOff, (float[]) src, sOff, n, op);
            case int[] d -> fold(d, dOff, (int[]) src, sOff, n, op);
            case long[] d -> fold(d, dOff, (long[]) src, sOff, n, op);
            default -> throw new IllegalArgumentException("not a numeric array: " + dst.getClass());
        }
    }

    /**
     * F16/BF16 (over {@code short[]}) and U32/U64 (over {@code int[]}/{@code long[]}): one element at a time
     * through the scalar reference, whose element semantics (f32 fold and rounding, unsigned compares) a
     * plain Java loop would otherwise have to repeat.
     */
    private static void foldBits(Object dst, int dOff, Object src, int sOff, int n, DType dtype, Op op) {
        switch (dst) {
            case short[] d -> {
                short[] s = (short[]) src;
                for (int i = 0; i < n; i++) {
                    d[dOff + i] = (short) ScalarReference.apply(dtype, op, d[dOff + i], s[sOff + i]);
                }
            }
            case int[] d -> {
                int[] s = (int[]) src;
                for (int i = 0; i < n; i++) {
                    d[dOff + i] = (int) ScalarReference.apply(dtype, op, d[dOff + i], s[sOff + i]);
                }
            }
            case long[] d -> {
                long[] s = (long[]) src;
                for (int i = 0; i < n; i++) {
                    d[dOff + i] = ScalarReference.apply(dtype, op, d[dOff + i], s[sOff + i]);
                }
            }
            default -> throw new IllegalArgumentException("not an array of " + dtype.cliName() + ": " + dst.getClass());
        }
    }

    private static void fold(double[] d, int o, double[] s, int so, int n, Op op) {
        switch (op) {
            case SUM -> { for (int i = 0; i < n; i++) { d[o + i] += s[so + i]; } }
            case PROD -> { for (int i = 0; i < n; i++) { d[o + i] *= s[so + i]; } }
            case MIN -> { for (int i = 0; i < n; i++) { d[o + i] = Math.min(d[o + i], s[so + i]); } }
            case MAX -> { for (int i = 0; i < n; i++) { d[o + i] = Math.max(d[o + i], s[so + i]); } }
            default -> throw new IllegalArgumentException("op " + op + " is not defined for f64");
        }
    }

    private static void fold(float[] d, int o, float[] s, int so, int n, Op op) {
        switch (op) {
            case SUM -> { for (int i = 0; i < n; i++) { d[o + i] += s[so + i]; } }
            case PROD -> { for (int i = 0; i < n; i++) { d[o + i] *= s[so + i]; } }
            case MIN -> { for (int i = 0; i < n; i++) { d[o + i] = Math.min(d[o + i], s[so + i]); } }
            case MAX -> { for (int i = 0; i < n; i++) { d[o + i] = Math.max(d[o + i], s[so + i]); } }
            default -> throw new IllegalArgumentException("op " + op + " is not defined for f32");
        }
    }

    private static void fold(int[] d, int o, int[] s, int so, int n, Op op) {
        switch (op) {
            case SUM -> { for (int i = 0; i < n; i++) { d[o + i] += s[so + i]; } }
            case PROD -> { for (int i = 0; i < n; i++) { d[o + i] *= s[so + i]; } }
            case MIN -> { for (int i = 0; i < n; i++) { d[o + i] = Math.min(d[o + i], s[so + i]); } }
            case MAX -> { for (int i = 0; i < n; i++) { d[o + i] = Math.max(d[o + i], s[so + i]); } }
            case BAND -> { for (int i = 0; i < n; i++) { d[o + i] &= s[so + i]; } }
            case BOR -> { for (int i = 0; i < n; i++) { d[o + i] |= s[so + i]; } }
            case BXOR -> { for (int i = 0; i < n; i++) { d[o + i] ^= s[so + i]; } }
        }
    }

    private static void fold(long[] d, int o, long[] s, int so, int n, Op op) {
        switch (op) {
            case SUM -> { for (int i = 0; i < n; i++) { d[o + i] += s[so + i]; } }
            case PROD -> { for (int i = 0; i < n; i++) { d[o + i] *= s[so + i]; } }
            case MIN -> { for (int i = 0; i < n; i++) { d[o + i] = Math.min(d[o + i], s[so + i]); } }
            case MAX -> { for (int i = 0; i < n; i++) { d[o + i] = Math.max(d[o + i], s[so + i]); } }
            case BAND -> { for (int i = 0; i < n; i++) { d[o + i] &= s[so + i]; } }
            case BOR -> { for (int i = 0; i < n; i++) { d[o + i] |= s[so + i]; } }
            case BXOR -> { for (int i = 0; i < n; i++) { d[o + i] ^= s[so + i]; } }
        }
    }
}
