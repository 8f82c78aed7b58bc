package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * {@code allreduceShared} across processes: the local ranks reduce into the leader's shared buffer, the
 * leaders allreduce it in place over MPI, and a local barrier hands it to the process, whose ranks read the
 * one result in place [MPI+MPI §4.1]: {@link LeaderAllreduce} without its local broadcast [HMPI §2.5].
 * Order and bits are those of {@link LeaderAllreduce} (the local fold's order, then MPI's); under
 * {@code reproducible(true)} each rank takes {@link ChainAllreduce}'s result (the ascending global-rank
 * left fold) into a buffer of its own, since the chain ends with a copy on every rank anyway.
 * Validity as for {@link LeaderSharedAllgather}.
 *
 * <p>Cost: local(T, s) + MPI allreduce(P, s) + local(T, 0).
 */
public final class LeaderSharedAllreduce {
    private LeaderSharedAllreduce() {
    }

    public static double cost(HierarchicalCost c, int processes, int localSize, long bytes) {
        return c.local(localSize, bytes) + c.mpiAllreduce(processes, bytes) + c.local(localSize, 0);
    }

    /** Runs the call of the {@code parity}-th shared collective of this rank; returns the read-only view. */
    public static MemorySegment run(SpanGroup g, LocalOps local, int parity, boolean reproducible, MemorySegment send,
                                    long count, DType dtype, Op op) {
        long bytes = count * dtype.size();
        if (reproducible) {
            MemorySegment own = g.result(local.localId(), bytes);
            ChainAllreduce.run(g, local, send, own, count, dtype, op);
            return bytes == 0 ? SpanGroup.EMPTY_VIEW : own.asReadOnly();
        }
        ProcessSpan span = g.span();
        if (local.localId() == 0) {
            MemorySegment shared = g.shared(parity, bytes);
            local.reduce(send, shared, count, dtype, op, 0);
            span.allreduce(span.world(), null, shared, count, dtype, op);
        } else {
            local.reduce(send, null, count, dtype, op, 0);
        }
        // release/acquire through the barrier: the leader's MPI result and the buffer it sits in
        local.barrier();
        return g.sharedView(parity, bytes);
    }
}
