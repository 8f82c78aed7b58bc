package io.coll4j.reductions;

import java.lang.foreign.MemorySegment;

/**
 * One (dtype, op) reduction kernel over {@link MemorySegment} ranges. Obtain it once
 * ({@link Reducers#of(DType, Op)}) and keep it: hot loops then do no dispatch per call.
 *
 * <p>Offsets are in bytes, counts in elements. Segments may be heap or native, at any alignment.
 * Every method validates its arguments before writing anything: a negative count, a range that
 * does not fit its segment, or a read-only destination is an {@link IllegalArgumentException}
 * naming the argument, and the destination is left untouched.
 *
 * <p>Floating-point order: every method folds its operands left to right
 * ({@code ((s0 op s1) op s2) …}), element by element, so its result is bitwise equal to the scalar
 * left fold whatever the implementation (vector or scalar).
 */
public interface Reducer {

    /** The element type. */
    DType dtype();

    /** The operator. */
    Op op();

    /** {@code dst[i] = dst[i] op src[i]} for {@code i < count}: the in-place step of a reduction tree. */
    void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count);

    /** {@code dst[i] = a[i] op b[i]}; {@code dst} may alias {@code a} or {@code b} exactly (same range). */
    void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                MemorySegment b, long bOffset, long count);

    /**
     * {@code dst[i] = s0[i] op s1[i] op … op s(k-1)[i]} for the first {@code k} entries of
     * {@code srcs}/{@code srcOffsets}, {@code 1 <= k <= 16}, in ONE pass over memory: every source is
     * read once and {@code dst} written once [YHCCL §3, HMPI §2.4]. {@code dst} may alias one source
     * exactly. With {@code k == 1} it is a copy.
     */
    void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k, long count);

    /** The same, over every entry of {@code srcs}. */
    default void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, long count) {
        reduceMany(dst, dstOffset, srcs, srcOffsets, srcs.length, count);
    }

    /** Largest k {@link #reduceMany} accepts. */
    int MAX_SOURCES = 16;
}
