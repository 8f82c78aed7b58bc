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
        int t = local.localSize();
        Rooted r = Rooted.of(g, local, root);
        long processBytes = count * dtype.size() * t;
        long[][] blocks = g.processBlocks(count * dtype.size());   // by process: {bytes, start}
        if (g.oneEach()) {
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(recv, send, blocks[1][r.rootProcess()]);
            g.span().scatterv(g.span().world(), r.atRoot() ? send : null, blocks[0], blocks[1], inPlace ? null : recv, processBytes, r.rootProcess());
            return;
        }
        int me = local.localId();
        MemorySegment all = null;
        if (r.atRoot() && r.rootLocal() != 0) {
            long[] only = r.only(t, count * g.globalSize());
            all = me == 0 ? g.result(0, count * dtype.size() * g.globalSize()) : null;
            local.gatherv(me == r.rootLocal() ? send : g.scratch(me, 0), only[me], all, only, new long[t], dtype, 0);
        } else if (r.atRoot() && me == 0) {
            all = send;
        }
        MemorySegment block = me == 0 ? g.scratch(0, processBytes) : null;
        if (me == 0) {
            g.span().scatterv(g.span().world(), all, blocks[0], blocks[1], block, processBytes, r.rootProcess());
        }
        local.scatter(block, recv, count, dtype, 0);
    }
}
