package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader-based allreduce across processes [HMPI §2.5]: the local ranks reduce into local rank 0's receive
 * buffer, the P leaders allreduce it in place over MPI, and each leader broadcasts the result to its
 * process. With one rank per process the local steps vanish: the call is MPI_Allreduce itself, so the
 * hierarchy costs nothing where it has nothing to do.
 *
 * <p>Cost: local(T, s) + MPI allreduce(P, s) + local(T, s). Order: the local fold's order, then MPI's.
 */
public final class LeaderAllreduce {
    private LeaderAllreduce() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 2 * c.local(localSize, bytes) + c.mpiAllreduce(processes, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        ProcessSpan span = g.span();
        if (local.localSize() == 1) {
            span.allreduce(span.world(), SpanGroup.startsAt(send, recv, 0) ? null : send, recv, count, dtype, op, local.userOp());
            return;
        }
        local.reduce(send, recv, count, dtype, op, 0);
        if (local.localId() == 0) {
            span.allreduce(span.world(), null, recv, count, dtype, op, local.userOp());
        }
        local.bcast(recv, count, dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}): local reduce → the leader's MPI_Iallreduce in place → local
     * bcast; with one rank per process the MPI request alone.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long count, DType dtype, Op op) {
        ProcessSpan span = g.span();
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (local.localSize() == 1) {
            MemorySegment in = SpanGroup.startsAt(send, recv, 0) ? null : send;
            s.add(new SpanRequest.Inter(() -> span.iallreduce(span.requests(), in, recv, count, dtype, op)));
            return s;
        }
        boolean leader = local.localId() == 0;
        s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, leader ? recv : null, count, dtype, op, 0)));
        if (leader) {
            s.add(new SpanRequest.Inter(() -> span.iallreduce(span.requests(), null, recv, count, dtype, op)));
        }
        s.add(new SpanRequest.Local(join.join(Collective.BCAST, recv, recv, count, dtype, null, 0)));
        return s;
    }
}
