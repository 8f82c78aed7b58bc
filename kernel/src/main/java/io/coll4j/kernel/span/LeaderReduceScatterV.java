package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Reduce-scatter with per-rank counts across processes: the process's ranks reduce the whole vector into
 * local rank 0, the leaders allreduce it in place over MPI, and local rank 0 scatters its ranks' blocks (a
 * local scatterv) — the leader allreduce [HMPI §2.5] with a scatter for its broadcast. MPI_Reduce_scatter
 * would move half as much between processes; the allreduce keeps one MPI shape for every count vector.
 *
 * <p>Cost: local(T, s) + α⌈log2 P⌉ + 2β·s(P−1)/P + local(T, s/P); s is the sum of the counts.
 */
public final class LeaderReduceScatterV {
    private LeaderReduceScatterV() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, bytes) + c.mpiAllreduce(processes, bytes) + c.local(localSize, (double) bytes / processes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype,
                           Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int n = recvCounts.length;
        long es = dtype.size();
        long total = SpanGroup.sum(recvCounts, 0, n);
        MemorySegment whole = me == 0 ? g.scratch(0, total * es) : null;
        local.reduce(send, whole, total, dtype, op, 0);
        if (me == 0) {
            span.allreduce(span.world(), null, whole, total, dtype, op, local.userOp());
        }
        int first = g.globalId(0);
        long[] offsets = SpanGroup.starts(recvCounts, 0, n, 1);
        long[] localCounts = java.util.Arrays.copyOfRange(recvCounts, first, first + t);
        long[] localDispls = java.util.Arrays.copyOfRange(offsets, first, first + t);
        local.scatterv(whole, localCounts, localDispls, recv, localCounts[me], dtype, 0);
    }
}
