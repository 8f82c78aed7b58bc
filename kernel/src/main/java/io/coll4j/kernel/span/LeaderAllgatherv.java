package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Allgatherv across processes, the irregular allgather of the leaders' bridge communicator [MPI+MPI §4.1]: every
 * rank knows every count, so each process packs its ranks'
 * blocks at local rank 0 (a local gatherv, in global rank order), the leaders MPI_Allgatherv the packed
 * process blocks in place, local rank 0 broadcasts the packed whole, and every rank copies each block to its
 * displacement. With one rank per process it is MPI_Allgatherv itself, straight into the displacements.
 *
 * <p>Cost: local(T, s/P) + α⌈log2 P⌉ + β·s(P−1)/P + local(T, s) + a copy of s; s is the sum of the counts.
 */
public final class LeaderAllgatherv {
    private LeaderAllgatherv() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return LeaderAllgather.cost(c, processes, localSize, bytes) + c.localBeta() * bytes;
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                           long[] displs, DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        int n = g.globalSize();
        long es = dtype.size();
        int mine = g.globalId(me);
        if (g.oneEach()) {
            long[] counts = VectorCounts.bytes(recvCounts, es);
            long[] at = VectorCounts.bytes(displs, es);
            boolean inPlace = SpanGroup.startsAt(send, recv, at[mine]);
            span.allgatherv(span.world(), inPlace ? null : send, counts[mine], recv, counts, at);
            return;
        }
        long[] processCounts = g.processSums(recvCounts, es);
        long[] processStarts = SpanGroup.starts(processCounts, 0, processes, 1);
        long[] packed = SpanGroup.starts(recvCounts, 0, n, es);   // each rank's block in the packed whole
        long total = processStarts[processes - 1] + processCounts[processes - 1];
        MemorySegment whole = me == 0 ? g.scratch(0, total) : g.scratch(me, total);
        int first = g.globalId(0);
        long[] localCounts = java.util.Arrays.copyOfRange(recvCounts, first, first + t);
        long[] localDispls = SpanGroup.starts(recvCounts, first, t, 1);
        MemorySegment mineBlock = me == 0 ? whole.asSlice(processStarts[g.process()], processCounts[g.process()]) : null;
        local.gatherv(send, sendCount, mineBlock, localCounts, localDispls, dtype, 0);
        if (me == 0) {
            span.allgatherv(span.world(), null, processCounts[g.process()], whole, processCounts, processStarts);
        }
        local.bcast(whole, total / es, dtype, 0);
        for (int r = 0; r < n; r++) {
            MemorySegment.copy(whole, packed[r], recv, displs[r] * es, recvCounts[r] * es);
        }
    }

    /**
     * The non-blocking form ({@link SpanRequest}): every rank knows every count, so the stages are joined when the
     * request is made — local gatherv packing the process's blocks at local rank 0 → the leaders' MPI_Iallgatherv
     * of the packed process parts in place → local bcast of the packed whole → each rank copies the blocks to its
     * displacements (a step). The packed wholes are buffers of the request's own. With one rank per process the
     * MPI request alone, straight into the displacements.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                                                   DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        int n = g.globalSize();
        long es = dtype.size();
        List<SpanRequest.Stage> s = new ArrayList<>(4);
        if (g.oneEach()) {
            int mine = g.globalId(me);
            long[] counts = VectorCounts.bytes(recvCounts, es);
            long[] at = VectorCounts.bytes(displs, es);
            boolean inPlace = SpanGroup.startsAt(send, recv, at[mine]);
            s.add(new SpanRequest.Inter(() -> span.iallgatherv(span.requests(), inPlace ? null : send, counts[mine], recv,
                    counts, at)));
            return s;
        }
        long[] processCounts = g.processSums(recvCounts, es);
        long[] processStarts = SpanGroup.starts(processCounts, 0, processes, 1);
        long[] packed = SpanGroup.starts(recvCounts, 0, n, es);
        long total = processStarts[processes - 1] + processCounts[processes - 1];
        MemorySegment whole = SpanGroup.requestBuffer(total);
        int first = g.globalId(0);
        long[] localCounts = java.util.Arrays.copyOfRange(recvCounts, first, first + t);
        long[] localDispls = SpanGroup.starts(recvCounts, first, t, 1);
        MemorySegment mineBlock = me == 0 ? whole.asSlice(processStarts[g.process()], processCounts[g.process()]) : null;
        s.add(new SpanRequest.Local(join.join(Collective.GATHERV, send, mineBlock, dtype, 0,
                new VectorCall(sendCount, null, null, me == 0 ? localCounts : null, me == 0 ? localDispls : null))));
        if (me == 0) {
            s.add(new SpanRequest.Inter(() -> span.iallgatherv(span.requests(), null, processCounts[g.process()], whole,
                    processCounts, processStarts)));
        }
        s.add(new SpanRequest.Local(join.join(Collective.BCAST, whole, whole, total / es, dtype, null, 0)));
        s.add(new SpanRequest.Step(() -> {
            for (int r = 0; r < n; r++) {
                MemorySegment.copy(whole, packed[r], recv, displs[r] * es, recvCounts[r] * es);
            }
        }));
        return s;
    }
}
