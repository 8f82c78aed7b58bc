package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * All-to-all across processes through the leaders: the T send rows of a process are gathered at local rank 0,
 * regrouped by destination process (process q gets, from each local source j, the T blocks for q's ranks),
 * exchanged with one MPI_Alltoallv of T·T blocks per pair of processes, regrouped by destination rank, and
 * scattered — local and leader levels as in PAMI's decomposition of hybrid collectives [PAMI §4.2] (PAMI composes
 * only allreduce and bcast this way [PAMI §4.3]; the alltoall is coll4j's): P messages per process cross MPI
 * instead of T·T·P.
 * With one rank per process it is MPI_Alltoallv itself (through a copy when in place). When the processes hold
 * different numbers of ranks (a sub-team from {@code split}) it is {@link LeaderAlltoallv} with equal counts.
 *
 * <p>Cost: 2·local(T, T·s) + α(P−1) + β·T·s(P−1)/P + 2 regrouping copies of T·s; s is one rank's send.
 */
public final class LeaderAlltoall {
    private LeaderAlltoall() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        double process = (double) bytes * localSize;
        return 2 * c.local(localSize, process) + c.alpha() * (processes - 1) + c.beta() * process * (processes - 1) / processes
                + 2 * c.localBeta() * process;
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        if (!g.even()) {
            long[] counts = SpanGroup.equal(g.globalSize(), count);
            long[] displs = SpanGroup.starts(counts, 0, counts.length, 1);
            LeaderAlltoallv.run(g, local, send, counts, displs, recv, counts, displs, dtype);
            return;
        }
        ProcessSpan span = g.span();
        int t = local.localSize();
        int processes = g.processes();
        int n = t * processes;
        long cb = count * dtype.size();
        long row = cb * n;
        if (t == 1) {
            MemorySegment in = send;
            if (SpanGroup.startsAt(send, recv, 0)) {
                in = g.scratch(0, row);
                MemorySegment.copy(send, 0, in, 0, row);
            }
            long[] counts = SpanGroup.equal(processes, cb);
            long[] displs = SpanGroup.starts(counts, 0, processes, 1);
            span.alltoallv(span.world(), in, counts, displs, recv, counts, displs);
            return;
        }
        int me = local.localId();
        MemorySegment rows = me == 0 ? g.scratch(0, row * t) : null;      // [source j][global destination]
        MemorySegment grouped = me == 0 ? g.result(0, row * t) : null;    // [process q][source j][destination t']
        local.gather(send, rows, count * n, dtype, 0);
        if (me == 0) {
            long pair = cb * t * t;
            for (int q = 0; q < processes; q++) {
                for (int j = 0; j < t; j++) {
                    MemorySegment.copy(rows, j * row + q * t * cb, grouped, q * pair + j * t * cb, t * cb);
                }
            }
            long[] counts = SpanGroup.equal(processes, pair);
            long[] displs = SpanGroup.starts(counts, 0, processes, 1);
            // received: [source process p][source j][destination t'], into the rows' buffer, free again
            span.alltoallv(span.world(), grouped, counts, displs, rows, counts, displs);
            for (int p = 0; p < processes; p++) {
                for (int j = 0; j < t; j++) {
                    for (int d = 0; d < t; d++) {
                        MemorySegment.copy(rows, p * pair + (j * t + d) * cb, grouped, d * row + (p * t + j) * cb, cb);
                    }
                }
            }
        }
        local.scatter(grouped, recv, count * n, dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}): local gather of the send rows at local rank 0 → the leader
     * regroups them by destination process (a step) → MPI_Ialltoallv → the leader regroups by destination rank
     * (a step) → local scatter; both of the leader's buffers are the request's own. With one rank per process the
     * MPI request alone (an in-place send copied into a buffer of the request's first).
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long count, DType dtype) {
        if (!g.even()) {
            long[] counts = SpanGroup.equal(g.globalSize(), count);
            long[] displs = SpanGroup.starts(counts, 0, counts.length, 1);
            return LeaderAlltoallv.schedule(g, local, join, send, counts, displs, recv, counts, displs, dtype);
        }
        ProcessSpan span = g.span();
        int t = local.localSize();
        int processes = g.processes();
        int n = t * processes;
        long cb = count * dtype.size();
        long row = cb * n;
        List<SpanRequest.Stage> s = new ArrayList<>(5);
        if (t == 1) {
            long[] counts = SpanGroup.equal(processes, cb);
            long[] displs = SpanGroup.starts(counts, 0, processes, 1);
            MemorySegment copy = SpanGroup.startsAt(send, recv, 0) ? SpanGroup.requestBuffer(row) : null;
            s.add(new SpanRequest.Inter(() -> {
                MemorySegment in = send;
                if (copy != null) {
                    MemorySegment.copy(send, 0, copy, 0, row);
                    in = copy;
                }
                return span.ialltoallv(span.requests(), in, counts, displs, recv, counts, displs);
            }));
            return s;
        }
        int me = local.localId();
        MemorySegment rows = me == 0 ? SpanGroup.requestBuffer(row * t) : null;      // [source j][global destination]
        MemorySegment grouped = me == 0 ? SpanGroup.requestBuffer(row * t) : null;   // [process q][source j][destination t']
        s.add(new SpanRequest.Local(join.join(Collective.GATHER, send, rows, count * n, dtype, null, 0)));
        if (me == 0) {
            long pair = cb * t * t;
            long[] counts = SpanGroup.equal(processes, pair);
            long[] displs = SpanGroup.starts(counts, 0, processes, 1);
            s.add(new SpanRequest.Step(() -> {
                for (int q = 0; q < processes; q++) {
                    for (int j = 0; j < t; j++) {
                        MemorySegment.copy(rows, j * row + q * t * cb, grouped, q * pair + j * t * cb, t * cb);
                    }
                }
            }));
            // received: [source process p][source j][destination t'], into the rows' buffer, free again
            s.add(new SpanRequest.Inter(() -> span.ialltoallv(span.requests(), grouped, counts, displs, rows, counts, displs)));
            s.add(new SpanRequest.Step(() -> {
                for (int p = 0; p < processes; p++) {
                    for (int j = 0; j < t; j++) {
                        for (int d = 0; d < t; d++) {
                            MemorySegment.copy(rows, p * pair + (j * t + d) * cb, grouped, d * row + (p * t + j) * cb, cb);
                        }
                    }
                }
            }));
        }
        s.add(new SpanRequest.Local(join.join(Collective.SCATTER, grouped, recv, count * n, dtype, null, 0)));
        return s;
    }
}
