package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * Scatter across processes, {@link LeaderGather} reversed: when the root is not local rank 0 one local gatherv
 * hands its whole send buffer to local rank 0 (every other count zero); the leaders MPI_Scatterv the process
 * blocks; each leader scatters its block to its process's ranks. Only local rank 0 calls MPI. With one rank
 * per process it is MPI_Scatterv itself.
 *
 * <p>Cost: (local(T, s) when the root is not local rank 0) + α⌈log2 P⌉ + β·s(P−1)/P + local(T, s/P).
 */
public final class LeaderScatter {
    private LeaderScatter() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return LeaderGather.cost(c, processes, localSize, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int processes = g.processes();
        int rootProcess = root / t;
        int rootLocal = root % t;
        boolean atRoot = g.process() == rootProcess;
        long processBytes = count * dtype.size() * t;
        long total = processBytes * processes;
        long[] counts = SpanGroup.equal(processes, processBytes);
        long[] displs = SpanGroup.starts(counts, 0, processes, 1);
        if (t == 1) {
            boolean inPlace = atRoot && SpanGroup.startsAt(recv, send, rootProcess * processBytes);
            span.scatterv(span.world(), atRoot ? send : null, counts, displs, inPlace ? null : recv, processBytes, rootProcess);
            return;
        }
        int me = local.localId();
        MemorySegment all = null;
        if (atRoot && rootLocal != 0) {
            long[] only = new long[t];
            only[rootLocal] = count * t * processes;
            all = me == 0 ? g.result(0, total) : null;
            local.gatherv(me == rootLocal ? send : g.scratch(me, 0), only[me], all, only, new long[t], dtype, 0);
        } else if (atRoot && me == 0) {
            all = send;
        }
        MemorySegment block = me == 0 ? g.scratch(0, processBytes) : null;
        if (me == 0) {
            span.scatterv(span.world(), all, counts, displs, block, processBytes, rootProcess);
        }
        local.scatter(block, recv, count, dtype, 0);
    }
}
