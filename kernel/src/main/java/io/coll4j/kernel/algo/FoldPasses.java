package io.coll4j.kernel.algo;

import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/** A k-ary fold of more sources than one {@link Reducer#reduceMany} takes, shared by {@link Fold} and the non-blocking engine. */
public final class FoldPasses {
    private FoldPasses() {
    }

    /**
     * {@code into[0, n) =} the fold, in source order, of {@code n} elements at byte {@code offsets[i] + delta}
     * of {@code sources[0, k)}: a first pass over up to {@link Reducer#MAX_SOURCES} sources writes
     * {@code into}, each later pass folds {@code into} with the next {@code MAX_SOURCES − 1}. {@code into}
     * must not alias a source of a later pass. {@code pass} and {@code passOffsets} are the caller's scratch
     * of {@code MAX_SOURCES} entries (no allocation on the hot path).
     */
    public static void fold(Reducer reducer, MemorySegment into, MemorySegment[] sources, long[] offsets, int k,
                            long delta, long n, MemorySegment[] pass, long[] passOffsets) {
        int first = Math.min(k, Reducer.MAX_SOURCES);
        for (int i = 0; i < first; i++) {
            pass[i] = sources[i];
            passOffsets[i] = offsets[i] + delta;
        }
        reducer.reduceMany(into, 0, pass, passOffsets, first, n);
        for (int next = first; next < k; ) {
            int take = Math.min(Reducer.MAX_SOURCES - 1, k - next);
            pass[0] = into;
            passOffsets[0] = 0;
            for (int i = 0; i < take; i++) {
                pass[1 + i] = sources[next + i];
                passOffsets[1 + i] = offsets[next + i] + delta;
            }
            reducer.reduceMany(into, 0, pass, passOffsets, 1 + take, n);
            next += take;
        }
    }
}
