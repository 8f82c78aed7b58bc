package io.coll4j.reductions;

import java.lang.foreign.MemorySegment;

/**
 * SUM over heap segments backed by arrays of the dtype's own type — what {@code rank.allreduce(float[] …)}
 * passes — as plain array loops. The Vector API kernels take native segments only (see
 * {@link VectorReducer}: a Vector API load from a heap segment compiles to SIMD only in some cases, and
 * mixing heap and native calls in one loop deoptimises it), and the scalar segment loops they fall back to
 * dispatch on dtype and op per element: a 4 MiB f32 gradient allreduce over {@code float[]}s ran 5x slower
 * than over native segments. C2 auto-vectorises an element-wise array loop, so this path runs at SIMD
 * speed on heap data. The collectives' fold calls it before the {@link Reducer} (kernel's
 * {@code CollectiveCall.foldInto}); it is not called from inside {@link VectorReducer}, whose vector loops
 * C2 then inlined differently and boxed.
 *
 * <p>Order: a k-ary fold is k − 1 passes, {@code dst = s0 + s1}, then {@code dst = dst + s_j}: per
 * element exactly the left fold of the scalar loops, so the bits are the same. Declines (returns false)
 * when an operand is native or not over the dtype's array type, an offset is not a whole element, or dst is
 * a source after the first two (a pass would overwrite it before the next pass reads it).
 */
public final class HeapArraySum {
    private HeapArraySum() {
    }

    /** {@code dst = s0 + … + s(k−1)} when every operand qualifies; false (nothing written) otherwise. */
    public static boolean reduceMany(DType dtype, Op op, MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets,
                              int k, long count) {
        if (!handles(dtype, op) || k < 2 || count > Integer.MAX_VALUE) {
            return false;
        }
        int d = index(dtype, dst, dstOffset);
        if (d < 0) {
            return false;
        }
        Object dstArray = dst.heapBase().orElseThrow();
        int[] s = new int[k];
        for (int j = 0; j < k; j++) {
            s[j] = index(dtype, srcs[j], srcOffsets[j]);
            if (s[j] < 0) {
                return false;
            }
            if (j >= 2 && srcs[j].heapBase().orElseThrow() == dstArray && s[j] == d) {
                return false;
            }
        }
        int n = (int) count;
        add(dtype, dstArray, d, srcs[0].heapBase().orElseThrow(), s[0], srcs[1].heapBase().orElseThrow(), s[1], n);
        for (int j = 2; j < k; j++) {
            add(dtype, dstArray, d, dstArray, d, srcs[j].heapBase().orElseThrow(), s[j], n);
        }
        return true;
    }

    /** {@code dst = a + b} when every operand qualifies; false otherwise. */
    public static boolean reduce(DType dtype, Op op, MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                          MemorySegment b, long bOffset, long count) {
        if (!handles(dtype, op) || count > Integer.MAX_VALUE) {
            return false;
        }
        int d = index(dtype, dst, dstOffset);
        int ia = index(dtype, a, aOffset);
        int ib = index(dtype, b, bOffset);
        if (d < 0 || ia < 0 || ib < 0) {
            return false;
        }
        add(dtype, dst.heapBase().orElseThrow(), d, a.heapBase().orElseThrow(), ia, b.heapBase().orElseThrow(), ib, (int) count);
        return true;
    }

    /**
     * A heap segment over a fresh array of {@code elements} of the dtype's own type, for folds whose sources
     * are heap arrays but whose destination is native: fold strip by strip into it with {@link #reduceMany}
     * and copy each strip out. Null when this class does not handle {@code dtype} and {@code op}.
     */
    public static MemorySegment stripFor(DType dtype, Op op, int elements) {
        if (!handles(dtype, op)) {
            return null;
        }
        return switch (dtype) {
            case F32 -> MemorySegment.ofArray(new float[elements]);
            case F64 -> MemorySegment.ofArray(new double[elements]);
            case I32 -> MemorySegment.ofArray(new int[elements]);
            case I64 -> MemorySegment.ofArray(new long[elements]);
            default -> null;
        };
    }

    private static boolean handles(DType dtype, Op op) {
        return op == Op.SUM && (dtype == DType.F32 || dtype == DType.F64 || dtype == DType.I32 || dtype == DType.I64);
    }

    /** The element index of {@code offset} in the segment's array, or −1 when the segment does not qualify. */
    private static int index(DType dtype, MemorySegment seg, long offset) {
        if (seg.isNative() || seg.isReadOnly()) {
            return -1;
        }
        Object base = seg.heapBase().orElse(null);
        if (base == null || base.getClass() != dtype.arrayType()) {
            return -1;
        }
        long byteIndex = seg.address() + offset;   // address() of a heap segment: its byte offset in the array
        if (byteIndex % dtype.size() != 0) {
            return -1;
        }
        return (int) (byteIndex / dtype.size());
    }

    private static void add(DType dtype, Object dst, int d, Object a, int ia, Object b, int ib, int n) {
        switch (dtype) {
            case F32 -> {
                float[] o = (float[]) dst;
                float[] x = (float[]) a;
                float[] y = (float[]) b;
                for (int i = 0; i < n; i++) {
                    o[d + i] = x[ia + i] + y[ib + i];
                }
            }
            case F64 -> {
                double[] o = (double[]) dst;
                double[] x = (double[]) a;
                double[] y = (double[]) b;
                for (int i = 0; i < n; i++) {
                    o[d + i] = x[ia + i] + y[ib + i];
                }
            }
            case I32 -> {
                int[] o = (int[]) dst;
                int[] x = (int[]) a;
                int[] y = (int[]) b;
                for (int i = 0; i < n; i++) {
                    o[d + i] = x[ia + i] + y[ib + i];
                }
            }
            case I64 -> {
                long[] o = (long[]) dst;
                long[] x = (long[]) a;
                long[] y = (long[]) b;
                for (int i = 0; i < n; i++) {
                    o[d + i] = x[ia + i] + y[ib + i];
                }
            }
            default -> throw new IllegalArgumentException("dtype: " + dtype + " has no array loop");
        }
    }
}
