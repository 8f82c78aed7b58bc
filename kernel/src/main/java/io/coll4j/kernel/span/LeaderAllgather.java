package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Leader-based allgather across processes [HMPI §2.5]: the local ranks gather into this process's block of
 * the leader's receive buffer (a process's ranks are consecutive global ids), the leaders allgather those
 * blocks over MPI in place, and each leader broadcasts the whole result to its process. When the processes hold
 * different numbers of ranks (a sub-team from {@code split}) the blocks differ and the leaders' call is
 * MPI_Allgatherv over the per-process blocks.
 *
 * <p>Cost: local(T, s/P) + MPI allgather(P, s) + local(T, s); s is the whole output.
 */
public final class LeaderAllgather {
    private LeaderAllgather() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, (double) bytes / processes) + c.mpiSpread(processes, bytes) + c.local(localSize, bytes);
    }

    public static void run(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        long esize = dtype.size();
        long block = sendCount * t;
        long mineAt = g.globalId(0) * sendCount * esize;
        if (!g.even()) {
            uneven(g, local, send, recv, sendCount, dtype);
            return;
        }
        if (t == 1) {
            boolean inPlace = SpanGroup.startsAt(send, recv, mineAt);
            span.allgather(span.world(), inPlace ? null : send, recv, sendCount, dtype);
            return;
        }
        MemorySegment processBlock = local.localId() == 0 ? recv.asSlice(mineAt, block * esize) : null;
        local.gather(send, processBlock, sendCount, dtype, 0);
        if (local.localId() == 0) {
            span.allgather(span.world(), null, recv, block, dtype);
        }
        local.bcast(recv, block * g.processes(), dtype, 0);
    }

    /** Processes with different numbers of ranks: the same steps with MPI_Allgatherv over the process blocks. */
    private static void uneven(SpanGroup g, LocalOps local, MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        ProcessSpan span = g.span();
        long esize = dtype.size();
        long[][] blocks = g.processBlocks(sendCount * esize);
        long mine = blocks[0][g.process()];
        long mineAt = blocks[1][g.process()];
        if (local.localSize() == 1) {
            boolean inPlace = SpanGroup.startsAt(send, recv, mineAt);
            span.allgatherv(span.world(), inPlace ? null : send, mine, recv, blocks[0], blocks[1]);
            return;
        }
        MemorySegment processBlock = local.localId() == 0 ? recv.asSlice(mineAt, mine) : null;
        local.gather(send, processBlock, sendCount, dtype, 0);
        if (local.localId() == 0) {
            span.allgatherv(span.world(), null, mine, recv, blocks[0], blocks[1]);
        }
        local.bcast(recv, sendCount * g.globalSize(), dtype, 0);
    }

    /**
     * The non-blocking form ({@link SpanRequest}): local gather into the process's block → the leaders'
     * MPI_Iallgather in place → local bcast of the whole; with one rank per process the MPI request alone (an
     * out-of-place send copied into its block when the request starts). Processes with different numbers of
     * ranks: the leaders' part is one MPI_Ibcast per process block ({@link BlockBcasts}).
     */
    public static List<SpanRequest.Stage> schedule(SpanGroup g, LocalOps local, LocalJoin join, MemorySegment send,
                                                   MemorySegment recv, long sendCount, DType dtype) {
        ProcessSpan span = g.span();
        int t = local.localSize();
        long esize = dtype.size();
        long block = sendCount * t;
        long mineAt = g.globalId(0) * sendCount * esize;
        long[] counts = new long[g.processes()];
        long[] starts = new long[g.processes()];
        for (int q = 0; q < counts.length; q++) {
            counts[q] = sendCount * g.count(q);
            starts[q] = sendCount * g.first(q);
        }
        java.util.function.Supplier<ProcessSpan.Pending> inter = g.even()
                ? () -> span.iallgather(span.requests(), recv, block, dtype)
                : () -> BlockBcasts.post(span, span.requests(), recv, counts, starts, dtype);
        List<SpanRequest.Stage> s = new ArrayList<>(3);
        if (t == 1) {
            s.add(new SpanRequest.Inter(() -> {
                MemorySegment.copy(send, 0, recv, mineAt, block * esize);   // a copy onto itself when in place
                return inter.get();
            }));
            return s;
        }
        boolean leader = local.localId() == 0;
        MemorySegment processBlock = leader ? recv.asSlice(mineAt, block * esize) : null;
        s.add(new SpanRequest.Local(join.join(Collective.GATHER, send, processBlock, sendCount, dtype, null, 0)));
        if (leader) {
            s.add(new SpanRequest.Inter(inter));
        }
        s.add(new SpanRequest.Local(join.join(Collective.BCAST, recv, recv, sendCount * g.globalSize(), dtype, null, 0)));
        return s;
    }
}
