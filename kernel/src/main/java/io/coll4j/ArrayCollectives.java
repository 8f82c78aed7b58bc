package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The array forms of {@link Rank}'s collectives, one overload per element type: {@code double[]} (F64),
 * {@code float[]} (F32), {@code long[]} (I64) and {@code int[]} (I32), both buffers of a call of one type, so a
 * mismatched pair does not compile. Each is the segment form over the whole array (or over {@code count}
 * elements from the offsets), checked as it is, plus a null or out-of-range array named. Other dtypes (F16,
 * BF16, U32, U64, pairs) have no array type of their own and use the segment or {@code ByteBuffer} forms.
 * Sealed to {@link Rank}: it is how those overloads sit on Rank without making it a list of plumbing.
 */
public sealed interface ArrayCollectives permits Rank {

    private Rank rank() {
        return (Rank) this;
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of a whole array. */
    default void bcast(double[] buf, int root) {
        ArrayCalls.bcast(rank(), buf, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of a whole array. */
    default void bcast(float[] buf, int root) {
        ArrayCalls.bcast(rank(), buf, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of a whole array. */
    default void bcast(long[] buf, int root) {
        ArrayCalls.bcast(rank(), buf, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of a whole array. */
    default void bcast(int[] buf, int root) {
        ArrayCalls.bcast(rank(), buf, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of elements {@code [offset, offset + count)} of an array. */
    default void bcast(double[] buf, int offset, int count, int root) {
        ArrayCalls.bcast(rank(), buf, offset, count, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of elements {@code [offset, offset + count)} of an array. */
    default void bcast(float[] buf, int offset, int count, int root) {
        ArrayCalls.bcast(rank(), buf, offset, count, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of elements {@code [offset, offset + count)} of an array. */
    default void bcast(long[] buf, int offset, int count, int root) {
        ArrayCalls.bcast(rank(), buf, offset, count, root);
    }

    /** {@link Rank#bcast(MemorySegment, long, DType, int)} of elements {@code [offset, offset + count)} of an array. */
    default void bcast(int[] buf, int offset, int count, int root) {
        ArrayCalls.bcast(rank(), buf, offset, count, root);
    }

    /** {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void reduce(double[] send, double[] recv, Op op, int root) {
        ArrayCalls.reduce(rank(), send, recv, op, root);
    }

    /** {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void reduce(float[] send, float[] recv, Op op, int root) {
        ArrayCalls.reduce(rank(), send, recv, op, root);
    }

    /** {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void reduce(long[] send, long[] recv, Op op, int root) {
        ArrayCalls.reduce(rank(), send, recv, op, root);
    }

    /** {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void reduce(int[] send, int[] recv, Op op, int root) {
        ArrayCalls.reduce(rank(), send, recv, op, root);
    }

    /** {@link #reduce(double[], double[], Op, int)} of {@code count} elements from the offsets. */
    default void reduce(double[] send, int sendOffset, double[] recv, int recvOffset, int count, Op op, int root) {
        ArrayCalls.reduce(rank(), send, sendOffset, recv, recvOffset, count, op, root);
    }

    /** {@link #reduce(float[], float[], Op, int)} of {@code count} elements from the offsets. */
    default void reduce(float[] send, int sendOffset, float[] recv, int recvOffset, int count, Op op, int root) {
        ArrayCalls.reduce(rank(), send, sendOffset, recv, recvOffset, count, op, root);
    }

    /** {@link #reduce(long[], long[], Op, int)} of {@code count} elements from the offsets. */
    default void reduce(long[] send, int sendOffset, long[] recv, int recvOffset, int count, Op op, int root) {
        ArrayCalls.reduce(rank(), send, sendOffset, recv, recvOffset, count, op, root);
    }

    /** {@link #reduce(int[], int[], Op, int)} of {@code count} elements from the offsets. */
    default void reduce(int[] send, int sendOffset, int[] recv, int recvOffset, int count, Op op, int root) {
        ArrayCalls.reduce(rank(), send, sendOffset, recv, recvOffset, count, op, root);
    }

    /** {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void allreduce(double[] send, double[] recv, Op op) {
        ArrayCalls.allreduce(rank(), send, recv, op);
    }

    /** {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void allreduce(float[] send, float[] recv, Op op) {
        ArrayCalls.allreduce(rank(), send, recv, op);
    }

    /** {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void allreduce(long[] send, long[] recv, Op op) {
        ArrayCalls.allreduce(rank(), send, recv, op);
    }

    /** {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void allreduce(int[] send, int[] recv, Op op) {
        ArrayCalls.allreduce(rank(), send, recv, op);
    }

    /** {@link #allreduce(double[], double[], Op)} of {@code count} elements from the offsets (same array and offset: in place). */
    default void allreduce(double[] send, int sendOffset, double[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.allreduce(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #allreduce(float[], float[], Op)} of {@code count} elements from the offsets (same array and offset: in place). */
    default void allreduce(float[] send, int sendOffset, float[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.allreduce(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #allreduce(long[], long[], Op)} of {@code count} elements from the offsets (same array and offset: in place). */
    default void allreduce(long[] send, int sendOffset, long[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.allreduce(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #allreduce(int[], int[], Op)} of {@code count} elements from the offsets (same array and offset: in place). */
    default void allreduce(int[] send, int sendOffset, int[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.allreduce(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with {@code recvCount = recv.length}. */
    default void reduceScatter(double[] send, double[] recv, Op op) {
        ArrayCalls.reduceScatter(rank(), send, recv, op);
    }

    /** {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with {@code recvCount = recv.length}. */
    default void reduceScatter(float[] send, float[] recv, Op op) {
        ArrayCalls.reduceScatter(rank(), send, recv, op);
    }

    /** {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with {@code recvCount = recv.length}. */
    default void reduceScatter(long[] send, long[] recv, Op op) {
        ArrayCalls.reduceScatter(rank(), send, recv, op);
    }

    /** {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with {@code recvCount = recv.length}. */
    default void reduceScatter(int[] send, int[] recv, Op op) {
        ArrayCalls.reduceScatter(rank(), send, recv, op);
    }

    /** {@link #reduceScatter(double[], double[], Op)} of {@code size() × recvCount} elements of send from its offset. */
    default void reduceScatter(double[] send, int sendOffset, double[] recv, int recvOffset, int recvCount, Op op) {
        ArrayCalls.reduceScatter(rank(), send, sendOffset, recv, recvOffset, recvCount, op);
    }

    /** {@link #reduceScatter(float[], float[], Op)} of {@code size() × recvCount} elements of send from its offset. */
    default void reduceScatter(float[] send, int sendOffset, float[] recv, int recvOffset, int recvCount, Op op) {
        ArrayCalls.reduceScatter(rank(), send, sendOffset, recv, recvOffset, recvCount, op);
    }

    /** {@link #reduceScatter(long[], long[], Op)} of {@code size() × recvCount} elements of send from its offset. */
    default void reduceScatter(long[] send, int sendOffset, long[] recv, int recvOffset, int recvCount, Op op) {
        ArrayCalls.reduceScatter(rank(), send, sendOffset, recv, recvOffset, recvCount, op);
    }

    /** {@link #reduceScatter(int[], int[], Op)} of {@code size() × recvCount} elements of send from its offset. */
    default void reduceScatter(int[] send, int sendOffset, int[] recv, int recvOffset, int recvCount, Op op) {
        ArrayCalls.reduceScatter(rank(), send, sendOffset, recv, recvOffset, recvCount, op);
    }

    /** {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)} with {@code sendCount = send.length}. */
    default void allgather(double[] send, double[] recv) {
        ArrayCalls.allgather(rank(), send, recv);
    }

    /** {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)} with {@code sendCount = send.length}. */
    default void allgather(float[] send, float[] recv) {
        ArrayCalls.allgather(rank(), send, recv);
    }

    /** {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)} with {@code sendCount = send.length}. */
    default void allgather(long[] send, long[] recv) {
        ArrayCalls.allgather(rank(), send, recv);
    }

    /** {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)} with {@code sendCount = send.length}. */
    default void allgather(int[] send, int[] recv) {
        ArrayCalls.allgather(rank(), send, recv);
    }

    /** {@link #allgather(double[], double[])} of {@code sendCount} elements into {@code size() × sendCount} of recv from the offsets. */
    default void allgather(double[] send, int sendOffset, double[] recv, int recvOffset, int sendCount) {
        ArrayCalls.allgather(rank(), send, sendOffset, recv, recvOffset, sendCount);
    }

    /** {@link #allgather(float[], float[])} of {@code sendCount} elements into {@code size() × sendCount} of recv from the offsets. */
    default void allgather(float[] send, int sendOffset, float[] recv, int recvOffset, int sendCount) {
        ArrayCalls.allgather(rank(), send, sendOffset, recv, recvOffset, sendCount);
    }

    /** {@link #allgather(long[], long[])} of {@code sendCount} elements into {@code size() × sendCount} of recv from the offsets. */
    default void allgather(long[] send, int sendOffset, long[] recv, int recvOffset, int sendCount) {
        ArrayCalls.allgather(rank(), send, sendOffset, recv, recvOffset, sendCount);
    }

    /** {@link #allgather(int[], int[])} of {@code sendCount} elements into {@code size() × sendCount} of recv from the offsets. */
    default void allgather(int[] send, int sendOffset, int[] recv, int recvOffset, int sendCount) {
        ArrayCalls.allgather(rank(), send, sendOffset, recv, recvOffset, sendCount);
    }

    /** {@link Rank#gather(MemorySegment, MemorySegment, long, DType, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void gather(double[] send, double[] recv, int root) {
        ArrayCalls.gather(rank(), send, recv, root);
    }

    /** {@link Rank#gather(MemorySegment, MemorySegment, long, DType, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void gather(float[] send, float[] recv, int root) {
        ArrayCalls.gather(rank(), send, recv, root);
    }

    /** {@link Rank#gather(MemorySegment, MemorySegment, long, DType, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void gather(long[] send, long[] recv, int root) {
        ArrayCalls.gather(rank(), send, recv, root);
    }

    /** {@link Rank#gather(MemorySegment, MemorySegment, long, DType, int)} of {@code send.length} elements; {@code recv} may be null off the root. */
    default void gather(int[] send, int[] recv, int root) {
        ArrayCalls.gather(rank(), send, recv, root);
    }

    /** {@link #gather(double[], double[], int)} of {@code count} elements from send's offset into {@code size() × count} of recv from its offset. */
    default void gather(double[] send, int sendOffset, double[] recv, int recvOffset, int count, int root) {
        ArrayCalls.gather(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #gather(float[], float[], int)} of {@code count} elements from send's offset into {@code size() × count} of recv from its offset. */
    default void gather(float[] send, int sendOffset, float[] recv, int recvOffset, int count, int root) {
        ArrayCalls.gather(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #gather(long[], long[], int)} of {@code count} elements from send's offset into {@code size() × count} of recv from its offset. */
    default void gather(long[] send, int sendOffset, long[] recv, int recvOffset, int count, int root) {
        ArrayCalls.gather(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #gather(int[], int[], int)} of {@code count} elements from send's offset into {@code size() × count} of recv from its offset. */
    default void gather(int[] send, int sendOffset, int[] recv, int recvOffset, int count, int root) {
        ArrayCalls.gather(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link Rank#scatter(MemorySegment, MemorySegment, long, DType, int)} of {@code recv.length} elements per rank; {@code send} may be null off the root. */
    default void scatter(double[] send, double[] recv, int root) {
        ArrayCalls.scatter(rank(), send, recv, root);
    }

    /** {@link Rank#scatter(MemorySegment, MemorySegment, long, DType, int)} of {@code recv.length} elements per rank; {@code send} may be null off the root. */
    default void scatter(float[] send, float[] recv, int root) {
        ArrayCalls.scatter(rank(), send, recv, root);
    }

    /** {@link Rank#scatter(MemorySegment, MemorySegment, long, DType, int)} of {@code recv.length} elements per rank; {@code send} may be null off the root. */
    default void scatter(long[] send, long[] recv, int root) {
        ArrayCalls.scatter(rank(), send, recv, root);
    }

    /** {@link Rank#scatter(MemorySegment, MemorySegment, long, DType, int)} of {@code recv.length} elements per rank; {@code send} may be null off the root. */
    default void scatter(int[] send, int[] recv, int root) {
        ArrayCalls.scatter(rank(), send, recv, root);
    }

    /** {@link #scatter(double[], double[], int)} of {@code count} elements per rank from the offsets. */
    default void scatter(double[] send, int sendOffset, double[] recv, int recvOffset, int count, int root) {
        ArrayCalls.scatter(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #scatter(float[], float[], int)} of {@code count} elements per rank from the offsets. */
    default void scatter(float[] send, int sendOffset, float[] recv, int recvOffset, int count, int root) {
        ArrayCalls.scatter(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #scatter(long[], long[], int)} of {@code count} elements per rank from the offsets. */
    default void scatter(long[] send, int sendOffset, long[] recv, int recvOffset, int count, int root) {
        ArrayCalls.scatter(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link #scatter(int[], int[], int)} of {@code count} elements per rank from the offsets. */
    default void scatter(int[] send, int sendOffset, int[] recv, int recvOffset, int count, int root) {
        ArrayCalls.scatter(rank(), send, sendOffset, recv, recvOffset, count, root);
    }

    /** {@link Rank#gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)} of {@code send.length} elements. */
    default void gatherv(double[] send, double[] recv, int[] recvCounts, int[] displs, int root) {
        ArrayCalls.gatherv(rank(), send, recv, recvCounts, displs, root);
    }

    /** {@link Rank#gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)} of {@code send.length} elements. */
    default void gatherv(float[] send, float[] recv, int[] recvCounts, int[] displs, int root) {
        ArrayCalls.gatherv(rank(), send, recv, recvCounts, displs, root);
    }

    /** {@link Rank#gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)} of {@code send.length} elements. */
    default void gatherv(long[] send, long[] recv, int[] recvCounts, int[] displs, int root) {
        ArrayCalls.gatherv(rank(), send, recv, recvCounts, displs, root);
    }

    /** {@link Rank#gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)} of {@code send.length} elements. */
    default void gatherv(int[] send, int[] recv, int[] recvCounts, int[] displs, int root) {
        ArrayCalls.gatherv(rank(), send, recv, recvCounts, displs, root);
    }

    /** {@link Rank#scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} into {@code recv.length} elements. */
    default void scatterv(double[] send, int[] sendCounts, int[] displs, double[] recv, int root) {
        ArrayCalls.scatterv(rank(), send, sendCounts, displs, recv, root);
    }

    /** {@link Rank#scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} into {@code recv.length} elements. */
    default void scatterv(float[] send, int[] sendCounts, int[] displs, float[] recv, int root) {
        ArrayCalls.scatterv(rank(), send, sendCounts, displs, recv, root);
    }

    /** {@link Rank#scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} into {@code recv.length} elements. */
    default void scatterv(long[] send, int[] sendCounts, int[] displs, long[] recv, int root) {
        ArrayCalls.scatterv(rank(), send, sendCounts, displs, recv, root);
    }

    /** {@link Rank#scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} into {@code recv.length} elements. */
    default void scatterv(int[] send, int[] sendCounts, int[] displs, int[] recv, int root) {
        ArrayCalls.scatterv(rank(), send, sendCounts, displs, recv, root);
    }

    /** {@link Rank#allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} of {@code send.length} elements. */
    default void allgatherv(double[] send, double[] recv, int[] recvCounts, int[] displs) {
        ArrayCalls.allgatherv(rank(), send, recv, recvCounts, displs);
    }

    /** {@link Rank#allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} of {@code send.length} elements. */
    default void allgatherv(float[] send, float[] recv, int[] recvCounts, int[] displs) {
        ArrayCalls.allgatherv(rank(), send, recv, recvCounts, displs);
    }

    /** {@link Rank#allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} of {@code send.length} elements. */
    default void allgatherv(long[] send, long[] recv, int[] recvCounts, int[] displs) {
        ArrayCalls.allgatherv(rank(), send, recv, recvCounts, displs);
    }

    /** {@link Rank#allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} of {@code send.length} elements. */
    default void allgatherv(int[] send, int[] recv, int[] recvCounts, int[] displs) {
        ArrayCalls.allgatherv(rank(), send, recv, recvCounts, displs);
    }

    /** {@link Rank#reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} of arrays. */
    default void reduceScatterV(double[] send, double[] recv, int[] recvCounts, Op op) {
        ArrayCalls.reduceScatterV(rank(), send, recv, recvCounts, op);
    }

    /** {@link Rank#reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} of arrays. */
    default void reduceScatterV(float[] send, float[] recv, int[] recvCounts, Op op) {
        ArrayCalls.reduceScatterV(rank(), send, recv, recvCounts, op);
    }

    /** {@link Rank#reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} of arrays. */
    default void reduceScatterV(long[] send, long[] recv, int[] recvCounts, Op op) {
        ArrayCalls.reduceScatterV(rank(), send, recv, recvCounts, op);
    }

    /** {@link Rank#reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} of arrays. */
    default void reduceScatterV(int[] send, int[] recv, int[] recvCounts, Op op) {
        ArrayCalls.reduceScatterV(rank(), send, recv, recvCounts, op);
    }

    /** {@link Rank#alltoall(MemorySegment, MemorySegment, long, DType)} with {@code count = send.length / size()} (must divide; same array: in place). */
    default void alltoall(double[] send, double[] recv) {
        ArrayCalls.alltoall(rank(), send, recv);
    }

    /** {@link Rank#alltoall(MemorySegment, MemorySegment, long, DType)} with {@code count = send.length / size()} (must divide; same array: in place). */
    default void alltoall(float[] send, float[] recv) {
        ArrayCalls.alltoall(rank(), send, recv);
    }

    /** {@link Rank#alltoall(MemorySegment, MemorySegment, long, DType)} with {@code count = send.length / size()} (must divide; same array: in place). */
    default void alltoall(long[] send, long[] recv) {
        ArrayCalls.alltoall(rank(), send, recv);
    }

    /** {@link Rank#alltoall(MemorySegment, MemorySegment, long, DType)} with {@code count = send.length / size()} (must divide; same array: in place). */
    default void alltoall(int[] send, int[] recv) {
        ArrayCalls.alltoall(rank(), send, recv);
    }

    /**
     * {@link #alltoall(double[], double[])} of {@code count} elements per peer: {@code size() × count} elements of
     * send from its offset, of recv from its offset (the same array and offset: in place).
     */
    default void alltoall(double[] send, int sendOffset, double[] recv, int recvOffset, int count) {
        ArrayCalls.alltoall(rank(), send, sendOffset, recv, recvOffset, count);
    }

    /**
     * {@link #alltoall(float[], float[])} of {@code count} elements per peer: {@code size() × count} elements of
     * send from its offset, of recv from its offset (the same array and offset: in place).
     */
    default void alltoall(float[] send, int sendOffset, float[] recv, int recvOffset, int count) {
        ArrayCalls.alltoall(rank(), send, sendOffset, recv, recvOffset, count);
    }

    /**
     * {@link #alltoall(long[], long[])} of {@code count} elements per peer: {@code size() × count} elements of
     * send from its offset, of recv from its offset (the same array and offset: in place).
     */
    default void alltoall(long[] send, int sendOffset, long[] recv, int recvOffset, int count) {
        ArrayCalls.alltoall(rank(), send, sendOffset, recv, recvOffset, count);
    }

    /**
     * {@link #alltoall(int[], int[])} of {@code count} elements per peer: {@code size() × count} elements of
     * send from its offset, of recv from its offset (the same array and offset: in place).
     */
    default void alltoall(int[] send, int sendOffset, int[] recv, int recvOffset, int count) {
        ArrayCalls.alltoall(rank(), send, sendOffset, recv, recvOffset, count);
    }

    /** {@link Rank#alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} of arrays (same array: in place). */
    default void alltoallv(double[] send, int[] sendCounts, int[] sendDispls, double[] recv, int[] recvCounts, int[] recvDispls) {
        ArrayCalls.alltoallv(rank(), send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    /** {@link Rank#alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} of arrays (same array: in place). */
    default void alltoallv(float[] send, int[] sendCounts, int[] sendDispls, float[] recv, int[] recvCounts, int[] recvDispls) {
        ArrayCalls.alltoallv(rank(), send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    /** {@link Rank#alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} of arrays (same array: in place). */
    default void alltoallv(long[] send, int[] sendCounts, int[] sendDispls, long[] recv, int[] recvCounts, int[] recvDispls) {
        ArrayCalls.alltoallv(rank(), send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    /** {@link Rank#alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} of arrays (same array: in place). */
    default void alltoallv(int[] send, int[] sendCounts, int[] sendDispls, int[] recv, int[] recvCounts, int[] recvDispls) {
        ArrayCalls.alltoallv(rank(), send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    /** {@link Rank#scan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void scan(double[] send, double[] recv, Op op) {
        ArrayCalls.scan(rank(), send, recv, op);
    }

    /** {@link Rank#scan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void scan(float[] send, float[] recv, Op op) {
        ArrayCalls.scan(rank(), send, recv, op);
    }

    /** {@link Rank#scan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void scan(long[] send, long[] recv, Op op) {
        ArrayCalls.scan(rank(), send, recv, op);
    }

    /** {@link Rank#scan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void scan(int[] send, int[] recv, Op op) {
        ArrayCalls.scan(rank(), send, recv, op);
    }

    /** {@link #scan(double[], double[], Op)} of {@code count} elements from the offsets. */
    default void scan(double[] send, int sendOffset, double[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.scan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #scan(float[], float[], Op)} of {@code count} elements from the offsets. */
    default void scan(float[] send, int sendOffset, float[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.scan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #scan(long[], long[], Op)} of {@code count} elements from the offsets. */
    default void scan(long[] send, int sendOffset, long[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.scan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #scan(int[], int[], Op)} of {@code count} elements from the offsets. */
    default void scan(int[] send, int sendOffset, int[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.scan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link Rank#exscan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void exscan(double[] send, double[] recv, Op op) {
        ArrayCalls.exscan(rank(), send, recv, op);
    }

    /** {@link Rank#exscan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void exscan(float[] send, float[] recv, Op op) {
        ArrayCalls.exscan(rank(), send, recv, op);
    }

    /** {@link Rank#exscan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void exscan(long[] send, long[] recv, Op op) {
        ArrayCalls.exscan(rank(), send, recv, op);
    }

    /** {@link Rank#exscan(MemorySegment, MemorySegment, long, DType, Op)} of {@code send.length} elements (same array: in place). */
    default void exscan(int[] send, int[] recv, Op op) {
        ArrayCalls.exscan(rank(), send, recv, op);
    }

    /** {@link #exscan(double[], double[], Op)} of {@code count} elements from the offsets. */
    default void exscan(double[] send, int sendOffset, double[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.exscan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #exscan(float[], float[], Op)} of {@code count} elements from the offsets. */
    default void exscan(float[] send, int sendOffset, float[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.exscan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #exscan(long[], long[], Op)} of {@code count} elements from the offsets. */
    default void exscan(long[] send, int sendOffset, long[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.exscan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }

    /** {@link #exscan(int[], int[], Op)} of {@code count} elements from the offsets. */
    default void exscan(int[] send, int sendOffset, int[] recv, int recvOffset, int count, Op op) {
        ArrayCalls.exscan(rank(), send, sendOffset, recv, recvOffset, count, op);
    }
}
