package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Alltoallv across processes, {@link LeaderAlltoall} with per-pair counts: each rank packs its send in
 * global destination order; local rank 0 gathers every local rank's send and receive counts and packed send,
 * regroups by destination process (from each local source, the contiguous run for that process's ranks),
 * exchanges one MPI_Alltoallv message per pair of processes, regroups what arrived by destination rank
 * (source global rank order), and scatters; each rank copies its blocks to its receive displacements. With
 * one rank per process it is MPI_Alltoallv itself, straight between the displacements (through a copy when in
 * place).
 *
 * <p>Cost: local(T, 2·8·T·P) for the counts + the {@link LeaderAlltoall} terms on the sums + 2 copies of s.
 */
public final class LeaderAlltoallv {
    private LeaderAlltoallv() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, 16.0 * localSize * processes) + LeaderAlltoall.cost(c, processes, localSize, bytes)
                + 2 * c.localBeta() * bytes;
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                           long[] recvCounts, long[] recvDispls, DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int processes = g.processes();
        int n = g.globalSize();
        long es = dtype.size();
        if (g.oneEach()) {
            long[] sd = VectorCounts.bytes(sendDispls, es);
            MemorySegment in = send;
            if (SpanGroup.startsAt(send, recv, 0)) {
                long extent = 0;
                for (int r = 0; r < n; r++) {
                    extent = Math.max(extent, sd[r] + sendCounts[r] * es);
                }
                in = g.scratch(0, extent);
                MemorySegment.copy(send, 0, in, 0, extent);
            }
            span.alltoallv(span.world(), in, VectorCounts.bytes(sendCounts, es), sd, recv, VectorCounts.bytes(recvCounts, es),
                    VectorCounts.bytes(recvDispls, es));
            return;
        }
        // 1. every local rank's counts at local rank 0: [send counts (n), receive counts (n)] per rank
        MemorySegment cell = g.scratch(me, 16L * n);
        MemorySegment.copy(sendCounts, 0, cell, ValueLayout.JAVA_LONG, 0, n);
        MemorySegment.copy(recvCounts, 0, cell, ValueLayout.JAVA_LONG, 8L * n, n);
        MemorySegment counts = me == 0 ? g.result(0, 16L * n * t) : null;
        local.gather(cell, counts, 2L * n, DType.I64, 0);
        long[][] sc = new long[t][];
        long[][] rc = new long[t][];
        if (me == 0) {
            for (int j = 0; j < t; j++) {
                sc[j] = counts.asSlice(16L * n * j, 8L * n).toArray(ValueLayout.JAVA_LONG);
                rc[j] = counts.asSlice(16L * n * j + 8L * n, 8L * n).toArray(ValueLayout.JAVA_LONG);
            }
        }
        // 2. the packed sends (global destination order) at local rank 0, source after source
        long sendTotal = SpanGroup.sum(sendCounts, 0, n);
        MemorySegment packed = g.result(me, sendTotal * es);
        long[] packedAt = SpanGroup.starts(sendCounts, 0, n, es);
        for (int r = 0; r < n; r++) {
            MemorySegment.copy(send, sendDispls[r] * es, packed, packedAt[r], sendCounts[r] * es);
        }
        long[] sourceTotals = new long[t];
        MemorySegment sources = null;
        if (me == 0) {
            for (int j = 0; j < t; j++) {
                sourceTotals[j] = SpanGroup.sum(sc[j], 0, n);
            }
            sources = g.scratch(0, SpanGroup.sum(sourceTotals, 0, t) * es);
        }
        local.gatherv(packed, sendTotal, sources, sourceTotals, SpanGroup.starts(sourceTotals, 0, t, 1), dtype, 0);
        long[] destTotals = new long[t];
        MemorySegment byDest = null;
        if (me == 0) {
            byDest = exchange(g, span, sources, sourceTotals, sc, rc, es);
            for (int d = 0; d < t; d++) {
                destTotals[d] = SpanGroup.sum(rc[d], 0, n);
            }
        }
        // 3. each rank's packed receive (source global rank order), unpacked to its displacements
        long recvTotal = SpanGroup.sum(recvCounts, 0, n);
        MemorySegment mine = me == 0 ? g.scratch(0, recvTotal * es) : g.scratch(me, recvTotal * es);
        local.scatterv(byDest, destTotals, SpanGroup.starts(destTotals, 0, t, 1), mine, recvTotal, dtype, 0);
        long[] at = SpanGroup.starts(recvCounts, 0, n, es);
        for (int r = 0; r < n; r++) {
            MemorySegment.copy(mine, at[r], recv, recvDispls[r] * es, recvCounts[r] * es);
        }
    }

    /**
     * Local rank 0: regroups the gathered sources by destination process, exchanges them with MPI_Alltoallv,
     * and regroups what arrived ([source process][source j][destination d]) by destination rank.
     */
    private static MemorySegment exchange(SpanGroup g, ProcessSpan span, MemorySegment sources, long[] sourceTotals, long[][] sc,
                                          long[][] rc, long es) {
        int t = sc.length;
        int processes = g.processes();
        int n = g.globalSize();
        long[] sourceAt = SpanGroup.starts(sourceTotals, 0, t, es);
        long[] toProcess = new long[processes];
        long[] fromProcess = new long[processes];
        for (int q = 0; q < processes; q++) {
            for (int j = 0; j < t; j++) {
                toProcess[q] += SpanGroup.sum(sc[j], g.first(q), g.count(q)) * es;
                fromProcess[q] += SpanGroup.sum(rc[j], g.first(q), g.count(q)) * es;
            }
        }
        long[] toAt = SpanGroup.starts(toProcess, 0, processes, 1);
        long[] fromAt = SpanGroup.starts(fromProcess, 0, processes, 1);
        MemorySegment grouped = g.result(0, toAt[processes - 1] + toProcess[processes - 1]);
        long w = 0;
        for (int q = 0; q < processes; q++) {
            for (int j = 0; j < t; j++) {
                long run = SpanGroup.sum(sc[j], g.first(q), g.count(q)) * es;
                MemorySegment.copy(sources, sourceAt[j] + SpanGroup.sum(sc[j], 0, g.first(q)) * es, grouped, w, run);
                w += run;
            }
        }
        MemorySegment arrived = g.scratch(0, fromAt[processes - 1] + fromProcess[processes - 1]);
        span.alltoallv(span.world(), grouped, toProcess, toAt, arrived, fromProcess, fromAt);
        // arrived from process p: for each of its ranks j, for each local destination d, rc[d][first(p) + j] elements
        long[] destAt = new long[t];
        long[] destStart = new long[t];
        for (int d = 1; d < t; d++) {
            destStart[d] = destStart[d - 1] + SpanGroup.sum(rc[d - 1], 0, n) * es;
        }
        MemorySegment byDest = g.result(0, destStart[t - 1] + SpanGroup.sum(rc[t - 1], 0, n) * es);
        long r = 0;
        for (int p = 0; p < processes; p++) {
            for (int j = 0; j < g.count(p); j++) {
                for (int d = 0; d < t; d++) {
                    long bytes = rc[d][g.first(p) + j] * es;
                    MemorySegment.copy(arrived, r, byDest, destStart[d] + destAt[d], bytes);
                    destAt[d] += bytes;
                    r += bytes;
                }
            }
        }
        return byDest;
    }

    /**
     * The non-blocking form ({@link SpanRequest}), the blocking algorithm's steps as stages: each rank packs its
     * send in global destination order (a step, first, on its own thread) → local gather of every rank's counts at
     * local rank 0 → local rank 0 works out the layout (a step) and joins (late: it learnt the counts from the
     * stage before; the other ranks joined when the request was made) the local gatherv of the packed sends →
     * regrouping by destination process (a step) → MPI_Ialltoallv → regrouping by destination rank (a step) →
     * local scatterv, joined late as the gatherv → each rank unpacks to its displacements (a step). Every buffer is
     * the request's own. With one rank per process the MPI request alone (an in-place send copied first).
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                                   long[] recvCounts, long[] recvDispls, DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int n = g.globalSize();
        long es = dtype.size();
        List<SpanRequest.Stage> s = new ArrayList<>(9);
        if (g.oneEach()) {
            long[] sc = VectorCounts.bytes(sendCounts, es);
            long[] sd = VectorCounts.bytes(sendDispls, es);
            long[] rc = VectorCounts.bytes(recvCounts, es);
            long[] rd = VectorCounts.bytes(recvDispls, es);
            long extent = 0;
            for (int r = 0; r < n; r++) {
                extent = Math.max(extent, sd[r] + sc[r]);
            }
            long bytes = extent;
            MemorySegment copy = SpanGroup.startsAt(send, recv, 0) ? SpanGroup.requestBuffer(bytes) : null;
            s.add(new SpanRequest.Inter(() -> {
                MemorySegment in = send;
                if (copy != null) {
                    MemorySegment.copy(send, 0, copy, 0, bytes);
                    in = copy;
                }
                return span.ialltoallv(span.requests(), in, sc, sd, recv, rc, rd);
            }));
            return s;
        }
        long sendTotal = SpanGroup.sum(sendCounts, 0, n);
        long recvTotal = SpanGroup.sum(recvCounts, 0, n);
        MemorySegment packed = SpanGroup.requestBuffer(sendTotal * es);
        long[] packedAt = SpanGroup.starts(sendCounts, 0, n, es);
        s.add(new SpanRequest.Step(() -> {
            for (int r = 0; r < n; r++) {
                MemorySegment.copy(send, sendDispls[r] * es, packed, packedAt[r], sendCounts[r] * es);
            }
        }));
        MemorySegment cell = SpanGroup.requestBuffer(16L * n);
        MemorySegment.copy(sendCounts, 0, cell, ValueLayout.JAVA_LONG, 0, n);
        MemorySegment.copy(recvCounts, 0, cell, ValueLayout.JAVA_LONG, 8L * n, n);
        MemorySegment counts = me == 0 ? SpanGroup.requestBuffer(16L * n * t) : null;
        s.add(new SpanRequest.Local(join.join(Collective.GATHER, cell, counts, 2L * n, DType.I64, null, 0)));
        long gatherId = join.reserve();
        long scatterId = join.reserve();
        MemorySegment mine = SpanGroup.requestBuffer(recvTotal * es);
        if (me != 0) {
            s.add(new SpanRequest.Local(join.joinAt(gatherId, Collective.GATHERV, packed, null, 0, dtype, null, 0,
                    new VectorCall(sendTotal, null, null, null, null))));
            s.add(new SpanRequest.Local(join.joinAt(scatterId, Collective.SCATTERV, null, mine, 0, dtype, null, 0,
                    new VectorCall(recvTotal, null, null, null, null))));
        } else {
            Regrouping x = new Regrouping();
            s.add(new SpanRequest.Step(() -> x.derive(g, counts, t, es)));
            s.add(new SpanRequest.LateLocal(() -> join.joinAt(gatherId, Collective.GATHERV, packed, x.sources, 0, dtype, null,
                    0, new VectorCall(sendTotal, null, null, x.sourceTotals, SpanGroup.starts(x.sourceTotals, 0, t, 1)))));
            s.add(new SpanRequest.Step(x::group));
            s.add(new SpanRequest.Inter(() -> span.ialltoallv(span.requests(), x.grouped, x.toProcess, x.toAt, x.arrived,
                    x.fromProcess, x.fromAt)));
            s.add(new SpanRequest.Step(x::regroup));
            s.add(new SpanRequest.LateLocal(() -> join.joinAt(scatterId, Collective.SCATTERV, x.byDest, mine, 0, dtype, null, 0,
                    new VectorCall(recvTotal, x.destTotals, SpanGroup.starts(x.destTotals, 0, t, 1), null, null))));
        }
        long[] at = SpanGroup.starts(recvCounts, 0, n, es);
        s.add(new SpanRequest.Step(() -> {
            for (int r = 0; r < n; r++) {
                MemorySegment.copy(mine, at[r], recv, recvDispls[r] * es, recvCounts[r] * es);
            }
        }));
        return s;
    }

    /**
     * Local rank 0's part of a non-blocking alltoallv: the layout {@link #exchange} works out on every call, worked
     * out once from the gathered counts (a request's counts are fixed) with buffers of the request's own; then
     * each round's regrouping before and after the MPI call.
     */
    private static final class Regrouping {
        long[][] sc;
        long[][] rc;
        long[] sourceTotals;
        long[] destTotals;
        long[] toProcess;
        long[] fromProcess;
        long[] toAt;
        long[] fromAt;
        MemorySegment sources;
        MemorySegment grouped;
        MemorySegment arrived;
        MemorySegment byDest;
        private long es;
        private int t;
        private int processes;
        /** The layout: process q's ranks are global ids first(q) .. first(q) + count(q) − 1. */
        private SpanGroup g;

        void derive(SpanGroup g, MemorySegment counts, int t, long es) {
            if (sc != null) {
                return;
            }
            this.t = t;
            this.es = es;
            this.processes = g.processes();
            this.g = g;
            int n = g.globalSize();
            sc = new long[t][];
            rc = new long[t][];
            sourceTotals = new long[t];
            destTotals = new long[t];
            for (int j = 0; j < t; j++) {
                sc[j] = counts.asSlice(16L * n * j, 8L * n).toArray(ValueLayout.JAVA_LONG);
                rc[j] = counts.asSlice(16L * n * j + 8L * n, 8L * n).toArray(ValueLayout.JAVA_LONG);
                sourceTotals[j] = SpanGroup.sum(sc[j], 0, n);
                destTotals[j] = SpanGroup.sum(rc[j], 0, n);
            }
            toProcess = new long[processes];
            fromProcess = new long[processes];
            for (int q = 0; q < processes; q++) {
                for (int j = 0; j < t; j++) {
                    toProcess[q] += SpanGroup.sum(sc[j], g.first(q), g.count(q)) * es;
                    fromProcess[q] += SpanGroup.sum(rc[j], g.first(q), g.count(q)) * es;
                }
            }
            toAt = SpanGroup.starts(toProcess, 0, processes, 1);
            fromAt = SpanGroup.starts(fromProcess, 0, processes, 1);
            sources = SpanGroup.requestBuffer(SpanGroup.sum(sourceTotals, 0, t) * es);
            grouped = SpanGroup.requestBuffer(toAt[processes - 1] + toProcess[processes - 1]);
            arrived = SpanGroup.requestBuffer(fromAt[processes - 1] + fromProcess[processes - 1]);
            byDest = SpanGroup.requestBuffer(SpanGroup.sum(destTotals, 0, t) * es);
        }

        /** The gathered sources by destination process: from each local source j, its run for process q's ranks. */
        void group() {
            long[] sourceAt = SpanGroup.starts(sourceTotals, 0, t, es);
            long w = 0;
            for (int q = 0; q < processes; q++) {
                for (int j = 0; j < t; j++) {
                    long run = SpanGroup.sum(sc[j], g.first(q), g.count(q)) * es;
                    MemorySegment.copy(sources, sourceAt[j] + SpanGroup.sum(sc[j], 0, g.first(q)) * es, grouped, w, run);
                    w += run;
                }
            }
        }

        /** What arrived ([source process p][source j][destination d]) by destination rank, source global rank order. */
        void regroup() {
            long[] destAt = new long[t];
            long[] destStart = SpanGroup.starts(destTotals, 0, t, es);
            long r = 0;
            for (int p = 0; p < processes; p++) {
                for (int j = 0; j < g.count(p); j++) {
                    for (int d = 0; d < t; d++) {
                        long bytes = rc[d][g.first(p) + j] * es;
                        MemorySegment.copy(arrived, r, byDest, destStart[d] + destAt[d], bytes);
                        destAt[d] += bytes;
                        r += bytes;
                    }
                }
            }
        }
    }
}
