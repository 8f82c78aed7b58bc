package io.coll4j.cli;

import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;

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

    private static double real(DType t, Op op, int rank, long i) {
        long b = bits(rank, i);
        return switch (op == null ? Op.SUM : op.foldOp()) {
            case PROD -> PROD[(int) (b & 7)];
            case MIN, MAX -> (double) ((b >>> 11) % 2001 - 1000) / 8;
            // half types: |sum| <= 4p stays exact in bf16's 8 bits up to p = 64, so every order agrees
            default -> t.isHalf() ? (double) ((b & 7) - 4) : (double) ((b & 31) - 16);
        };
    }

    /**
     * Raw bits of element i of rank's input. A pair type's element is packed into the long as
     * {@code index << 32 | value} (value: f32 bits for the float pairs, the int for the integer ones; values
     * are 0..3 and indices 0..63, so ties are common and both fit), expanded by {@link #put}.
     */
    static long input(DType t, Op op, int rank, long i) {
        if (t.isPair()) {
            long b = bits(rank, i);
            int v = (int) (b & 3);
            int value = t.valueType().isFloating() ? Float.floatToRawIntBits(v) : v;
            return ((b >>> 8) & 63) << 32 | (value & 0xFFFF_FFFFL);
        }
        return switch (t) {
            case F64 -> Double.doubleToRawLongBits(real(t, op, rank, i));
            case F32 -> Float.floatToRawIntBits((float) real(t, op, rank, i));
            case F16 -> Float.floatToFloat16((float) real(t, op, rank, i));
            case BF16 -> Float.floatToRawIntBits((float) real(t, op, rank, i)) >>> 16;   // exact: small values
            case I32, U32 -> (int) bits(rank, i);
            default -> bits(rank, i);
        };
    }

    /** Writes rank's input elements [0, count) to seg. */
    static void fill(MemorySegment seg, DType t, Op op, int rank, long count) {
        for (long i = 0; i < count; i++) {
            put(seg, t, i, input(t, op, rank, i));
        }
    }

    /** Stores element i (a pair expanded from its packed form, see {@link #input}). */
    static void put(MemorySegment seg, DType t, long i, long bits) {
        long at = i * t.size();
        if (!t.isPair()) {
            ScalarReference.set(t, seg, at, bits);
            return;
        }
        int value = (int) bits;
        long index = bits >>> 32;
        switch (t) {
            case F32_I32, I32_I32 -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, bits);
            case F64_I64 -> {
                seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, Float.intBitsToFloat(value));
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
            }
            default -> {
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, value);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
            }
        }
    }

    /**
     * Element i as raw bits; a pair packed as {@link #input} packs it. A 16-byte record that no packed value
     * expands to comes back as {@link #NOT_A_PACKED_PAIR} (which no input equals), so a corrupted record
     * never compares equal.
     */
    static long get(MemorySegment seg, DType t, long i) {
        long at = i * t.size();
        if (!t.isPair()) {
            return ScalarReference.get(t, seg, at);
        }
        if (t.size() == 8) {
            return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
        }
        long index = seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8);
        long packed;
        if (t == DType.F64_I64) {
            double v = seg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, at);
            packed = index << 32 | (Float.floatToRawIntBits((float) v) & 0xFFFF_FFFFL);
        } else {
            packed = index << 32 | (seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at) & 0xFFFF_FFFFL);
        }
        MemorySegment back = MemorySegment.ofArray(new long[2]);
        put(back, t, 0, packed);
        return MemorySegment.mismatch(back, 0, 16, seg, at, at + 16) == -1 ? packed : NOT_A_PACKED_PAIR;
    }

    /** What {@link #get} returns for a 16-byte pair record that is not the expansion of any packed pair. */
    static final long NOT_A_PACKED_PAIR = Long.MIN_VALUE;

    /**
     * The left fold over ranks 0..p-1 of element i (for AVG: their SUM divided by p, the runtime's definition;
     * a scan's rank r passes p = r + 1, an exscan's r).
     */
    static long fold(DType t, Op op, int p, long i) {
        if (t.isPair()) {
            MemorySegment acc = MemorySegment.ofArray(new long[2]);
            MemorySegment next = MemorySegment.ofArray(new long[2]);
            put(acc, t, 0, input(t, op, 0, i));
            for (int q = 1; q < p; q++) {
                put(next, t, 0, input(t, op, q, i));
                ScalarReference.apply(t, op, acc, 0, acc, 0, next, 0);
            }
            return get(acc, t, 0);
        }
        long acc = input(t, op, 0, i);
        for (int q = 1; q < p; q++) {
            acc = ScalarReference.apply(t, op, acc, input(t, op, q, i));
        }
        return op == Op.AVG ? Averages.of(t, acc, p) : acc;
    }

    /** Equal as values of t (float NaN equals NaN): {@link ScalarReference#same}; pairs by their packed bits. */
    static boolean same(DType t, long a, long b) {
        return t.isPair() ? a == b : ScalarReference.same(t, a, b);
    }
}
