package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * Scatterv across processes, {@link LeaderGatherv} reversed: the counts reach the leaders
 * ({@link VectorCounts}); the root packs its blocks in global rank order and, when it is not local rank 0,
 * hands the packed whole to local rank 0 (a local gatherv with every other count zero); the leaders
 * MPI_Scatterv the packed process blocks; each leader scatters its block to its process's ranks. With one rank
 * per process it is MPI_Scatterv itself, straight from the displacements.
 *
 * <p>Cost: local(T, 0) + a copy of s (+ local(T, s)) + α⌈log2 P⌉ + β·s(P−1)/P + local(T, s/P).
 */
public final class LeaderScatterv {
    private LeaderScatterv() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return LeaderGatherv.cost(c, processes, localSize, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                           long recvCount, DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        long es = dtype.size();
        int rootProcess = root / t;
        int rootLocal = root % t;
        boolean atRoot = g.process() == rootProcess;
        if (t == 1) {
            long[] at = atRoot ? VectorCounts.bytes(displs, es) : null;
            boolean inPlace = atRoot && SpanGroup.startsAt(recv, send, at[rootProcess]);
            span.scatterv(span.world(), atRoot ? send : null, atRoot ? VectorCounts.bytes(sendCounts, es) : null, at,
                    inPlace ? null : recv, recvCount * es, rootProcess);
            return;
        }
        long[] shared = VectorCounts.share(g, local, atRoot, rootLocal, sendCounts, recvCount);
        long[] localCounts = me == 0 ? VectorCounts.localPart(g, t, atRoot, shared) : null;
        MemorySegment all = null;
        long[] processCounts = null;
        if (atRoot) {
            processCounts = VectorCounts.perProcess(shared, t, processes, es);
            long total = SpanGroup.sum(shared, 0, shared.length) * es;
            MemorySegment packed = me == rootLocal ? g.result(me, total) : null;
            if (packed != null) {
                long[] packedAt = SpanGroup.starts(shared, 0, shared.length, es);
                for (int r = 0; r < shared.length; r++) {
                    MemorySegment.copy(send, displs[r] * es, packed, packedAt[r], shared[r] * es);
                }
            }
            all = packed;
            if (rootLocal != 0) {
                long[] only = new long[t];
                only[rootLocal] = total / es;
                all = me == 0 ? g.result(0, total) : null;
                local.gatherv(me == rootLocal ? packed : g.scratch(me, 0), only[me], all, only, new long[t], dtype, 0);
            }
        }
        MemorySegment block = null;
        if (me == 0) {
            long mine = SpanGroup.sum(localCounts, 0, t) * es;
            block = g.scratch(0, mine);
            span.scatterv(span.world(), all, processCounts, atRoot ? SpanGroup.starts(processCounts, 0, processes, 1) : null, block,
                    mine, rootProcess);
        }
        local.scatterv(block, localCounts, me == 0 ? SpanGroup.starts(localCounts, 0, t, 1) : null, recv, recvCount, dtype, 0);
    }
}
