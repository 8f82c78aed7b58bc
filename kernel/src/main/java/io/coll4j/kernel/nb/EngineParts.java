package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * The engine's own staged schedule, for the collectives whose algorithms in the catalogue have no resumable
 * steps yet (allreduce's are {@code FlatAllreduce}'s, bcast's {@code FlatBcast}'s, reduce's, reduce-scatter's and
 * allgather's those of {@code DirectReduce}, {@code DirectReduceScatter}, {@code PushAllgather}, scan's and exscan's
 * {@code DirectScan}'s): each rank stages its
 * contribution ({@link Exchange}'s staging regions), and rank q's part computes its result from the staged copies:
 * <pre>
 * gather          the root copies the p staged vectors
 * scatter         block q of the root's staged vector
 * alltoall        block q of every staged vector
 * </pre>
 * The sources are copies, never an alias of a receive buffer, so in place is safe.
 */
final class EngineParts implements Steps.Parts {
    private final Collective collective;
    private final int p;
    private final int root;
    private final long count;
    private final int es;
    private final DType dtype;
    private final Op op;
    private final Reducer reducer;
    private final Copy copy;
    private final long stagedBytes;

    EngineParts(StepCall c) {
        this.collective = c.collective();
        this.p = c.ranks();
        this.root = c.root();
        this.count = c.count();
        this.es = c.elementSize();
        this.dtype = c.dtype();
        this.op = c.op();
        this.reducer = c.reducer();
        this.copy = c.copy();
        this.stagedBytes = contribution(collective, count, es, p);
    }

    /** Bytes a rank contributes to a call of {@code c}: what staging would carry. */
    static long contribution(Collective c, long count, int es, int p) {
        return switch (c) {
            case SCATTER, ALLTOALL -> count * es * p;
            default -> count * es;
        };
    }

    @Override
    public long stagedBytes() {
        return stagedBytes;
    }

    @Override
    public boolean stages(int rank) {
        return collective != Collective.SCATTER || rank == root;
    }

    @Override
    public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
        MemorySegment staging = in.segment();
        long n = count;
        switch (collective) {
            case GATHER -> {
                if (q == root) {
                    for (int s = 0; s < p; s++) {
                        ItemWorker.copy(copy, staging, in.at(s), recv[q], s * n * es, n * es, false);
                    }
                }
            }
            case SCATTER -> MemorySegment.copy(staging, in.at(root) + q * n * es, recv[q], 0, n * es);
            case ALLTOALL -> {
                for (int s = 0; s < p; s++) {
                    MemorySegment.copy(staging, in.at(s) + q * n * es, recv[q], s * n * es, n * es);
                }
            }
            default -> throw new IllegalStateException("no staged schedule for " + collective);
        }
    }
}
