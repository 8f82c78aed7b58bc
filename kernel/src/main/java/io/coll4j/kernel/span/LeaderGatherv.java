package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * Gatherv across processes, {@link LeaderGather} with per-rank counts: the counts reach the leaders
 * ({@link VectorCounts}), each process packs its ranks' blocks at local rank 0 (a local gatherv, global rank
 * order), the leaders MPI_Gatherv the packed process blocks to the root's process, in place there, and the
 * packed whole reaches the root (directly when it is local rank 0, else by a local scatterv with every other
 * count zero), which copies each block to its displacement. With one rank per process it is MPI_Gatherv
 * itself, straight into the displacements.
 *
 * <p>Cost: local(T, 0) + local(T, s/P) + α⌈log2 P⌉ + β·s(P−1)/P (+ local(T, s)) + a copy of s; s is the sum of the counts.
 */
public final class LeaderGatherv {
    private LeaderGatherv() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, 0) + LeaderGather.cost(c, processes, localSize, bytes) + c.localBeta() * bytes;
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                           long[] displs, DType dtype, int root) {
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        long es = dtype.size();
        Rooted r = Rooted.of(g, local, root);
        if (g.oneEach()) {
            long[] at = r.atRoot() ? VectorCounts.bytes(displs, es) : null;
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(send, recv, at[r.rootProcess()]);
            g.span().gatherv(g.span().world(), inPlace ? null : send, sendCount * es, r.atRoot() ? recv : null,
                    r.atRoot() ? VectorCounts.bytes(recvCounts, es) : null, at, r.rootProcess());
            return;
        }
        long[] shared = VectorCounts.share(g, local, r.atRoot(), r.rootLocal(), recvCounts, sendCount);
        long[] localCounts = me == 0 || r.atRoot() ? VectorCounts.localPart(g, t, r.atRoot(), shared) : null;
        long[] processCounts = r.atRoot() ? g.processSums(shared, es) : null;
        long[] processStarts = r.atRoot() ? SpanGroup.starts(processCounts, 0, processes, 1) : null;
        long total = r.atRoot() ? SpanGroup.sum(shared, 0, shared.length) * es : 0;
        long mine = me == 0 ? SpanGroup.sum(localCounts, 0, t) * es : 0;
        MemorySegment all = me == 0 && r.atRoot() ? g.result(0, total) : null;
        MemorySegment packed = me != 0 ? null : r.atRoot() ? all.asSlice(processStarts[r.rootProcess()], mine) : g.scratch(0, mine);
        local.gatherv(send, sendCount, packed, localCounts, me == 0 ? SpanGroup.starts(localCounts, 0, t, 1) : null, dtype, 0);
        if (me == 0) {
            g.span().gatherv(g.span().world(), r.atRoot() ? null : packed, mine, all, processCounts, processStarts, r.rootProcess());
        }
        if (!r.atRoot()) {
            return;
        }
        MemorySegment whole = all;
        if (r.rootLocal() != 0) {
            long[] only = r.only(t, total / es);
            whole = me == r.rootLocal() ? g.result(me, total) : g.scratch(me, 0);
            local.scatterv(all, only, new long[t], whole, only[me], dtype, 0);
        }
        if (me == r.rootLocal()) {
            long[] packedAt = SpanGroup.starts(shared, 0, shared.length, es);
            for (int q = 0; q < shared.length; q++) {
                MemorySegment.copy(whole, packedAt[q], recv, displs[q] * es, shared[q] * es);
            }
        }
    }
}
