package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * The non-blocking form ({@link SpanRequest}): local reduce of the whole vector into local rank 0 (a buffer of
     * the request's own) → the leaders' MPI_Iallreduce in place → local scatterv of the process's blocks. With one
     * rank per process: MPI_Iallreduce into the request's buffer, then this rank copies its block out (a step).
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int n = recvCounts.length;
        long es = dtype.size();
        long total = SpanGroup.sum(recvCounts, 0, n);
        long[] offsets = SpanGroup.starts(recvCounts, 0, n, 1);
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        MemorySegment whole = me == 0 ? SpanGroup.requestBuffer(total * es) : null;
        if (t == 1) {
            int mine = g.globalId(me);
            s.add(new SpanRequest.Inter(() -> span.iallreduce(span.requests(), send, whole, total, dtype, op)));
            s.add(new SpanRequest.Step(() -> MemorySegment.copy(whole, offsets[mine] * es, recv, 0, recvCounts[mine] * es)));
            return s;
        }
        s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, whole, total, dtype, op, 0)));
        if (me == 0) {
            s.add(new SpanRequest.Inter(() -> span.iallreduce(span.requests(), null, whole, total, dtype, op)));
        }
        int first = g.globalId(0);
        long[] localCounts = java.util.Arrays.copyOfRange(recvCounts, first, first + t);
        long[] localDispls = java.util.Arrays.copyOfRange(offsets, first, first + t);
        s.add(new SpanRequest.Local(join.join(Collective.SCATTERV, whole, recv, dtype, 0,
                new VectorCall(localCounts[me], me == 0 ? localCounts : null, me == 0 ? localDispls : null, null, null))));
        return s;
    }
}
