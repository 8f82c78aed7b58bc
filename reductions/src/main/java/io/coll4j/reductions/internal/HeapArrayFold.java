package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * Folds over heap segments backed by arrays of the dtype's own type — what {@code rank.allreduce(float[] …)}
 * and a gradient in a {@code float[]} pass — at SIMD speed. The {@link Reducer}s' Vector API loops take
 * native segments only (see {@link VectorReducer}: a Vector API load from a heap segment compiles to SIMD
 * only in some cases, and mixing heap and native calls in one loop deoptimises it), and their scalar
 * fallback dispatches per element: a 4 MiB f32 gradient allreduce over {@code float[]}s ran 5x slower than
 * over native segments. Here each pass goes to the backing arrays through {@link ArrayVectorPass}
 * ({@code fromArray}/{@code intoArray}, every op with a lane-wise operator: SUM, PROD, MIN, MAX and the
 * bitwise ops on F32, F64, I32, I64, U32, U64). Without the vector module, SUM runs as plain array loops
 * (C2 auto-vectorises them, about 2.5x slower than the vector pass) and the other ops decline. The
 * collectives' fold calls it before the {@link Reducer} (kernel's {@code Fold}); it is not called from
 * inside {@link VectorReducer}, whose vector loops C2 then inlined differently and boxed.
 *
 * <p>Order: a k-ary fold is k − 1 passes, {@code dst = s0 op s1}, then {@code dst = dst op s_j}: per
 * element exactly the left fold of the scalar loops, so the bits are the same. Declines (returns false)
 * when an operand is native or not over the dtype's array type, an offset is not a whole element, or dst is
 * a source after the first two (a pass would overwrite it before the next pass reads it).
 */
public final class HeapArrayFold {
    private HeapArrayFold() {
    }

    /** {@code dst = s0 op … op s(k−1)} when every operand qualifies; false (nothing written) otherwise. */
    public static boolean reduceMany(DType dtype, Op op, MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets,
                              int k, long count) {
        if (k < 2 || count > Integer.MAX_VALUE) {
            return false;
        }
        ArrayPass pass = passFor(dtype, op);
        if (pass == null && !scalarHandles(dtype, op)) {
            return false;
        }
        int d = index(dtype, dst, dstOffset);
        if (d < 0) {
            return false;
        }
        Object dstArray = dst.heapBase().orElseThrow();
        for (int j = 0; j < k; j++) {
            int s = index(dtype, srcs[j], srcOffsets[j]);
            if (s < 0 || j >= 2 && s == d && srcs[j].heapBase().orElseThrow() == dstArray) {
                return false;
            }
        }
        int n = (int) count;
        pass(pass, dtype, dst, dstOffset, srcs[0], srcOffsets[0], srcs[1], srcOffsets[1], n);
        for (int j = 2; j < k; j++) {
            pass(pass, dtype, dst, dstOffset, dst, dstOffset, srcs[j], srcOffsets[j], n);
        }
        return true;
    }

    /** {@code dst = a op b} when every operand qualifies; false otherwise. */
    public static boolean reduce(DType dtype, Op op, MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                          MemorySegment b, long bOffset, long count) {
        ArrayPass pass = passFor(dtype, op);
        if (pass == null && !scalarHandles(dtype, op) || count > Integer.MAX_VALUE) {
            return false;
        }
        if (index(dtype, dst, dstOffset) < 0 || index(dtype, a, aOffset) < 0 || index(dtype, b, bOffset) < 0) {
            return false;
        }
        pass(pass, dtype, dst, dstOffset, a, aOffset, b, bOffset, (int) count);
        return true;
    }

    /** The vector pass for (dtype, op), or null (no vector module, no lanes, or an op without its own kernel). */
    private static ArrayPass passFor(DType dtype, Op op) {
        return dtype == null || op == null || op.foldOp() != op || !op.supports(dtype) ? null : Reducers.arrayPass(dtype, op);
    }

    private static void pass(ArrayPass pass, DType dtype, MemorySegment d, long dOff, MemorySegment a, long aOff,
                             MemorySegment b, long bOff, int n) {
        if (pass != null) {
            pass.pass(d, dOff, a, aOff, b, bOff, n);
        } else {
            add(dtype, d.heapBase().orElseThrow(), index(dtype, d, dOff), a.heapBase().orElseThrow(), index(dtype, a, aOff),
                    b.heapBase().orElseThrow(), index(dtype, b, bOff), n);
        }
    }

    /**
     * A heap segment over a fresh array of {@code elements} of the dtype's own type, for folds whose sources
     * are heap arrays but whose destination is native: fold strip by strip into it with {@link #reduceMany}
     * and copy each strip out. Null when this class does not handle {@code dtype} and {@code op}.
     */
    public static MemorySegment stripFor(DType dtype, Op op, int elements) {
        if (passFor(dtype, op) == null && !scalarHandles(dtype, op)) {
            return null;
        }
        return switch (dtype) {
            case F32 -> MemorySegment.ofArray(new float[elements]);
            case F64 -> MemorySegment.ofArray(new double[elements]);
            case I32, U32 -> MemorySegment.ofArray(new int[elements]);
            case I64, U64 -> MemorySegment.ofArray(new long[elements]);
            default -> null;
        };
    }

    /** What the plain array loops (no vector module) cover: SUM of the four signed array types. */
    private static boolean scalarHandles(DType dtype, Op op) {
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
