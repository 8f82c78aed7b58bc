package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

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
}
