package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Leader-based reduce across processes [HMPI §2.5]: each process reduces locally to one rank — the root
 * itself in the root's process (into its receive buffer), local rank 0 (into its scratch) elsewhere — and
 * those P ranks reduce over MPI to the root's process, in place at the root. No result travels back.
 *
 * <p>Cost: local(T, s) + MPI reduce(P, s).
 */
public final class LeaderReduce {
    private LeaderReduce() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, bytes) + c.mpiRooted(processes, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                           int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        int rootProcess = root / t;
        boolean rootHere = rootProcess == g.process();
        int localRoot = rootHere ? root % t : 0;
        boolean joins = local.localId() == localRoot;   // the one rank of this process that calls MPI
        if (t == 1) {
            span.reduce(span.world(), rootHere && send == recv ? null : send, rootHere ? recv : null, count, dtype, op, local.userOp(), rootProcess);
            return;
        }
        MemorySegment into = !joins ? null : rootHere ? recv : g.scratch(localRoot, count * dtype.size());
        local.reduce(send, into, count, dtype, op, localRoot);
        if (joins) {
            span.reduce(span.world(), rootHere ? null : into, rootHere ? recv : null, count, dtype, op, local.userOp(), rootProcess);
        }
    }
}
