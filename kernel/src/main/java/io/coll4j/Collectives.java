package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * A rank's blocking collectives after the caller check: on one process's ranks ({@link LocalCollectives}), or on a
 * team spanning processes the composition of those with the process span ({@link HierarchicalCollectives}). A rank
 * holds one of the two from its creation, and its public methods hand every call to it: each validates the
 * arguments against the ids its team has (global across processes) and runs the collective.
 */
interface Collectives {
    void barrier();

    void bcast(MemorySegment buf, long count, DType dtype, int root);

    void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root);

    void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op);

    void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype);

    void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype,
                 int root);

    void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount, DType dtype,
                  int root);

    void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype);

    void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op);

    void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype);

    void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                   long[] recvDispls, DType dtype);

    void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    /** {@link Rank#allgatherShared}: the read-only view of the one shared result (one per process across processes). */
    MemorySegment allgatherShared(MemorySegment send, long sendCount, DType dtype);

    /** {@link Rank#allreduceShared}: the read-only view of the one shared result (one per process across processes). */
    MemorySegment allreduceShared(MemorySegment send, long count, DType dtype, Op op);

    /** A plan's call ({@link CollectivePlan#execute(MemorySegment, MemorySegment)}). */
    void execute(CollectivePlan plan, MemorySegment send, MemorySegment recv);

    /** A planned v-variant's call, with its count arrays. */
    void executeVector(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                       long[] recvCounts, long[] recvDispls);
}
