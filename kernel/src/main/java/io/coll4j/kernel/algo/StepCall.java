package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import java.lang.foreign.MemorySegment;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

/**
 * What a {@link Resumable} algorithm makes a call's {@link Steps} from: the call's shape as its first issuer
 * states it, the reducer every fold uses ({@code op}'s fold op, or a user op's: AVG is folded as SUM and divided by
 * {@link Averaging} once each output range is folded), the team's I_max and copy engine.
 */
public record StepCall(Collective collective, int ranks, long count, DType dtype, Op op, int root, Reducer reducer,
                       long maxSliceBytes, Copy copy) {

    /** Bytes of one element (1 for a barrier, which has none). */
    public int elementSize() {
        return dtype == null ? 1 : dtype.size();
    }

    /**
     * Folds the {@code ranks} sources {@code w} holds into its first {@code dests} destinations, {@code n} elements,
     * with this call's reducer (AVG folded as SUM: {@link #divide} finishes it).
     */
    public void foldToAll(ItemWorker w, int dests, long n, boolean nonTemporal) {
        w.foldToAll(reducer, dtype, op, dests, ranks, n, nonTemporal, copy);
    }

    /** AVG's division of {@code n} elements of {@code rank}'s result at byte {@code offset}; nothing for other ops. */
    public void divide(int rank, MemorySegment result, long offset, long n) {
        Averaging.divide(collective, op, dtype, rank, ranks, result, offset, n);
    }
}
