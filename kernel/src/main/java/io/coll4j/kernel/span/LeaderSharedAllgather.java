package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * {@code allgatherShared} across processes: one copy of the gathered result per process, read in place by
 * every local rank — MPI+MPI's node-level shared window [MPI+MPI §4.1, Fig. 3b], with MPI only between the
 * leaders [MPI+MPI §3]. The local ranks gather into this process's block of the leader's shared buffer, the
 * leaders allgather the process blocks in place over MPI, and a local barrier hands the result to the
 * process. {@link LeaderAllgather}'s last step, a local broadcast of all s bytes into each of T receive
 * buffers, is gone.
 *
 * <p>Validity: the shared buffer of a parity is written again two shared calls later, which the leader
 * starts only after every local rank passed the barrier of the call in between, so a rank's view holds
 * until the rank starts its next collective on the team — the single-process contract.
 *
 * <p>Cost: local(T, s/P) + MPI allgather(P, s) + local(T, 0); s is the whole output.
 */
public final class LeaderSharedAllgather {
    private LeaderSharedAllgather() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, (double) bytes / processes) + c.mpiSpread(processes, bytes) + c.local(localSize, 0);
    }

    /** Runs the call of the {@code parity}-th shared collective of this rank; returns the read-only view. */
    public static MemorySegment run(SpanGroup g, LocalOps local, int parity, MemorySegment send, long sendCount,
                                    DType dtype) {
        ProcessSpan span = g.span();
        long esize = dtype.size();
        long processBlock = sendCount * local.localSize();
        long total = sendCount * g.globalSize() * esize;
        if (local.localId() == 0) {
            MemorySegment shared = g.shared(parity, total);
            local.gather(send, shared.asSlice(g.globalId(0) * sendCount * esize, processBlock * esize), sendCount, dtype, 0);
            if (g.even()) {
                span.allgather(span.world(), null, shared, processBlock, dtype);
            } else {   // processes with different numbers of ranks: blocks of different lengths
                long[][] blocks = g.processBlocks(sendCount * esize);
                span.allgatherv(span.world(), null, processBlock * esize, shared, blocks[0], blocks[1]);
            }
        } else {
            local.gather(send, null, sendCount, dtype, 0);
        }
        // release/acquire through the barrier: the leader's MPI result and the buffer it sits in
        local.barrier();
        return g.sharedView(parity, total);
    }
}
