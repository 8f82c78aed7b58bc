package io.coll4j.reductions.internal;

import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * The loops behind a {@link Reducer}, without argument checks: callers have validated everything
 * ({@link ReducerArguments}). {@link ScalarReducer} implements it, and every {@link VectorReducer} hands
 * it the calls that have a heap operand.
 */
interface ReductionKernel {

    /** {@code d[i] = a[i] op b[i]} for {@code i < count}. */
    void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long count);

    /** {@code d[i] = s0[i] op … op s(k-1)[i]} for {@code from <= i < count}, in one pass, {@code 1 <= k <= 16}. */
    void reduceK(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k, long from, long count);

    /** {@link #reduce2}'s loop for this kernel's (dtype, op) alone, without a dispatch per call. */
    Loop2 loop2();

    /** One (dtype, op)'s {@link #reduce2} loop, unchecked: what a vector reducer runs its tail through. */
    @FunctionalInterface
    interface Loop2 {
        void run(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long count);
    }
}
