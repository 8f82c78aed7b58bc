package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * Leader-based allgather across processes [HMPI §2.5]: the local ranks gather into this process's block of
 * the leader's receive buffer (a process's ranks are consecutive global ids), the leaders allgather those
 * blocks over MPI in place, and each leader broadcasts the whole result to its process.
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
        long mineAt = g.process() * block * esize;
        if (t == 1) {
            boolean inPlace = send.address() == recv.address() + mineAt && send.isNative() == recv.isNative()
                    && send.heapBase().equals(recv.heapBase());
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
}
