package io.coll4j.cli;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.ScalarReference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Benchmark inputs and the scalar reference for {@code -c}. Inputs are chosen so every reduction order
 * gives the same result (small integers for SUM, powers of two for PROD, arbitrary values for MIN/MAX,
 * arbitrary bits for integers), so every algorithm is checked exactly against the rank-ordered fold.
 */
final class BenchData {
    private static final double[] PROD = {1, -1, 2, 0.5, 1, -2, 1, 0.25};

    private BenchData() {
    }

    private static long bits(int rank, long i) {
        long z = rank * 0x9E3779B97F4A7C15L + i * 0xC2B2AE3D27D4EB4FL + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    private static double real(Op op, int rank, long i) {
        long b = bits(rank, i);
        return switch (op == null ? Op.SUM : op) {
            case PROD -> PROD[(int) (b & 7)];
            case MIN, MAX -> (double) ((b >>> 11) % 2001 - 1000) / 8;
            default -> (double) ((b & 31) - 16);
        };
    }

    /** Raw bits of element i of rank's input. */
    static long input(DType t, Op op, int rank, long i) {
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(real(op, rank, i));
            case F32 -> Float.floatToRawIntBits((float) real(op, rank, i));
            case I32 -> (int) bits(rank, i);
            case I64 -> bits(rank, i);
        };
    }

    /** Writes rank's input elements [0, count) to seg. */
    static void fill(MemorySegment seg, DType t, Op op, int rank, long count) {
        for (long i = 0; i < count; i++) {
            put(seg, t, i, input(t, op, rank, i));
        }
    }

    static void put(MemorySegment seg, DType t, long i, long bits) {
        switch (t) {
            case F64, I64 -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i * 8, bits);
            case F32, I32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, i * 4, (int) bits);
        }
    }

    static long get(MemorySegment seg, DType t, long i) {
        return switch (t) {
            case F64, I64 -> seg.get(ValueLayout.JAVA_LONG_UNALIGNED, i * 8);
            case F32, I32 -> seg.get(ValueLayout.JAVA_INT_UNALIGNED, i * 4);
        };
    }

    /** The left fold over ranks 0..p-1 of element i. */
    static long fold(DType t, Op op, int p, long i) {
        long acc = input(t, op, 0, i);
        for (int q = 1; q < p; q++) {
            acc = ScalarReference.apply(t, op, acc, input(t, op, q, i));
        }
        return acc;
    }

    /** Equal as values of t (float NaN equals NaN): {@link ScalarReference#same}. */
    static boolean same(DType t, long a, long b) {
        return ScalarReference.same(t, a, b);
    }
}
