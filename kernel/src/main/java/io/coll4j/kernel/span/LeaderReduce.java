package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

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
        Rooted r = Rooted.of(g, local, root);
        int rootProcess = r.rootProcess();
        boolean rootHere = r.atRoot();
        int localRoot = rootHere ? r.rootLocal() : 0;
        boolean joins = local.localId() == localRoot;   // the one rank of this process that calls MPI
        if (t == 1) {
            span.reduce(span.world(), rootHere && SpanGroup.startsAt(send, recv, 0) ? null : send, rootHere ? recv : null, count, dtype, op, local.userOp(), rootProcess);
            return;
        }
        MemorySegment into = !joins ? null : rootHere ? recv : g.scratch(localRoot, count * dtype.size());
        local.reduce(send, into, count, dtype, op, localRoot);
        if (joins) {
            span.reduce(span.world(), rootHere ? null : into, rootHere ? recv : null, count, dtype, op, local.userOp(), rootProcess);
        }
    }

    /**
     * The non-blocking form ({@link SpanRequest}). Only local rank 0 may post MPI calls (SpanQueue keeps their
     * order), so the local reduce goes to local rank 0 in every process, the leaders' MPI_Ireduce to the root's
     * process, and when the root is not local rank 0 a local bcast hands it the result (the other local ranks
     * of that process receive it into a buffer of the request's). Buffers of the request's own are native (MPI)
     * and live as long as it does.
     *
     * <p>Cost: local(T, s) + MPI reduce(P, s), + local(T, s) in the root's process when the root is not local rank 0.
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long count, DType dtype, Op op, int root) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        Rooted r = Rooted.of(g, local, root);
        int rootProcess = r.rootProcess();
        boolean rootHere = r.atRoot();
        int l = local.localId();
        boolean isRoot = rootHere && l == r.rootLocal();
        long bytes = count * dtype.size();
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (t == 1) {
            s.add(new SpanRequest.Inter(() -> {
                if (isRoot) {
                    MemorySegment.copy(send, 0, recv, 0, bytes);   // in place at the root: a copy onto itself when it is
                    return span.ireduce(span.requests(), recv, count, dtype, op, rootProcess);
                }
                return span.ireduce(span.requests(), send, count, dtype, op, rootProcess);
            }));
            return s;
        }
        boolean handOver = rootHere && r.rootLocal() != 0;
        MemorySegment into = l != 0 ? null : isRoot ? recv : Arena.ofAuto().allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, into, count, dtype, op, 0)));
        if (l == 0) {
            s.add(new SpanRequest.Inter(() -> span.ireduce(span.requests(), into, count, dtype, op, rootProcess)));
        }
        if (handOver) {
            MemorySegment buf = l == 0 ? into : isRoot ? recv : Arena.ofAuto().allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
            s.add(new SpanRequest.Local(join.join(Collective.BCAST, buf, buf, count, dtype, null, 0)));
        }
        return s;
    }
}
