package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Multi-leader allreduce across processes [YHCCL §5.5]: a local reduce-scatter leaves block j of the
 * process's partial at local rank j; every local rank j allreduces its block with local rank j of the
 * other processes over its own communicator, all T at once; a local allgather (in place) rebuilds the
 * vector everywhere. T cores drive the network instead of one, and each moves s/T. Needs MPI's
 * THREAD_MULTIPLE.
 *
 * <p>Cost: local(T, s) + MPI allreduce(P, s/T) + (T−1)·α⌈log2 P⌉ + local(T, s): the T concurrent calls share
 * one process's MPI progress (a lock in Open MPI), so their latencies add while their bandwidth terms
 * overlap. Order: the local fold's, then MPI's; block j
 * of the result is the same on every rank.
 */
public final class MultiLeaderAllreduce {
    private MultiLeaderAllreduce() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 2 * c.local(localSize, bytes) + c.mpiAllreduce(processes, (double) bytes / localSize)
                + (localSize - 1) * c.mpiRooted(processes, 0);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        int t = local.localSize();
        int me = local.localId();
        long[] counts = new long[t];
        long[] displs = new long[t];
        for (int j = 0; j < t; j++) {
            displs[j] = count * j / t;
            counts[j] = count * (j + 1) / t - displs[j];
        }
        long esize = dtype.size();
        // reduce-scatter into scratch: send and recv may be the same segment (in place), and peers read
        // all of my send until my reduce-scatter returns, which is also when they stop reading it
        MemorySegment block = g.scratch(me, counts[me] * esize);
        local.reduceScatterV(send, block, counts, dtype, op);
        MemorySegment mine = recv.asSlice(displs[me] * esize, counts[me] * esize);
        ProcessSpan span = g.span();
        span.allreduce(span.perLocalRank(me), block, mine, counts[me], dtype, op, local.userOp());
        local.allgatherv(mine, counts[me], recv, counts, displs, dtype);
    }
}
