package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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

    /**
     * The non-blocking form ({@link SpanRequest}). The counts reach the leaders through a local stage
     * ({@link VectorCounts#shareStage}); local rank 0 then works out its process's layout (a step) and joins the
     * local gatherv that packs its ranks' blocks (late: it did not know the counts when the request was made; the
     * other ranks joined it then) → the leaders' MPI_Igatherv of the packed blocks to the root's process, in place
     * there → when the root is not local rank 0, a local scatterv hands it the packed whole → the root copies each
     * block to its displacement (a step). With one rank per process the MPI request alone, straight into the
     * displacements.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                                                   DType dtype, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        long es = dtype.size();
        Rooted r = Rooted.of(g, local, root);
        List<SpanRequest.Stage> s = new ArrayList<>(6);
        if (g.oneEach()) {
            long[] at = r.atRoot() ? VectorCounts.bytes(displs, es) : null;
            long[] counts = r.atRoot() ? VectorCounts.bytes(recvCounts, es) : null;
            boolean inPlace = r.atRoot() && SpanGroup.startsAt(send, recv, at[r.rootProcess()]);
            s.add(new SpanRequest.Inter(() -> span.igatherv(span.requests(), inPlace ? null : send, sendCount * es,
                    r.atRoot() ? recv : null, counts, at, r.rootProcess())));
            return s;
        }
        MemorySegment shared = VectorCounts.shareStage(s, join, g, local, r.atRoot(), r.rootLocal(), recvCounts, sendCount);
        long packId = join.reserve();
        boolean handOver = r.atRoot() && r.rootLocal() != 0;
        long handId = handOver ? join.reserve() : 0;
        boolean isRoot = r.atRoot() && me == r.rootLocal();
        long total = isRoot ? SpanGroup.sum(recvCounts, 0, recvCounts.length) : 0;
        MemorySegment whole = isRoot && me != 0 ? SpanGroup.requestBuffer(total * es) : null;
        if (me != 0) {
            s.add(new SpanRequest.Local(join.joinAt(packId, Collective.GATHERV, send, null, 0, dtype, null, 0,
                    new VectorCall(sendCount, null, null, null, null))));
        } else {
            Layout l = new Layout();
            s.add(new SpanRequest.Step(() -> l.derive(g, t, r, shared, es)));
            s.add(new SpanRequest.LateLocal(() -> join.joinAt(packId, Collective.GATHERV, send, l.packed, 0, dtype, null, 0,
                    new VectorCall(sendCount, null, null, l.localCounts, SpanGroup.starts(l.localCounts, 0, t, 1)))));
            s.add(new SpanRequest.Inter(() -> span.igatherv(span.requests(), r.atRoot() ? null : l.packed, l.mine, l.all,
                    l.processCounts, l.processStarts, r.rootProcess())));
            if (handOver) {
                s.add(new SpanRequest.LateLocal(() -> join.joinOnlyAt(handId, Collective.SCATTERV, 0, t, r.rootLocal(), null,
                        l.all, l.total / es, dtype)));
            }
            if (isRoot) {
                s.add(new SpanRequest.Step(() -> unpack(l.all, recv, recvCounts, displs, es)));
            }
            return s;
        }
        if (handOver) {
            s.add(new SpanRequest.Local(join.joinOnlyAt(handId, Collective.SCATTERV, me, t, r.rootLocal(), whole, null, total,
                    dtype)));
        }
        if (isRoot) {
            s.add(new SpanRequest.Step(() -> unpack(whole, recv, recvCounts, displs, es)));
        }
        return s;
    }

    /** Copies each rank's block of the packed whole (global rank order) to its displacement. */
    private static void unpack(MemorySegment whole, MemorySegment recv, long[] counts, long[] displs, long es) {
        long[] packedAt = SpanGroup.starts(counts, 0, counts.length, es);
        for (int q = 0; q < counts.length; q++) {
            MemorySegment.copy(whole, packedAt[q], recv, displs[q] * es, counts[q] * es);
        }
    }

    /**
     * Local rank 0's layout of a gatherv or scatterv request across processes, worked out from the shared counts
     * in its first round (the counts are the request's, fixed) and kept for the later ones: its process's counts,
     * in bytes each process's part and where it starts (the root's process only), and its buffers.
     */
    static final class Layout {
        long[] localCounts;
        long[] processCounts;
        long[] processStarts;
        /** Bytes of every block (root's process) and of this process's. */
        long total;
        long mine;
        /** The packed whole (root's process), this process's packed part. */
        MemorySegment all;
        MemorySegment packed;

        void derive(SpanGroup g, int t, Rooted r, MemorySegment sharedCounts, long es) {
            if (localCounts != null) {
                return;
            }
            long[] shared = sharedCounts.toArray(java.lang.foreign.ValueLayout.JAVA_LONG);
            localCounts = VectorCounts.localPart(g, t, r.atRoot(), shared);
            mine = SpanGroup.sum(localCounts, 0, t) * es;
            if (r.atRoot()) {
                processCounts = g.processSums(shared, es);
                processStarts = SpanGroup.starts(processCounts, 0, g.processes(), 1);
                total = SpanGroup.sum(shared, 0, shared.length) * es;
                all = SpanGroup.requestBuffer(total);
                packed = all.asSlice(processStarts[r.rootProcess()], mine);
            } else {
                packed = SpanGroup.requestBuffer(mine);
            }
        }
    }
}
