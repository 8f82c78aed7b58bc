package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

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
}
