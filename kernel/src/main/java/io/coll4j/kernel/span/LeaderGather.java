package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * Gather across processes, in the leader shape [HMPI §2.5]: each process's ranks gather into local rank 0
 * (its process block: a process's ranks are consecutive global ids), the leaders MPI_Gatherv those blocks to
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
            boolean inPlace = atRoot && SpanGroup.startsAt(send, recv, rootProcess * processBytes);
            span.gatherv(span.world(), inPlace ? null : send, processBytes, atRoot ? recv : null, counts, displs, rootProcess);
            return;
        }
        int me = local.localId();
        MemorySegment all = me != 0 || !atRoot ? null : rootLocal == 0 ? recv : g.result(0, total);
        MemorySegment block = me != 0 ? null : atRoot ? all.asSlice(rootProcess * processBytes, processBytes) : g.scratch(0, processBytes);
        local.gather(send, block, count, dtype, 0);
        if (me == 0) {
            span.gatherv(span.world(), atRoot ? null : block, processBytes, all, counts, displs, rootProcess);
        }
        if (atRoot && rootLocal != 0) {
            long[] only = new long[t];
            only[rootLocal] = count * t * processes;
            local.scatterv(all, only, new long[t], me == rootLocal ? recv : g.scratch(me, 0), only[me], dtype, 0);
        }
    }
}
