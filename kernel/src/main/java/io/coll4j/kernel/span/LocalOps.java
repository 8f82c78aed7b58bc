package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;

/**
 * The intra-process half of a hierarchical collective: one rank's collectives on the thread ranks of its
 * own process (local ids, local roots): the single-process collectives of a team ({@code io.coll4j.LocalCollectives}).
 * The hierarchical algorithms compose these with the {@link ProcessSpan}'s inter-process calls.
 */
public interface LocalOps {
    int localId();

    int localSize();

    /** The UserOp of the call in progress (its op is {@link Op#USER}), else null: what the transport reduces with. */
    UserOp userOp();

    /** The reducer of (dtype, op) for the folds an algorithm does itself: the call's UserOp's for USER. */
    Reducer reducer(DType dtype, Op op);

    void barrier();

    void bcast(MemorySegment buf, long count, DType dtype, int root);

    void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root);

    void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype, int root);

    void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount, DType dtype, int root);

    void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op);

    void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype);
}
