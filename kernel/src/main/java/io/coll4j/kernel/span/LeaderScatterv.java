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
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        long es = dtype.size();
        Rooted r = Rooted.of(g, local, root);
        if (g.oneEach()) {
            long[] at = r.atRoot() ? VectorCounts.bytes(displs, es) : null;
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(recv, send, at[r.rootProcess()]);
            g.span().scatterv(g.span().world(), r.atRoot() ? send : null, r.atRoot() ? VectorCounts.bytes(sendCounts, es) : null, at,
                    inPlace ? null : recv, recvCount * es, r.rootProcess());
            return;
        }
        long[] shared = VectorCounts.share(g, local, r.atRoot(), r.rootLocal(), sendCounts, recvCount);
        long[] localCounts = me == 0 ? VectorCounts.localPart(g, t, r.atRoot(), shared) : null;
        MemorySegment all = null;
        long[] processCounts = null;
        if (r.atRoot()) {
            processCounts = g.processSums(shared, es);
            long total = SpanGroup.sum(shared, 0, shared.length) * es;
            MemorySegment packed = me == r.rootLocal() ? g.result(me, total) : null;
            if (packed != null) {
                long[] packedAt = SpanGroup.starts(shared, 0, shared.length, es);
                for (int q = 0; q < shared.length; q++) {
                    MemorySegment.copy(send, displs[q] * es, packed, packedAt[q], shared[q] * es);
                }
            }
            all = packed;
            if (r.rootLocal() != 0) {
                long[] only = r.only(t, total / es);
                all = me == 0 ? g.result(0, total) : null;
                local.gatherv(me == r.rootLocal() ? packed : g.scratch(me, 0), only[me], all, only, new long[t], dtype, 0);
            }
        }
        MemorySegment block = null;
        if (me == 0) {
            long mine = SpanGroup.sum(localCounts, 0, t) * es;
            block = g.scratch(0, mine);
            g.span().scatterv(g.span().world(), all, processCounts, r.atRoot() ? SpanGroup.starts(processCounts, 0, processes, 1) : null, block,
                    mine, r.rootProcess());
        }
        local.scatterv(block, localCounts, me == 0 ? SpanGroup.starts(localCounts, 0, t, 1) : null, recv, recvCount, dtype, 0);
    }
}
