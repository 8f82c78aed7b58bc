package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Reproducible allreduce across processes (a team built with {@code reproducible(true)}): every element is
 * the left fold over global ranks 0, 1, …, P·T−1 in ascending order — bitwise the single-process
 * reproducible result and the scalar reference. Each process's leader gathers its T contributions, takes
 * the partial of ranks below it from the previous process (MPI_Recv), folds its own ranks onto it in
 * order, and passes it on (MPI_Send); the last process's leader broadcasts the result over MPI and every
 * leader broadcasts it locally. The inter-node composition of [HMPI §2.5] with its order fixed; a chain
 * instead of a tree because a tree regroups the fold.
 *
 * <p>Cost: local gather(T, s) + P·(α + β·s) + T·fold(s) per process on the chain + MPI bcast(P, s) +
 * local(T, s): linear in P, the price of a fixed order.
 */
public final class ChainAllreduce {
    private ChainAllreduce() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return 3 * c.local(localSize, bytes) + processes * (c.alpha() + c.beta() * bytes) + c.mpiRooted(processes, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        int t = local.localSize();
        long bytes = count * dtype.size();
        boolean leader = local.localId() == 0;
        MemorySegment slab = leader ? g.scratch(0, t * bytes) : null;
        local.gather(send, slab, count, dtype, 0);   // slab block j = local rank j's contribution
        if (leader) {
            ProcessSpan span = g.span();
            int me = g.process();
            int last = g.processes() - 1;
            Reducer fold = local.reducer(dtype, op);
            int first = 0;
            if (me == 0) {
                MemorySegment.copy(slab, 0, recv, 0, bytes);
                first = 1;
            } else {
                span.recv(span.world(), recv, bytes, me - 1);
            }
            for (int j = first; j < t; j++) {
                fold.reduceInto(recv, 0, slab, j * bytes, count);   // recv = recv op x_j: ascending global rank
            }
            if (me < last) {
                span.send(span.world(), recv, bytes, me + 1);
            }
            span.bcast(span.world(), recv, count, dtype, last);
        }
        local.bcast(recv, count, dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}), the same chain: a local gather of the contributions at local rank
     * 0 → MPI_Irecv of the lower ranks' fold from the previous process → the leader folds its ranks onto it in
     * ascending order (a step) → MPI_Isend to the next process → MPI_Ibcast of the result from the last process →
     * local bcast. Point-to-point, not an MPI_Iallgather of the process partials folded locally: the left fold over
     * global ranks cannot start from a process's own partial (((x0 op x1) op x2) is not x0 op (x1 op x2)), so that
     * would move every rank's contribution to every process (P·T·s) where the chain moves s per hop — the blocking
     * form's choice, kept. Each rank's result lands in its {@code out}; the fold runs in a buffer of the request's
     * own, so {@code out} may be {@code send}.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment out, long count, DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        long bytes = count * dtype.size();
        boolean leader = local.localId() == 0;
        List<SpanRequest.Stage> s = new ArrayList<>(7);
        MemorySegment slab = !leader ? null : t == 1 ? send : SpanGroup.requestBuffer(t * bytes);
        if (t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.GATHER, send, slab, count, dtype, null, 0)));
        }
        if (leader) {
            int me = g.process();
            int last = g.processes() - 1;
            Reducer fold = local.reducer(dtype, op);
            MemorySegment acc = SpanGroup.requestBuffer(bytes);
            if (me > 0) {
                s.add(new SpanRequest.Inter(() -> span.irecv(span.requests(), acc, bytes, me - 1)));
            }
            s.add(new SpanRequest.Step(() -> {
                int first = 0;
                if (me == 0) {
                    MemorySegment.copy(slab, 0, acc, 0, bytes);
                    first = 1;
                }
                for (int j = first; j < t; j++) {
                    fold.reduceInto(acc, 0, slab, j * bytes, count);   // acc = acc op x_j: ascending global rank
                }
            }));
            if (me < last) {
                s.add(new SpanRequest.Inter(() -> span.isend(span.requests(), acc, bytes, me + 1)));
            }
            s.add(new SpanRequest.Inter(() -> span.ibcast(span.requests(), acc, count, dtype, last)));
            s.add(new SpanRequest.Step(() -> MemorySegment.copy(acc, 0, out, 0, bytes)));
        }
        if (t > 1) {
            s.add(new SpanRequest.Local(join.join(Collective.BCAST, out, out, count, dtype, null, 0)));
        }
        return s;
    }
}
