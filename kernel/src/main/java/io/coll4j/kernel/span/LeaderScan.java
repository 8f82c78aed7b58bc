package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Scan and exscan across processes, the standard two-level construction (scan inside each group, an exclusive
 * scan of the group totals across groups, a local fix-up): the process's ranks scan locally; the last local
 * rank's inclusive total reaches local rank 0 (a local gatherv with every other count zero); the leaders
 * MPI_Allgatherv the P totals as bytes and each folds those of the lower processes in ascending order — with
 * bytes and coll4j's own reducers every dtype and op works, and every process folds the same operands in the
 * same order; the prefix is broadcast locally and folded in front of each rank's local result.
 *
 * <p>Cost: local(T, s) twice + α⌈log2 P⌉ + β·s(P−1) (the allgather of totals; MPI_Exscan would move
 * β·s⌈log2 P⌉ but only for MPI's own types) + local(T, s) + a fold of s.
 */
public final class LeaderScan {
    private LeaderScan() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 3 * c.local(localSize, bytes) + c.alpha() * HierarchicalCost.log2(processes) + c.beta() * bytes * (processes - 1)
                + c.localBeta() * bytes;
    }

    public static void run(SpanGroup g, LocalOps local, boolean exclusive, MemorySegment send, MemorySegment recv, long count,
                           DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int process = g.process();
        int processes = g.processes();
        long cb = count * dtype.size();
        Reducer red = local.reducer(dtype, op);
        // the last local rank's own contribution, kept before an in-place exscan overwrites it
        MemorySegment own = null;
        if (exclusive && me == t - 1) {
            own = g.result(me, cb);
            MemorySegment.copy(send, 0, own, 0, cb);
        }
        if (exclusive) {
            local.exscan(send, recv, count, dtype, op);
        } else {
            local.scan(send, recv, count, dtype, op);
        }
        MemorySegment total = null;
        if (me == t - 1) {
            total = !exclusive ? recv : own;
            if (exclusive && t > 1) {
                red.reduce(own, 0, recv, 0, own, 0, count);   // (ranks 0..t-2) op (rank t-1)
            }
        }
        if (t > 1) {
            long[] only = new long[t];
            only[t - 1] = count;
            MemorySegment at0 = me == 0 ? g.result(0, cb) : null;
            local.gatherv(me == t - 1 ? total : g.scratch(me, 0), only[me], at0, only, new long[t], dtype, 0);
            total = at0;
        }
        if (process == 0) {
            // the first process's results are the local ones; its leader still joins the leaders' exchange
            if (me == 0) {
                exchange(g, span, total, cb, processes);
            }
            return;
        }
        MemorySegment prefix = me == 0 ? exchange(g, span, total, cb, processes) : g.scratch(me, cb);
        if (me == 0) {
            for (int q = 1; q < process; q++) {
                red.reduceInto(prefix, 0, prefix, q * cb, count);
            }
        }
        if (t > 1) {
            local.bcast(prefix, count, dtype, 0);
        }
        if (exclusive && me == 0) {
            MemorySegment.copy(prefix, 0, recv, 0, cb);        // the lower processes' fold is the whole prefix
        } else {
            red.reduce(recv, 0, prefix, 0, recv, 0, count);    // prefix op local
        }
    }

    /** The leaders' allgather of every process's total into local rank 0's scratch, process order. */
    private static MemorySegment exchange(SpanGroup g, ProcessSpan span, MemorySegment total, long cb, int processes) {
        MemorySegment all = g.scratch(0, cb * processes);
        long[] counts = SpanGroup.equal(processes, cb);
        span.allgatherv(span.world(), total, cb, all, counts, SpanGroup.starts(counts, 0, processes, 1));
        return all;
    }

    /**
     * The non-blocking form ({@link SpanRequest}), the same three levels: a local reduce of the sends to local rank 0
     * gives the process total (the engine's fold is the ascending left fold, bitwise the last rank's inclusive scan
     * result, so the blocking form's total), then the local scan or exscan; the leaders' MPI_Iallgatherv of the P
     * totals in place; in process p > 0 the leader folds the totals of processes 0 .. p−1 in ascending order (a
     * step), a local bcast hands the prefix to every local rank, and each folds it in front of its local result (a
     * step). The total is reduced before the scan runs, so an in-place scan overwrites a send already read: the
     * leader posts the scan only once its reduce is done, which needs every rank's input read. Every stage that needs
     * another rank comes before this rank's own step, so a rank that waits elsewhere never holds the leader up.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, boolean exclusive,
                                                   MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int me = local.localId();
        int process = g.process();
        int processes = g.processes();
        long cb = count * dtype.size();
        Reducer red = local.reducer(dtype, op);
        long[] counts = SpanGroup.equal(processes, cb);
        long[] displs = SpanGroup.starts(counts, 0, processes, 1);
        MemorySegment all = me == 0 ? SpanGroup.requestBuffer(cb * processes) : null;   // the totals, process order
        MemorySegment mine = me == 0 ? all.asSlice(process * cb, cb) : null;
        List<SpanRequest.Stage> s = new ArrayList<>(6);
        if (t == 1) {
            s.add(new SpanRequest.Inter(() -> {
                MemorySegment.copy(send, 0, mine, 0, cb);
                return span.iallgatherv(span.requests(), null, cb, all, counts, displs);
            }));
        } else {
            s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, mine, count, dtype, op, 0)));
            s.add(new SpanRequest.Local(join.join(exclusive ? Collective.EXSCAN : Collective.SCAN, send, recv, count, dtype, op, -1)));
            if (me == 0) {
                s.add(new SpanRequest.Inter(() -> span.iallgatherv(span.requests(), null, cb, all, counts, displs)));
            }
        }
        if (process == 0) {
            if (t == 1 && !exclusive) {
                s.add(new SpanRequest.Step(() -> MemorySegment.copy(send, 0, recv, 0, cb)));   // a copy onto itself in place
            }
            return s;
        }
        MemorySegment prefix = me == 0 ? all.asSlice(0, cb) : SpanGroup.requestBuffer(cb);
        if (me == 0) {
            s.add(new SpanRequest.Step(() -> {
                for (int q = 1; q < process; q++) {
                    red.reduceInto(prefix, 0, all, q * cb, count);
                }
            }));
        }
        if (t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.BCAST, prefix, prefix, count, dtype, null, 0)));
        }
        // t == 1: the local result is the rank's own send (scan) or nothing (exscan)
        MemorySegment localResult = t == 1 ? send : recv;
        boolean onlyPrefix = exclusive && me == 0;
        s.add(new SpanRequest.Step(() -> {
            if (onlyPrefix) {
                MemorySegment.copy(prefix, 0, recv, 0, cb);             // the lower processes' fold is the whole prefix
            } else {
                red.reduce(recv, 0, prefix, 0, localResult, 0, count);  // prefix op local
            }
        }));
        return s;
    }
}
