package io.coll4j;

import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.kernel.algo.allreduce.SharedViewAllreduce;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Signature;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.events.CollectiveCallEvent;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.kernel.span.ChainAllreduce;
import io.coll4j.kernel.span.ChainScan;
import io.coll4j.kernel.span.LeaderAllgather;
import io.coll4j.kernel.span.LeaderAllgatherv;
import io.coll4j.kernel.span.LeaderAlltoall;
import io.coll4j.kernel.span.LeaderGather;
import io.coll4j.kernel.span.LeaderGatherv;
import io.coll4j.kernel.span.LeaderScatterv;
import io.coll4j.kernel.span.LeaderAlltoallv;
import io.coll4j.kernel.span.LeaderScan;
import io.coll4j.kernel.span.LeaderSharedAllgather;
import io.coll4j.kernel.span.LeaderSharedAllreduce;
import io.coll4j.kernel.span.LeaderScatter;
import io.coll4j.kernel.span.LeaderReduceScatterV;
import io.coll4j.kernel.span.LeaderAllreduce;
import io.coll4j.kernel.span.LeaderBarrier;
import io.coll4j.kernel.span.LeaderBcast;
import io.coll4j.kernel.span.LeaderReduce;
import io.coll4j.kernel.span.LeaderReduceScatter;
import io.coll4j.kernel.span.LocalJoin;
import io.coll4j.kernel.span.LocalOps;
import io.coll4j.kernel.span.SpanQueue;
import io.coll4j.kernel.span.SpanRequest;
import io.coll4j.kernel.span.MultiLeaderAllreduce;
import io.coll4j.kernel.span.SpanCheck;
import io.coll4j.kernel.span.SpanGroup;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Averages;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;
import io.coll4j.reductions.internal.Reducers;
import io.coll4j.reductions.internal.ScalarReference;
import io.coll4j.topology.BindResult;
import io.coll4j.topology.Pu;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The blocking collectives beyond the first six — gather, scatter, the v-variants, alltoall(v), scan,
 * exscan — with their argument checks (which the requests share), the user-op segment forms of the reducing
 * collectives, the shared-view forms [MPI+MPI §4.1], and {@link Local}: the local half a hierarchical
 * collective of a team spanning processes runs on this rank.
 */
abstract class RankVocabulary extends RankEngine {
    RankVocabulary(Team team, int id) {
        super(team, id);
        this.local = span == null ? null : new Local();
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
        gather(null, send, recv, count, dtype, root);
    }

    void gather(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        long total = checkGather(send, recv, count, dtype, root);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.GATHER, count, dtype, null, root, total);
            LeaderGather.run(span, local, send, recv, count, dtype, root);
            return;
        }
        run(forced, Collective.GATHER, send, id == root ? recv : null, count, dtype, null, root, count, total, count,
                null, null, null, null);
    }

    /** The argument checks of {@code gather} (blocking and non-blocking); returns the root's receive bytes. */
    long checkGather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        int me = callId();
        int n = callSize();
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(count, dtype, 1);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.readable("send", send, block, me);
        if (me == root) {
            Arguments.writable("recv", recv, total, me);
            blockOrDisjoint("send", send, block, "recv", recv, total, root * block);
        }
        return total;
    }

    /**
     * Scatters the root's {@code send} ({@code localSize() × count} elements): rank j receives block j in
     * {@code recv}. {@code send} is ignored (may be null) off the root. In place at the root when
     * {@code recv} is exactly the root's block of {@code send}.
     */
    public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        scatter(null, send, recv, count, dtype, root);
    }

    void scatter(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        long total = checkScatter(send, recv, count, dtype, root);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.SCATTER, count, dtype, null, root, total);
            LeaderScatter.run(span, local, send, recv, count, dtype, root);
            return;
        }
        run(forced, Collective.SCATTER, id == root ? send : null, recv, count, dtype, null, root, count, total, count,
                null, null, null, null);
    }

    /** The argument checks of {@code scatter} (blocking and non-blocking); returns the root's send bytes. */
    long checkScatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        int me = callId();
        int n = callSize();
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(count, dtype, 1);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.writable("recv", recv, block, me);
        if (me == root) {
            Arguments.readable("send", send, total, me);
            blockOrDisjoint("recv", recv, block, "send", send, total, root * block);
        }
        return total;
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
        gatherv(null, send, sendCount, recv, recvCounts, displs, dtype, root);
    }

    void gatherv(CollectiveAlgorithm forced, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                 long[] displs, DType dtype, int root) {
        checkCaller();
        checkGatherv(send, sendCount, recv, recvCounts, displs, dtype, root);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.GATHERV, 0, dtype, null, root, 0);
            LeaderGatherv.run(span, local, send, sendCount, recv, recvCounts, displs, dtype, root);
            return;
        }
        run(forced, Collective.GATHERV, send, id == root ? recv : null, sendCount, dtype, null, root, 0, 0, 0,
                null, null, id == root ? recvCounts : null, id == root ? displs : null);
    }

    /** The argument checks of {@code gatherv} (blocking and non-blocking). */
    void checkGatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                              DType dtype, int root) {
        int me = callId();
        int n = callSize();
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(sendCount, dtype, 1);
        Arguments.readable("send", send, block, me);
        if (me == root) {
            Arguments.perRank("recvCounts", recvCounts, n);
            Arguments.perRank("displs", displs, n);
            if (recvCounts[root] != sendCount) {
                throw new IllegalArgumentException("sendCount " + sendCount + " differs from recvCounts[" + root + "] = "
                        + recvCounts[root] + " at the root");
            }
            long extent = Arguments.extentBytes("recvCounts", recvCounts, "displs", displs, dtype);
            Arguments.writable("recv", recv, extent, me);
            Arguments.disjointBlocks("recvCounts", recvCounts, "displs", displs);
            blockOrDisjoint("send", send, block, "recv", recv, extent, displs[root] * dtype.size());
        }
    }

    /**
     * Scatters blocks of the root's {@code send}: rank j receives {@code sendCounts[j]} elements from
     * element {@code displs[j]} into its {@code recv} ({@code recvCount} elements, which must equal the
     * root's {@code sendCounts[j]}: a {@link CollectiveMismatchException} otherwise). The arrays are read at
     * the root only. In place at the root when {@code recv} is exactly {@code send} at {@code displs[root]}.
     */
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                         DType dtype, int root) {
        scatterv(null, send, sendCounts, displs, recv, recvCount, dtype, root);
    }

    void scatterv(CollectiveAlgorithm forced, MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                  long recvCount, DType dtype, int root) {
        checkCaller();
        checkScatterv(send, sendCounts, displs, recv, recvCount, dtype, root);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.SCATTERV, 0, dtype, null, root, 0);
            LeaderScatterv.run(span, local, send, sendCounts, displs, recv, recvCount, dtype, root);
            return;
        }
        run(forced, Collective.SCATTERV, id == root ? send : null, recv, recvCount, dtype, null, root, 0, 0, 0,
                id == root ? sendCounts : null, id == root ? displs : null, null, null);
    }

    /** The argument checks of {@code scatterv} (blocking and non-blocking). */
    void checkScatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                               DType dtype, int root) {
        int me = callId();
        int n = callSize();
        Arguments.count("recvCount", recvCount);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(recvCount, dtype, 1);
        Arguments.writable("recv", recv, block, me);
        if (me == root) {
            Arguments.perRank("sendCounts", sendCounts, n);
            Arguments.perRank("displs", displs, n);
            if (sendCounts[root] != recvCount) {
                throw new IllegalArgumentException("recvCount " + recvCount + " differs from sendCounts[" + root + "] = "
                        + sendCounts[root] + " at the root");
            }
            long extent = Arguments.extentBytes("sendCounts", sendCounts, "displs", displs, dtype);
            Arguments.readable("send", send, extent, me);
            blockOrDisjoint("recv", recv, block, "send", send, extent, displs[root] * dtype.size());
        }
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
        allgatherv(null, send, sendCount, recv, recvCounts, displs, dtype);
    }

    void allgatherv(CollectiveAlgorithm forced, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                    long[] displs, DType dtype) {
        checkCaller();
        long total = checkAllgatherv(send, sendCount, recv, recvCounts, displs, dtype);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.ALLGATHERV, Signature.countsWord(recvCounts), dtype, null, -1, total);
            LeaderAllgatherv.run(span, local, send, sendCount, recv, recvCounts, displs, dtype);
            return;
        }
        run(forced, Collective.ALLGATHERV, send, recv, sendCount, dtype, null, -1, total / dtype.size(), total,
                Signature.countsWord(recvCounts), null, null, recvCounts, displs);
    }

    /** The argument checks of {@code allgatherv} (blocking and non-blocking); returns the bytes of all blocks. */
    long checkAllgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                                 DType dtype) {
        int me = callId();
        int n = callSize();
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        Arguments.perRank("recvCounts", recvCounts, n);
        Arguments.perRank("displs", displs, n);
        if (recvCounts[me] != sendCount) {
            throw new IllegalArgumentException("sendCount " + sendCount + " differs from recvCounts[" + me + "] = "
                    + recvCounts[me]);
        }
        long block = Arguments.bytes(sendCount, dtype, 1);
        Arguments.readable("send", send, block, me);
        long extent = Arguments.extentBytes("recvCounts", recvCounts, "displs", displs, dtype);
        Arguments.writable("recv", recv, extent, me);
        Arguments.disjointBlocks("recvCounts", recvCounts, "displs", displs);
        blockOrDisjoint("send", send, block, "recv", recv, extent, displs[me] * dtype.size());
        return Arguments.totalBytes("recvCounts", recvCounts, dtype);
    }

    /**
     * Reduce-scatter with per-rank counts (MPI_Reduce_scatter): every rank's {@code send} holds
     * {@code sum(recvCounts)} elements; rank i receives the element-wise reduction of block i
     * ({@code recvCounts[i]} elements starting at {@code recvCounts[0] + … + recvCounts[i−1]}) in {@code recv}.
     * {@code recvCounts} must be the same on every rank (checked through the check word). Buffers must not
     * overlap (no in-place form, as {@link #reduceScatter}).
     */
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        reduceScatterV(null, send, recv, recvCounts, dtype, op);
    }

    void reduceScatterV(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype,
                        Op op) {
        checkCaller();
        long total = checkReduceScatterV(send, recv, recvCounts, dtype, op);
        if (spanned()) {
            flushSpanned();
            requireUserOp(op);
            spanCheck(Collective.REDUCE_SCATTER_V, Signature.countsWord(recvCounts), dtype, op, -1, total);
            if (inRankOrder(op)) {
                long at = 0;
                for (int r = 0; r < id(); r++) {
                    at += recvCounts[r];
                }
                chainScatter(send, recv, total / dtype.size(), dtype, op, at, recvCounts[id()]);
            } else {
                LeaderReduceScatterV.run(span, local, send, recv, recvCounts, dtype, op.foldOp());
            }
            average(Collective.REDUCE_SCATTER_V, op, recv, recvCounts[id()], dtype);
            return;
        }
        int parity = (int) ((call.seq() + 1) & 1);                 // the parity of the call about to begin
        long[] displs = reduceScatterDispls[parity];
        if (displs == null) {
            displs = reduceScatterDispls[parity] = new long[localSize()];
        }
        for (int j = 1; j < displs.length; j++) {
            displs[j] = displs[j - 1] + recvCounts[j - 1];
        }
        run(forced, Collective.REDUCE_SCATTER_V, send, recv, recvCounts[id], dtype, op, -1, total / dtype.size(), total,
                Signature.countsWord(recvCounts), null, null, recvCounts, displs);
    }

    /** The argument checks of {@code reduceScatterV} (blocking and non-blocking); returns the send bytes. */
    long checkReduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        int me = callId();
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        Arguments.perRank("recvCounts", recvCounts, callSize());
        long total = Arguments.totalBytes("recvCounts", recvCounts, dtype);
        long block = Arguments.bytes(recvCounts[me], dtype, 1);
        Arguments.readable("send", send, total, me);
        Arguments.writable("recv", recv, block, me);
        if (Aliasing.overlap(send, total, recv, block)) {
            throw new IllegalArgumentException("send and recv overlap: reduceScatterV needs separate buffers");
        }
        return total;
    }

    /**
     * All-to-all: block j ({@code count} elements at {@code j × count}) of this rank's {@code send} goes to
     * block {@code rank} of rank j's {@code recv}. In place when {@code send} and {@code recv} are the same
     * segment (each block is replaced by the one received; staged through scratch).
     */
    public void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        alltoall(null, send, recv, count, dtype);
    }

    void alltoall(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        long total = checkAlltoall(send, recv, count, dtype);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.ALLTOALL, count, dtype, null, -1, total);
            LeaderAlltoall.run(span, local, send, recv, count, dtype);
            return;
        }
        run(forced, Collective.ALLTOALL, send, recv, count, dtype, null, -1, count, total, count, null, null, null, null);
    }

    /** The argument checks of {@code alltoall} (blocking and non-blocking); returns the bytes per buffer. */
    long checkAlltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        int me = callId();
        int n = callSize();
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.readable("send", send, total, me);
        Arguments.writable("recv", recv, total, me);
        Arguments.inPlaceOrDisjoint("send", send, "recv", recv, total);
        return total;
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
        alltoallv(null, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
    }

    void alltoallv(CollectiveAlgorithm forced, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                   long[] recvCounts, long[] recvDispls, DType dtype) {
        checkCaller();
        checkAlltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.ALLTOALLV, 0, dtype, null, -1, 0);
            LeaderAlltoallv.run(span, local, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
            return;
        }
        run(forced, Collective.ALLTOALLV, send, recv, 0, dtype, null, -1, 0, 0, 0, sendCounts, sendDispls, recvCounts,
                recvDispls);
    }

    /** The argument checks of {@code alltoallv} (blocking and non-blocking). */
    void checkAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                long[] recvCounts, long[] recvDispls, DType dtype) {
        int me = callId();
        int n = callSize();
        Arguments.dtype(dtype);
        Arguments.perRank("sendCounts", sendCounts, n);
        Arguments.perRank("sendDispls", sendDispls, n);
        Arguments.perRank("recvCounts", recvCounts, n);
        Arguments.perRank("recvDispls", recvDispls, n);
        long sendExtent = Arguments.extentBytes("sendCounts", sendCounts, "sendDispls", sendDispls, dtype);
        long recvExtent = Arguments.extentBytes("recvCounts", recvCounts, "recvDispls", recvDispls, dtype);
        Arguments.readable("send", send, sendExtent, me);
        Arguments.writable("recv", recv, recvExtent, me);
        Arguments.disjointBlocks("recvCounts", recvCounts, "recvDispls", recvDispls);
        if (sendCounts[me] != recvCounts[me]) {
            throw new IllegalArgumentException("sendCounts[" + me + "] = " + sendCounts[me] + " differs from recvCounts["
                    + me + "] = " + recvCounts[me] + " (this rank's block to itself)");
        }
        if (Aliasing.sameStart(send, recv)) {
            if (!java.util.Arrays.equals(sendCounts, recvCounts) || !java.util.Arrays.equals(sendDispls, recvDispls)) {
                throw new IllegalArgumentException("in place (send and recv are the same segment): sendCounts/sendDispls"
                        + " must equal recvCounts/recvDispls");
            }
        } else if (Aliasing.overlap(send, sendExtent, recv, recvExtent)) {
            throw new IllegalArgumentException("send and recv overlap without being the same buffer (pass the same segment for in place)");
        }
    }

    /**
     * Inclusive prefix reduction: rank i receives {@code send_0 op send_1 op … op send_i} (element-wise, in
     * rank order: bitwise the scalar left fold for every algorithm). In place when {@code send} and
     * {@code recv} are the same segment.
     */
    public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(null, Collective.SCAN, send, recv, count, dtype, op);
    }

    /**
     * Exclusive prefix reduction: rank i &gt; 0 receives {@code send_0 op … op send_(i−1)}; rank 0's
     * {@code recv} is not written (MPI leaves it undefined). In place when the segments are the same.
     */
    public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(null, Collective.EXSCAN, send, recv, count, dtype, op);
    }

    void scan(CollectiveAlgorithm forced, Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
              Op op) {
        checkCaller();
        long bytes = checkScan(send, recv, count, dtype, op);
        if (spanned()) {
            flushSpanned();
            requireUserOp(op);
            spanCheck(c, count, dtype, op, -1, bytes);
            if (inRankOrder(op)) {
                ChainScan.run(span, local, c == Collective.EXSCAN, send, recv, count, dtype, op.foldOp());
            } else {
                LeaderScan.run(span, local, c == Collective.EXSCAN, send, recv, count, dtype, op.foldOp());
            }
            average(c, op, recv, count, dtype);
            return;
        }
        run(forced, c, send, recv, count, dtype, op, -1, count, bytes, count, null, null, null, null);
    }

    /** The argument checks of {@code scan} and {@code exscan} (blocking and non-blocking); returns the bytes per buffer. */
    long checkScan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        int me = callId();
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        long bytes = Arguments.bytes(count, dtype, 1);
        Arguments.readable("send", send, bytes, me);
        Arguments.writable("recv", recv, bytes, me);
        Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
        return bytes;
    }

    // ---- user-defined ops (UserOp): the reducing collectives with the op's own function and dtype ----
    //
    // A non-commutative op folds in ascending rank order on every algorithm: the call runs in the
    // reproducible(true) order (CollectiveCall.reproducible), which every algorithm documents as that fold.

    /** {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void allreduce(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> allreduce(send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} with a user-defined op. */
    public void reduce(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        withUserOp(op, () -> reduce(send, recv, count, op.dtype(), Op.USER, root));
    }

    /** {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        withUserOp(op, () -> reduceScatter(send, recv, recvCount, op.dtype(), Op.USER));
    }

    /** {@link #reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} with a user-defined op. */
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, UserOp op) {
        withUserOp(op, () -> reduceScatterV(send, recv, recvCounts, op.dtype(), Op.USER));
    }

    /** {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void scan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> scan(send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public void exscan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        withUserOp(op, () -> exscan(send, recv, count, op.dtype(), Op.USER));
    }

    // ---- shared-view allgather [MPI+MPI §4.1] ----

    static final SharedViewAllgather SHARED_VIEW = new SharedViewAllgather();

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
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        long block = Arguments.bytes(sendCount, dtype, 1);
        long total = Arguments.bytes(sendCount, dtype, callSize());
        Arguments.readable("send", send, block, callId());
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.ALLGATHER, sendCount, dtype, null, SharedViewAllgather.SIGNATURE_ROOT, total);
            return LeaderSharedAllgather.run(span, local, sharedCalls++ & 1, send, sendCount, dtype);
        }
        execute(SHARED_VIEW, Collective.ALLGATHER, send, null, sendCount, dtype, null, SharedViewAllgather.SIGNATURE_ROOT);
        return SharedViewAllgather.view(call);
    }

    static final SharedViewAllreduce SHARED_VIEW_ALLREDUCE = new SharedViewAllreduce();

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
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        if (op == Op.AVG) {
            // the one shared result is read by every rank once the call returns: no rank may divide it then
            throw new IllegalArgumentException("op avg is not available on allreduceShared (sum, then divide a copy)");
        }
        long bytes = Arguments.bytes(count, dtype, 1);
        Arguments.readable("send", send, bytes, callId());
        if (spanned()) {
            flushSpanned();
            requireUserOp(op);
            spanCheck(Collective.ALLREDUCE, count, dtype, op, SharedViewAllgather.SIGNATURE_ROOT, bytes);
            return LeaderSharedAllreduce.run(span, local, sharedCalls++ & 1, team.reproducible(), send, count, dtype, op);
        }
        execute(SHARED_VIEW_ALLREDUCE, Collective.ALLREDUCE, send, null, count, dtype, op, SharedViewAllgather.SIGNATURE_ROOT);
        return SharedViewAllreduce.view(call);
    }

    final class Local implements LocalOps {
        private void local(Runnable collective) {
            inLocal = true;
            try {
                collective.run();
            } finally {
                inLocal = false;
            }
        }

        @Override
        public int localId() {
            return id;
        }

        @Override
        public int localSize() {
            return context.size();
        }

        @Override
        public UserOp userOp() {
            return userOp;
        }

        @Override
        public Reducer reducer(DType dtype, Op op) {
            return op == Op.USER ? userReducer() : RankVocabulary.this.reducer(dtype, op);
        }

        @Override
        public void barrier() {
            local(() -> RankVocabulary.this.barrier());
        }

        @Override
        public void bcast(MemorySegment buf, long count, DType dtype, int root) {
            local(() -> RankVocabulary.this.bcast(buf, count, dtype, root));
        }

        @Override
        public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
            local(() -> RankVocabulary.this.reduce(send, recv, count, dtype, op, root));
        }

        @Override
        public void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
            local(() -> RankVocabulary.this.gather(send, recv, count, dtype, root));
        }

        @Override
        public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
            local(() -> RankVocabulary.this.scatter(send, recv, count, dtype, root));
        }

        @Override
        public void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype,
                            int root) {
            local(() -> RankVocabulary.this.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root));
        }

        @Override
        public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount, DType dtype,
                             int root) {
            local(() -> RankVocabulary.this.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root));
        }

        @Override
        public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
            local(() -> RankVocabulary.this.scan(send, recv, count, dtype, op));
        }

        @Override
        public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
            local(() -> RankVocabulary.this.exscan(send, recv, count, dtype, op));
        }

        @Override
        public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
            local(() -> RankVocabulary.this.reduceScatterV(send, recv, recvCounts, dtype, op));
        }

        @Override
        public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                               DType dtype) {
            local(() -> RankVocabulary.this.allgatherv(send, sendCount, recv, recvCounts, displs, dtype));
        }
    }
}
