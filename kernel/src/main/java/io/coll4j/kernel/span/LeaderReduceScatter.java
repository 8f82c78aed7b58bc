package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader-based reduce-scatter across processes [HMPI §2.5]: the local ranks reduce the whole vector
 * (P·T blocks) into the leader's scratch; the leaders reduce-scatter it over MPI by process blocks of T
 * blocks (a process's ranks have consecutive global ids, so its blocks are contiguous); the leader
 * scatters its T blocks to the local ranks. When the processes hold different numbers of ranks (a sub-team
 * from {@code split}) the process blocks differ, and it is {@link LeaderReduceScatterV} with equal counts (its
 * leaders allreduce the whole vector).
 *
 * <p>Cost: local(T, s) + MPI reduce-scatter(P, s) + local(T, s/P).
 */
public final class LeaderReduceScatter {
    private LeaderReduceScatter() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, bytes) + c.mpiSpread(processes, bytes) + c.local(localSize, (double) bytes / processes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long recvCount, DType dtype,
                           Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        long esize = dtype.size();
        if (!g.even()) {
            LeaderReduceScatterV.run(g, local, send, recv, SpanGroup.equal(g.globalSize(), recvCount), dtype, op);
            return;
        }
        if (t == 1) {
            span.reduceScatterBlock(span.world(), send, recv, recvCount, dtype, op, local.userOp());
            return;
        }
        long total = recvCount * g.globalSize();
        long mine = recvCount * t;
        MemorySegment scratch = local.localId() == 0 ? g.scratch(0, (total + mine) * esize) : null;
        MemorySegment reduced = scratch == null ? null : scratch.asSlice(0, total * esize);
        MemorySegment blocks = scratch == null ? null : scratch.asSlice(total * esize, mine * esize);
        local.reduce(send, reduced, total, dtype, op, 0);
        if (blocks != null) {
            span.reduceScatterBlock(span.world(), reduced, blocks, mine, dtype, op, local.userOp());
        }
        local.scatter(blocks, recv, recvCount, dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}): local reduce of the whole vector into the leader's buffers →
     * the leaders' MPI_Ireduce_scatter_block → local scatter. The leader's buffers belong to the request (a
     * blocking call in between must not reuse them), native for MPI, freed with it. Processes with different
     * numbers of ranks: the leaders' MPI_Iallreduce of the whole vector in place, and the local scatter from the
     * process's blocks of it (as {@link LeaderReduceScatterV} does blocking).
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long recvCount, DType dtype, Op op) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (!g.even()) {
            return unevenSchedule(g, local, join, send, recv, recvCount, dtype, op);
        }
        if (t == 1) {
            s.add(new SpanRequest.Inter(() -> span.ireduceScatterBlock(span.requests(), send, recv, recvCount, dtype, op)));
            return s;
        }
        long esize = dtype.size();
        long total = recvCount * g.globalSize();
        long mine = recvCount * t;
        boolean leader = local.localId() == 0;
        MemorySegment scratch = leader ? Arena.ofAuto().allocate(Math.max(1, (total + mine) * esize), 64) : null;
        MemorySegment reduced = leader ? scratch.asSlice(0, total * esize) : null;
        MemorySegment blocks = leader ? scratch.asSlice(total * esize, mine * esize) : null;
        s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, reduced, total, dtype, op, 0)));
        if (leader) {
            s.add(new SpanRequest.Inter(() -> span.ireduceScatterBlock(span.requests(), reduced, blocks, mine, dtype, op)));
        }
        s.add(new SpanRequest.Local(join.join(Collective.SCATTER, blocks, recv, recvCount, dtype, null, 0)));
        return s;
    }

    private static List<SpanRequest.Stage> unevenSchedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                          MemorySegment recv, long recvCount, DType dtype, Op op) {
        ProcessSpan span = g.span();
        long esize = dtype.size();
        long total = recvCount * g.globalSize();
        boolean leader = local.localId() == 0;
        MemorySegment reduced = leader ? Arena.ofAuto().allocate(Math.max(1, total * esize), 64).asSlice(0, total * esize) : null;
        MemorySegment blocks = leader ? reduced.asSlice(recvCount * g.globalId(0) * esize, recvCount * local.localSize() * esize) : null;
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        s.add(new SpanRequest.Local(join.join(Collective.REDUCE, send, reduced, total, dtype, op, 0)));
        if (leader) {
            s.add(new SpanRequest.Inter(() -> span.iallreduce(span.requests(), null, reduced, total, dtype, op)));
        }
        s.add(new SpanRequest.Local(join.join(Collective.SCATTER, blocks, recv, recvCount, dtype, null, 0)));
        return s;
    }
}
