package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Scan and exscan across processes in ascending global rank order (a {@code reproducible(true)} team, or a
 * non-commutative UserOp): global rank g gets the left fold {@code ((s0 op s1) op …) op s_g} (exscan: up to
 * {@code s_(g−1)}), bitwise the single-process reproducible result. {@link LeaderScan} regroups the fold (the
 * lower processes' totals, then the local scan), which changes an inexact op's bits. Here each leader gathers
 * its T contributions, receives the running fold of every lower rank from the previous process (MPI_Recv),
 * folds its own ranks onto it one at a time, keeping each rank's prefix, passes the fold on (MPI_Send), and
 * scatters the prefixes to its ranks — {@link ChainAllreduce}'s chain, without the broadcast back.
 *
 * <p>Cost: local gather(T, s) + P·(α + β·s) + T·fold(s) per process on the chain + local scatter(T, s).
 */
public final class ChainScan {
    private ChainScan() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 2 * c.local(localSize, bytes) + processes * (c.alpha() + c.beta() * bytes) + localSize * c.localBeta() * bytes;
    }

    public static void run(SpanGroup g, LocalOps local, boolean exclusive, MemorySegment send, MemorySegment recv, long count,
                           DType dtype, Op op) {
        int t = local.localSize();
        long bytes = count * dtype.size();
        boolean leader = local.localId() == 0;
        MemorySegment slab = leader ? g.scratch(0, t * bytes) : null;
        local.gather(send, slab, count, dtype, 0);   // slab block j = local rank j's contribution
        // block j: local rank j's result; block t: the running fold of every rank so far
        MemorySegment out = leader ? g.result(0, (t + 1) * bytes) : null;
        if (leader) {
            ProcessSpan span = g.span();
            int process = g.process();
            Reducer fold = local.reducer(dtype, op);
            MemorySegment acc = out.asSlice(t * bytes, bytes);
            boolean started = process > 0;
            if (started) {
                span.recv(span.world(), acc, bytes, process - 1);
            }
            for (int j = 0; j < t; j++) {
                if (exclusive && started) {
                    MemorySegment.copy(acc, 0, out, j * bytes, bytes);
                }
                if (started) {
                    fold.reduceInto(acc, 0, slab, j * bytes, count);   // acc = acc op x_j: ascending global rank
                } else {
                    MemorySegment.copy(slab, 0, acc, 0, bytes);       // global rank 0 starts the fold
                    started = true;
                }
                if (!exclusive) {
                    MemorySegment.copy(acc, 0, out, j * bytes, bytes);
                }
            }
            if (process < g.processes() - 1) {
                span.send(span.world(), acc, bytes, process + 1);
            }
        }
        // exscan leaves global rank 0's recv unwritten, as in one process
        long[] counts = SpanGroup.equal(t, count);
        if (exclusive && g.process() == 0) {
            counts[0] = 0;
        }
        local.scatterv(out, counts, SpanGroup.starts(SpanGroup.equal(t, count), 0, t, 1), recv, counts[local.localId()], dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}), the same chain: a local gather of the contributions at local rank
     * 0 → MPI_Irecv of the lower ranks' fold from the previous process → the leader folds its ranks on in
     * ascending order, keeping each prefix (a step) → MPI_Isend of the fold to the next process → local scatterv of
     * the prefixes (global rank 0's exscan receives nothing). Buffers of the request's own, so {@code recv} may be
     * {@code send}.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, boolean exclusive,
                                                   MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        long bytes = count * dtype.size();
        int me = local.localId();
        boolean leader = me == 0;
        int process = g.process();
        List<SpanRequest.Stage> s = new ArrayList<>(6);
        MemorySegment slab = !leader ? null : t == 1 ? send : SpanGroup.requestBuffer(t * bytes);
        if (t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.GATHER, send, slab, count, dtype, null, 0)));
        }
        // block j: local rank j's result; block t: the running fold of every rank so far
        MemorySegment out = leader ? SpanGroup.requestBuffer((t + 1) * bytes) : null;
        if (leader) {
            Reducer fold = local.reducer(dtype, op);
            MemorySegment acc = out.asSlice(t * bytes, bytes);
            if (process > 0) {
                s.add(new SpanRequest.Inter(() -> span.irecv(span.requests(), acc, bytes, process - 1)));
            }
            s.add(new SpanRequest.Step(() -> {
                boolean started = process > 0;
                for (int j = 0; j < t; j++) {
                    if (exclusive && started) {
                        MemorySegment.copy(acc, 0, out, j * bytes, bytes);
                    }
                    if (started) {
                        fold.reduceInto(acc, 0, slab, j * bytes, count);   // acc = acc op x_j: ascending global rank
                    } else {
                        MemorySegment.copy(slab, 0, acc, 0, bytes);       // global rank 0 starts the fold
                        started = true;
                    }
                    if (!exclusive) {
                        MemorySegment.copy(acc, 0, out, j * bytes, bytes);
                    }
                }
            }));
            if (process < g.processes() - 1) {
                s.add(new SpanRequest.Inter(() -> span.isend(span.requests(), acc, bytes, process + 1)));
            }
        }
        boolean none = exclusive && process == 0;   // global rank 0's exscan result is not written
        if (t == 1) {
            if (!none) {
                s.add(new SpanRequest.Step(() -> MemorySegment.copy(out, 0, recv, 0, bytes)));
            }
            return s;
        }
        long[] counts = SpanGroup.equal(t, count);
        if (none) {
            counts[0] = 0;
        }
        long[] displs = SpanGroup.starts(SpanGroup.equal(t, count), 0, t, 1);
        s.add(new SpanRequest.Local(join.join(Collective.SCATTERV, out, recv, dtype, 0,
                new VectorCall(counts[me], leader ? counts : null, leader ? displs : null, null, null))));
        return s;
    }
}
