package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;

/**
 * The public blocking collectives beyond the first six — gather, scatter, the v-variants, alltoall(v), scan,
 * exscan — the user-op segment forms of the reducing collectives and the shared-view forms [MPI+MPI §4.1]: each
 * checks its caller and hands the call to the rank's {@link Collectives} (its argument checks are
 * {@link VocabularyArguments}').
 */
abstract class RankVocabulary extends RankEngine {
    RankVocabulary(Team team, int id) {
        super(team, id);
    }

    // ---- the rest of the MPI vocabulary: gather, scatter, v-variants, alltoall(v), scan, exscan ----
    //
    // In place (MPI_IN_PLACE), segment forms: gather(v) at the root when send is exactly the root's block
    // of recv; scatter(v) at the root when recv is exactly the root's block of send; allgatherv when send is
    // exactly this rank's block of recv; alltoall(v), scan and exscan when send and recv are the same
    // segment. Array forms: scan, exscan, alltoall(v) when send and recv are the same array.

    /**
     * Gathers {@code count} elements from every rank's {@code send} into the root's {@code recv}: block j
     * ({@code count} elements at {@code j × count}) receives rank j's send. {@code recv} is ignored (may be
     * null) off the root. In place at the root when {@code send} is exactly the root's block of {@code recv}.
     */
    public void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        collectives.gather(send, recv, count, dtype, root);
    }

    /**
     * Scatters the root's {@code send} ({@code localSize() × count} elements): rank j receives block j in
     * {@code recv}. {@code send} is ignored (may be null) off the root. In place at the root when
     * {@code recv} is exactly the root's block of {@code send}.
     */
    public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        collectives.scatter(send, recv, count, dtype, root);
    }

    /**
     * Gathers {@code sendCount} elements from every rank into the root's {@code recv}: rank j's block goes
     * to element {@code displs[j]} and must have {@code recvCounts[j]} elements. The arrays are read at the
     * root only (may be null elsewhere). In place at the root when {@code send} is exactly
     * {@code recv} at {@code displs[root]}.
     *
     * <p>Mismatches: a rank whose {@code sendCount} differs from the root's {@code recvCounts[rank]} gets
     * a {@link CollectiveMismatchException} on every rank, detected before the block is copied.
     */
    public void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                        DType dtype, int root) {
        checkCaller();
        collectives.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root);
    }

    /**
     * Scatters blocks of the root's {@code send}: rank j receives {@code sendCounts[j]} elements from
     * element {@code displs[j]} into its {@code recv} ({@code recvCount} elements, which must equal the
     * root's {@code sendCounts[j]}: a {@link CollectiveMismatchException} otherwise). The arrays are read at
     * the root only. In place at the root when {@code recv} is exactly {@code send} at {@code displs[root]}.
     */
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                         DType dtype, int root) {
        checkCaller();
        collectives.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root);
    }

    /**
     * Every rank gathers every rank's block: rank j's {@code sendCount} elements go to element
     * {@code displs[j]} of every {@code recv}. {@code recvCounts} must be the same on every rank (checked:
     * its hash travels in the check word, so differing arrays are a {@link CollectiveMismatchException})
     * and {@code recvCounts[rank] == sendCount}; {@code displs} is this rank's own layout and may differ.
     * In place when {@code send} is exactly {@code recv} at {@code displs[rank]} [MPI+MPI §4.1].
     */
    public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                           DType dtype) {
        checkCaller();
        collectives.allgatherv(send, sendCount, recv, recvCounts, displs, dtype);
    }

    /**
     * Reduce-scatter with per-rank counts (MPI_Reduce_scatter): every rank's {@code send} holds
     * {@code sum(recvCounts)} elements; rank i receives the element-wise reduction of block i
     * ({@code recvCounts[i]} elements starting at {@code recvCounts[0] + … + recvCounts[i−1]}) in {@code recv}.
     * {@code recvCounts} must be the same on every rank (checked through the check word). Buffers must not
     * overlap (no in-place form, as {@link #reduceScatter}).
     */
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        checkCaller();
        collectives.reduceScatterV(send, recv, recvCounts, dtype, op);
    }

    /**
     * All-to-all: block j ({@code count} elements at {@code j × count}) of this rank's {@code send} goes to
     * block {@code rank} of rank j's {@code recv}. In place when {@code send} and {@code recv} are the same
     * segment (each block is replaced by the one received; staged through scratch).
     */
    public void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        collectives.alltoall(send, recv, count, dtype);
    }

    /**
     * All-to-all with per-peer counts: {@code sendCounts[j]} elements at {@code sendDispls[j]} of this rank's
     * {@code send} go to rank j, which receives them at its {@code recvDispls[rank]}; its
     * {@code recvCounts[rank]} must equal this rank's {@code sendCounts[j]} (checked by the reader before
     * the copy: a {@link CollectiveMismatchException} otherwise). In place when {@code send} and
     * {@code recv} are the same segment; then the send layout must equal the receive layout.
     */
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                          long[] recvDispls, DType dtype) {
        checkCaller();
        collectives.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
    }

    /**
     * Inclusive prefix reduction: rank i receives {@code send_0 op send_1 op … op send_i} (element-wise, in
     * rank order: bitwise the scalar left fold for every algorithm). In place when {@code send} and
     * {@code recv} are the same segment.
     */
    public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        collectives.scan(send, recv, count, dtype, op);
    }

    /**
     * Exclusive prefix reduction: rank i &gt; 0 receives {@code send_0 op … op send_(i−1)}; rank 0's
     * {@code recv} is not written (MPI leaves it undefined). In place when the segments are the same.
     */
    public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        collectives.exscan(send, recv, count, dtype, op);
    }

    // ---- user-defined ops (UserOp): the reducing collectives with the op's own function and dtype ----
    //
    // A non-commutative op folds in ascending rank order on every algorithm: the call runs in the
    // reproducible(true) order (CollectiveCall.reproducible), which every algorithm documents as that fold.

    /** {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void allreduce(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> collectives.allreduce(send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} with a user-defined op. */
    public void reduce(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        withUserOp(op, () -> collectives.reduce(send, recv, count, op.dtype(), Op.USER, root));
    }

    /** {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        withUserOp(op, () -> collectives.reduceScatter(send, recv, recvCount, op.dtype(), Op.USER));
    }

    /** {@link #reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} with a user-defined op. */
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, UserOp op) {
        withUserOp(op, () -> collectives.reduceScatterV(send, recv, recvCounts, op.dtype(), Op.USER));
    }

    /** {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void scan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> collectives.scan(send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void exscan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> collectives.exscan(send, recv, count, op.dtype(), Op.USER));
    }

    // ---- shared-view allgather [MPI+MPI §4.1] ----

    /**
     * Gathers {@code sendCount} elements from every rank into ONE shared result and returns a read-only
     * view of it: block i holds rank i's {@code send} [MPI+MPI §4.1]. Nothing is copied into per-rank
     * receive buffers — per call the node writes p·b bytes instead of an {@code allgather}'s p·p·b, and
     * holds one result instead of p (p − 1 copies of the result saved).
     *
     * <p>The view is valid until this rank's next collective on this team: after that it may show a
     * later collective's data or throw {@link IllegalStateException}. Writing to it throws. Every rank
     * must call {@code allgatherShared} (a rank calling {@code allgather} instead is a mismatch). On a team
     * spanning processes there is one result per process, read in place by that process's ranks.
     *
     * @return a read-only segment of {@code size() * sendCount} elements of {@code dtype}
     */
    public MemorySegment allgatherShared(MemorySegment send, long sendCount, DType dtype) {
        checkCaller();
        return collectives.allgatherShared(send, sendCount, dtype);
    }

    /**
     * Reduces {@code count} elements of every rank's {@code send} into ONE shared result and returns a
     * read-only view of it [MPI+MPI §4.1]: each rank folds its tile of all send buffers straight into the
     * shared result; nothing is copied into per-rank receive buffers (per call the node saves the
     * (p − 1)·p·s bytes of an allreduce's copy-out, and holds one result instead of p). The values are
     * bitwise those of the {@code direct} allreduce (every element folded in ascending rank order).
     *
     * <p>The view is valid until this rank's next collective on this team, as for
     * {@link #allgatherShared}. Writing to it throws. Every rank must call {@code allreduceShared} with the
     * same count, dtype and op (a rank calling {@code allreduce} instead is a mismatch). On a team spanning
     * processes there is one result per process (the local fold, then MPI's, as {@link #allreduce}; under
     * {@code reproducible(true)} the ascending global-rank fold), read in place by that process's ranks.
     *
     * @return a read-only segment of {@code count} elements of {@code dtype}
     */
    public MemorySegment allreduceShared(MemorySegment send, long count, DType dtype, Op op) {
        checkCaller();
        return collectives.allreduceShared(send, count, dtype, op);
    }
}
