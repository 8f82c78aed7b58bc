package io.coll4j.jmh;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

/**
 * The {@code array} comparison point of {@link ReductionBench}: {@code d[i] = a[i] op b[i]} as the plain
 * Java array loop that C2's SuperWord pass auto-vectorises — what Java code does without coll4j. One
 * loop per (dtype, op), so each is compiled on its own.
 */
final class ArrayReductions {

    private ArrayReductions() {
    }

    /** The loop for (dtype, op) over arrays {@code d}, {@code a}, {@code b} of {@code dtype.arrayType()}. */
    static Runnable loop(DType dtype, Op op, Object d, Object a, Object b) {
        return switch (dtype) {
            case F64 -> f64(op, (double[]) d, (double[]) a, (double[]) b);
            case F32 -> f32(op, (float[]) d, (float[]) a, (float[]) b);
            case I64 -> i64(op, (long[]) d, (long[]) a, (long[]) b);
            case I32 -> i32(op, (int[]) d, (int[]) a, (int[]) b);
            case F16 -> f16(op, (short[]) d, (short[]) a, (short[]) b);
            default -> throw new IllegalArgumentException("no array loop for dtype " + dtype.cliName()
                    + " (bf16, u32, u64 and the pairs have no Java arithmetic of their own to auto-vectorise)");
        };
    }

    /** F16 as a Java developer writes it with JDK 20's conversions (intrinsics C2 may vectorise). */
    private static Runnable f16(Op op, short[] d, short[] a, short[] b) {
        return switch (op) {
            case SUM -> () -> {
                for (int i = 0; i < d.length; i++) {
                    d[i] = Float.floatToFloat16(Float.float16ToFloat(a[i]) + Float.float16ToFloat(b[i]));
                }
            };
            case PROD -> () -> {
                for (int i = 0; i < d.length; i++) {
                    d[i] = Float.floatToFloat16(Float.float16ToFloat(a[i]) * Float.float16ToFloat(b[i]));
                }
            };
            default -> throw new IllegalArgumentException("op " + op.cliName() + ": the f16 array loop has sum and prod");
        };
    }

    private static Runnable f64(Op op, double[] d, double[] a, double[] b) {
        return switch (op) {
            case SUM -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] + b[i]; };
            case PROD -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] * b[i]; };
            case MIN -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.min(a[i], b[i]); };
            case MAX -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.max(a[i], b[i]); };
            default -> throw new IllegalArgumentException("op " + op.cliName() + " is not defined for f64");
        };
    }

    private static Runnable f32(Op op, float[] d, float[] a, float[] b) {
        return switch (op) {
            case SUM -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] + b[i]; };
            case PROD -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] * b[i]; };
            case MIN -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.min(a[i], b[i]); };
            case MAX -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.max(a[i], b[i]); };
            default -> throw new IllegalArgumentException("op " + op.cliName() + " is not defined for f32");
        };
    }

    private static Runnable i64(Op op, long[] d, long[] a, long[] b) {
        return switch (op) {
            case SUM -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] + b[i]; };
            case PROD -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] * b[i]; };
            case MIN -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.min(a[i], b[i]); };
            case MAX -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.max(a[i], b[i]); };
            case BAND -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] & b[i]; };
            case BOR -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] | b[i]; };
            case BXOR -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] ^ b[i]; };
            default -> throw new IllegalArgumentException("op " + op.cliName() + " has no array loop");
        };
    }

    private static Runnable i32(Op op, int[] d, int[] a, int[] b) {
        return switch (op) {
            case SUM -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] + b[i]; };
            case PROD -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] * b[i]; };
            case MIN -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.min(a[i], b[i]); };
            case MAX -> () -> { for (int i = 0; i < d.length; i++) d[i] = Math.max(a[i], b[i]); };
            case BAND -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] & b[i]; };
            case BOR -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] | b[i]; };
            case BXOR -> () -> { for (int i = 0; i < d.length; i++) d[i] = a[i] ^ b[i]; };
            default -> throw new IllegalArgumentException("op " + op.cliName() + " has no array loop");
        };
    }
}
