package io.coll4j.kernel.span;

import io.coll4j.Collective;

import java.util.ArrayList;
import java.util.List;

/**
 * Barrier across processes: a local barrier (every local rank arrived), the leaders' MPI barrier, a local
 * barrier (released) — HMPI's barrier as an allreduce of no data [HMPI §2.6] in the leader shape [§2.5].
 *
 * <p>Cost: 2·local(T, 0) + MPI barrier(P) ≈ α⌈log2 P⌉.
 */
public final class LeaderBarrier {
    private LeaderBarrier() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize) {
        return 2 * c.local(localSize, 0) + c.mpiRooted(processes, 0);
    }

    public static void run(SpanGroup g, LocalOps local) {
        ProcessSpan span = g.span();
        if (local.localSize() > 1) {
            local.barrier();
        }
        if (local.localId() == 0) {
            span.barrier(span.world());
        }
        if (local.localSize() > 1) {
            local.barrier();
        }
    }

    /** The non-blocking form ({@link SpanRequest}): local barrier → the leaders' MPI_Ibarrier → local barrier. */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join) {
        ProcessSpan span = g.span();
        boolean many = local.localSize() > 1;
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (many) {
            s.add(new SpanRequest.Local(join.join(Collective.BARRIER, null, null, 0, null, null, -1)));
        }
        if (local.localId() == 0) {
            s.add(new SpanRequest.Inter(() -> span.ibarrier(span.requests())));
        }
        if (many) {
            s.add(new SpanRequest.Local(join.join(Collective.BARRIER, null, null, 0, null, null, -1)));
        }
        return s;
    }
}
