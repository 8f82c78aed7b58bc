package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

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
            span.allreduce(span.world(), send == recv ? null : send, recv, count, dtype, op, local.userOp());
            return;
        }
        local.reduce(send, recv, count, dtype, op, 0);
        if (local.localId() == 0) {
            span.allreduce(span.world(), null, recv, count, dtype, op, local.userOp());
        }
        local.bcast(recv, count, dtype, 0);
    }
}
