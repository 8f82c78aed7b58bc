package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * The non-blocking form ({@link SpanRequest}): when the root is not local rank 0, a local gatherv hands its
     * whole send buffer to local rank 0 (into a buffer of the request's own) → the leaders' MPI_Iscatterv of the
     * process blocks (into buffers of the request's own) → local scatter. With one rank per process the MPI
     * request alone.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long count, DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        Rooted r = Rooted.of(g, local, root);
        long processBytes = count * dtype.size() * t;
        long[][] blocks = g.processBlocks(count * dtype.size());   // by process: {bytes, start}
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (t == 1) {
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(recv, send, blocks[1][r.rootProcess()]);
            s.add(new SpanRequest.Inter(() -> span.iscatterv(span.requests(), r.atRoot() ? send : null, blocks[0], blocks[1],
                    inPlace ? null : recv, processBytes, r.rootProcess())));
            return s;
        }
        int me = local.localId();
        MemorySegment all = null;
        if (r.atRoot() && r.rootLocal() != 0) {
            all = me == 0 ? SpanGroup.requestBuffer(count * dtype.size() * g.globalSize()) : null;
            s.add(new SpanRequest.Local(join.joinOnly(Collective.GATHERV, me, t, r.rootLocal(), send, all,
                    count * g.globalSize(), dtype)));
        } else if (r.atRoot() && me == 0) {
            all = send;
        }
        MemorySegment block = me == 0 ? SpanGroup.requestBuffer(processBytes) : null;
        if (me == 0) {
            MemorySegment from = all;
            s.add(new SpanRequest.Inter(() -> span.iscatterv(span.requests(), from, blocks[0], blocks[1], block, processBytes,
                    r.rootProcess())));
        }
        s.add(new SpanRequest.Local(join.join(Collective.SCATTER, block, recv, count, dtype, null, 0)));
        return s;
    }
}
