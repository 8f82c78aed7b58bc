package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * The non-blocking form ({@link SpanRequest}), {@link LeaderGatherv#schedule} reversed: the root packs its
     * blocks in global rank order (a step, first, on its own thread); the counts reach the leaders through a local
     * stage; when the root is not local rank 0 a local gatherv hands local rank 0 the packed whole; local rank 0
     * works out its layout (a step), the leaders MPI_Iscatterv the packed process parts, and local rank 0 joins
     * (late, as in gatherv) the local scatterv of its part to its process's ranks. With one rank per process the
     * MPI request alone, straight from the displacements.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                                                   DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        long es = dtype.size();
        Rooted r = Rooted.of(g, local, root);
        List<SpanRequest.Stage> s = new ArrayList<>(6);
        if (g.oneEach()) {
            long[] at = r.atRoot() ? VectorCounts.bytes(displs, es) : null;
            long[] counts = r.atRoot() ? VectorCounts.bytes(sendCounts, es) : null;
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(recv, send, at[r.rootProcess()]);
            s.add(new SpanRequest.Inter(() -> span.iscatterv(span.requests(), r.atRoot() ? send : null, counts, at,
                    inPlace ? null : recv, recvCount * es, r.rootProcess())));
            return s;
        }
        boolean isRoot = r.atRoot() && me == r.rootLocal();
        MemorySegment packed = null;
        if (isRoot) {
            long[] packedAt = SpanGroup.starts(sendCounts, 0, sendCounts.length, es);
            MemorySegment p = packed = SpanGroup.requestBuffer(SpanGroup.sum(sendCounts, 0, sendCounts.length) * es);
            s.add(new SpanRequest.Step(() -> {
                for (int q = 0; q < sendCounts.length; q++) {
                    MemorySegment.copy(send, displs[q] * es, p, packedAt[q], sendCounts[q] * es);
                }
            }));
        }
        MemorySegment shared = VectorCounts.shareStage(s, join, g, local, r.atRoot(), r.rootLocal(), sendCounts, recvCount);
        boolean handOver = r.atRoot() && r.rootLocal() != 0;
        long handId = handOver ? join.reserve() : 0;
        long scatterId = join.reserve();
        if (me != 0) {
            if (handOver) {
                long total = isRoot ? packed.byteSize() / es : 0;
                s.add(new SpanRequest.Local(join.joinOnlyAt(handId, Collective.GATHERV, me, t, r.rootLocal(), packed, null,
                        total, dtype)));
            }
            s.add(new SpanRequest.Local(join.joinAt(scatterId, Collective.SCATTERV, null, recv, 0, dtype, null, 0,
                    new VectorCall(recvCount, null, null, null, null))));
            return s;
        }
        LeaderGatherv.Layout l = new LeaderGatherv.Layout();
        MemorySegment rootPacked = packed;
        s.add(new SpanRequest.Step(() -> {
            l.derive(g, t, r, shared, es);
            if (rootPacked != null) {
                l.all = rootPacked;   // the root is local rank 0: its packed send is the whole
            }
        }));
        if (handOver) {
            s.add(new SpanRequest.LateLocal(() -> join.joinOnlyAt(handId, Collective.GATHERV, 0, t, r.rootLocal(), null, l.all,
                    l.total / es, dtype)));
        }
        // the leaders' part of the packed whole is this process's part; each leader receives into its own buffer
        MemorySegment[] block = new MemorySegment[1];
        s.add(new SpanRequest.Inter(() -> {
            if (block[0] == null) {
                block[0] = SpanGroup.requestBuffer(l.mine);
            }
            return span.iscatterv(span.requests(), l.all, l.processCounts, l.processStarts, block[0], l.mine, r.rootProcess());
        }));
        s.add(new SpanRequest.LateLocal(() -> join.joinAt(scatterId, Collective.SCATTERV, block[0], recv, 0, dtype, null, 0,
                new VectorCall(recvCount, l.localCounts, SpanGroup.starts(l.localCounts, 0, t, 1), null, null))));
        return s;
    }
}
