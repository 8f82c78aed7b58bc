package io.coll4j.kernel.algo.baseline;

import io.coll4j.reductions.Op;

/**
 * The loops a Java developer writes over arrays: {@code dst[d+i] = dst[d+i] op src[s+i]} for i < n,
 * one plain loop per type and op, chosen outside the loop (C2 auto-vectorises the simple ones). Float
 * MIN/MAX are {@link Math#min}/{@link Math#max}, integer SUM/PROD wrap: the same semantics as
 * {@link Op}.
 */
final class ArrayFolds {
    private ArrayFolds() {
    }

    static void foldInto(Object dst, int dOff, Object src, int sOff, int n, Op op) {
        switch (dst) {
            case double[] d -> fold(d, dOff, (double[]) src, sOff, n, op);
            case float[] d -> fold(d, dOff, (float[]) src, sOff, n, op);
            case int[] d -> fold(d, dOff, (int[]) src, sOff, n, op);
            case long[] d -> fold(d, dOff, (long[]) src, sOff, n, op);
            default -> throw new IllegalArgumentException("not a numeric array: " + dst.getClass());
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
