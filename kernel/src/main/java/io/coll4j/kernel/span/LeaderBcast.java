package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader-based bcast across processes, PAMI's local → leader → local composition [PAMI §4, Fig. 10]: in the root's process the root broadcasts locally, so
 * local rank 0 holds the message; the leaders broadcast it over MPI from the root's process; every other
 * process then broadcasts it locally from its leader.
 *
 * <p>Cost: local(T, s) + MPI bcast(P, s) + local(T, s) on the critical path (the root's process's local
 * step runs before the MPI one, the others' after it).
 */
public final class LeaderBcast {
    private LeaderBcast() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 2 * c.local(localSize, bytes) + c.mpiRooted(processes, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment buf, long count, DType dtype, int root) {
        ProcessSpan span = g.span();
        Rooted r = Rooted.of(g, local, root);
        int rootProcess = r.rootProcess();
        boolean rootHere = r.atRoot();
        if (rootHere) {
            local.bcast(buf, count, dtype, r.rootLocal());
        }
        if (local.localId() == 0) {
            span.bcast(span.world(), buf, count, dtype, rootProcess);
        }
        if (!rootHere) {
            local.bcast(buf, count, dtype, 0);
        }
    }

    /** The non-blocking form ({@link SpanRequest}): the same three steps, the leader's MPI_Ibcast in the middle. */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment buf,
                                                   long count, DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        Rooted r = Rooted.of(g, local, root);
        int rootProcess = r.rootProcess();
        boolean rootHere = r.atRoot();
        List<SpanRequest.Stage> s = new ArrayList<>(2);
        if (rootHere && t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.BCAST, buf, buf, count, dtype, null, r.rootLocal())));
        }
        if (local.localId() == 0) {
            s.add(new SpanRequest.Inter(() -> span.ibcast(span.requests(), buf, count, dtype, rootProcess)));
        }
        if (!rootHere && t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.BCAST, buf, buf, count, dtype, null, 0)));
        }
        return s;
    }
}
