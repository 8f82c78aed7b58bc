package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Gather across processes, in the leader shape [HMPI §2.5]: each process's ranks gather into local rank 0
 * (its process block: a process's ranks are consecutive global ids; blocks differ in length when the processes
 * hold different numbers of ranks), the leaders MPI_Gatherv those blocks to
 * the root's process, in place there, and when the root is not local rank 0 one local scatterv hands it the
 * whole result (every other count zero). Only local rank 0 calls MPI, so the job's calls on the world
 * communicator keep one order in every process. With one rank per process it is MPI_Gatherv itself.
 *
 * <p>Cost: local(T, s/P) + α⌈log2 P⌉ + β·s(P−1)/P (+ local(T, s) when the root is not local rank 0); s is
 * the whole result.
 */
public final class LeaderGather {
    private LeaderGather() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, (double) bytes / processes) + c.mpiSpread(processes, bytes) + c.local(localSize, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        int t = local.localSize();
        Rooted r = Rooted.of(g, local, root);
        long processBytes = count * dtype.size() * t;
        long[][] blocks = g.processBlocks(count * dtype.size());   // by process: {bytes, start}
        long wholeBytes = count * dtype.size() * g.globalSize();
        if (g.oneEach()) {
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(send, recv, blocks[1][r.rootProcess()]);
            g.span().gatherv(g.span().world(), inPlace ? null : send, processBytes, r.atRoot() ? recv : null, blocks[0], blocks[1], r.rootProcess());
            return;
        }
        int me = local.localId();
        MemorySegment all = me != 0 || !r.atRoot() ? null : r.rootLocal() == 0 ? recv : g.result(0, wholeBytes);
        MemorySegment block = me != 0 ? null : r.atRoot() ? all.asSlice(blocks[1][r.rootProcess()], processBytes) : g.scratch(0, processBytes);
        local.gather(send, block, count, dtype, 0);
        if (me == 0) {
            g.span().gatherv(g.span().world(), r.atRoot() ? null : block, processBytes, all, blocks[0], blocks[1], r.rootProcess());
        }
        if (r.atRoot() && r.rootLocal() != 0) {
            long[] only = r.only(t, count * g.globalSize());
            local.scatterv(all, only, new long[t], me == r.rootLocal() ? recv : g.scratch(me, 0), only[me], dtype, 0);
        }
    }

    /**
     * The non-blocking form ({@link SpanRequest}): local gather into local rank 0's process block → the leaders'
     * MPI_Igatherv of the process blocks to the root's process (in place there) → when the root is not local rank
     * 0, a local scatterv hands it the whole result. The leaders' blocks and, in the root's process, the whole
     * result when the root is not local rank 0 are buffers of the request's own. With one rank per process the
     * MPI request alone.
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
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(send, recv, blocks[1][r.rootProcess()]);
            s.add(new SpanRequest.Inter(() -> span.igatherv(span.requests(), inPlace ? null : send, processBytes,
                    r.atRoot() ? recv : null, blocks[0], blocks[1], r.rootProcess())));
            return s;
        }
        int me = local.localId();
        long wholeBytes = count * dtype.size() * g.globalSize();
        MemorySegment all = me != 0 || !r.atRoot() ? null : r.rootLocal() == 0 ? recv : SpanGroup.requestBuffer(wholeBytes);
        MemorySegment block = me != 0 ? null : r.atRoot() ? all.asSlice(blocks[1][r.rootProcess()], processBytes)
                : SpanGroup.requestBuffer(processBytes);
        s.add(new SpanRequest.Local(join.join(Collective.GATHER, send, block, count, dtype, null, 0)));
        if (me == 0) {
            s.add(new SpanRequest.Inter(() -> span.igatherv(span.requests(), r.atRoot() ? null : block, processBytes, all,
                    blocks[0], blocks[1], r.rootProcess())));
        }
        if (r.atRoot() && r.rootLocal() != 0) {
            s.add(new SpanRequest.Local(join.joinOnly(Collective.SCATTERV, me, t, r.rootLocal(), recv, all,
                    count * g.globalSize(), dtype)));
        }
        return s;
    }
}
