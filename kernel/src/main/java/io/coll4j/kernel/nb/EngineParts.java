package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;

import java.lang.foreign.MemorySegment;

/**
 * The engine's own staged schedule, left for alltoall (see {@link EngineItems} for why): each rank stages its
 * send buffer ({@link Exchange}'s staging regions), and rank q's part copies block q of every staged vector into
 * its receive buffer. The sources are copies, never an alias of a receive buffer, so in place is safe.
 */
final class EngineParts implements Steps.Parts {
    private final int p;
    private final long block;
    private final long stagedBytes;

    EngineParts(StepCall c) {
        if (c.collective() != Collective.ALLTOALL) {
            throw new IllegalStateException("no engine schedule for " + c.collective() + ": its catalogue algorithm has steps");
        }
        this.p = c.ranks();
        this.block = c.count() * c.elementSize();
        this.stagedBytes = contribution(c.collective(), c.count(), c.elementSize(), p);
    }

    /** Bytes a rank contributes to a call of {@code c}: what staging would carry. */
    static long contribution(Collective c, long count, int es, int p) {
        return c == Collective.ALLTOALL ? count * es * p : count * es;
    }

    @Override
    public long stagedBytes() {
        return stagedBytes;
    }

    @Override
    public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
        for (int s = 0; s < p; s++) {
            MemorySegment.copy(in.segment(), in.at(s) + q * block, recv[q], s * block, block);
        }
    }
}
