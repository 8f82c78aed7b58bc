package io.coll4j;

import io.coll4j.kernel.algo.Signature;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.span.ChainAllreduce;
import io.coll4j.kernel.span.ChainScan;
import io.coll4j.kernel.span.LeaderAllgather;
import io.coll4j.kernel.span.LeaderAllgatherv;
import io.coll4j.kernel.span.LeaderAllreduce;
import io.coll4j.kernel.span.LeaderAlltoall;
import io.coll4j.kernel.span.LeaderAlltoallv;
import io.coll4j.kernel.span.LeaderBarrier;
import io.coll4j.kernel.span.LeaderBcast;
import io.coll4j.kernel.span.LeaderGather;
import io.coll4j.kernel.span.LeaderGatherv;
import io.coll4j.kernel.span.LeaderReduce;
import io.coll4j.kernel.span.LeaderReduceScatter;
import io.coll4j.kernel.span.LeaderReduceScatterV;
import io.coll4j.kernel.span.LeaderScan;
import io.coll4j.kernel.span.LeaderScatter;
import io.coll4j.kernel.span.LeaderScatterv;
import io.coll4j.kernel.span.LeaderSharedAllgather;
import io.coll4j.kernel.span.LeaderSharedAllreduce;
import io.coll4j.kernel.span.MultiLeaderAllreduce;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.kernel.span.SpanCheck;
import io.coll4j.kernel.span.SpanGroup;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * One rank's collectives on a team spanning processes: each the composition of this process's local collectives
 * ({@link LocalCollectives}, local ids and roots) with the process span's calls, by the algorithms of
 * {@code kernel.span} (HAN's sub-communicators, UCC's cl/hier over tl). A call checks its arguments against the
 * global rank number and team size, lets local rank 0's outstanding requests make their MPI calls first
 * ({@link #flush}), is compared across processes ({@link #spanCheck}) and runs its composition; AVG folds as SUM
 * across every process and this rank divides its own result after. Made once, with the rank, for a rank whose
 * team spans processes.
 */
final class HierarchicalCollectives implements Collectives {
    private final RankEngine rank;
    private final SpanGroup span;
    private final LocalCollectives local;
    /** This rank's local number (its process's result buffers are indexed by it). */
    private final int id;
    /** This rank's global number and the team's global size: what the caller's ranks and roots name. */
    private final int globalId;
    private final int globalSize;
    /**
     * The team spans processes with one rank in each and folds in MPI's order (not reproducible(true)): an
     * allreduce of an op MPI folds is MPI_Allreduce itself ({@link LeaderAllreduce}'s one-rank case).
     */
    private final boolean oneRankPerProcess;
    /** Shared-view calls so far: their parity picks the process's shared buffer. */
    private int sharedCalls;

    HierarchicalCollectives(RankEngine rank, SpanGroup span, LocalCollectives local) {
        this.rank = rank;
        this.span = span;
        this.local = local;
        this.id = local.localId();
        this.globalId = span.globalId(id);
        this.globalSize = span.globalSize();
        this.oneRankPerProcess = span.localSize() == 1 && !rank.team.reproducible();
    }

    // ---- the first six

    @Override
    public void barrier() {
        flush();
        spanCheck(Collective.BARRIER, 0, null, null, -1, 0);
        LeaderBarrier.run(span, local);
    }

    @Override
    public void bcast(MemorySegment buf, long count, DType dtype, int root) {
        flush();
        Arguments.collective(Collective.BCAST, buf, buf, count, dtype, null, root, globalId, globalSize);
        spanCheck(Collective.BCAST, count, dtype, null, root, count * dtype.size());
        LeaderBcast.run(span, local, buf, count, dtype, root);
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        flush();
        Arguments.collective(Collective.REDUCE, send, recv, count, dtype, op, root, globalId, globalSize);
        requireUserOp(op);
        spanCheck(Collective.REDUCE, count, dtype, op, root, count * dtype.size());
        Op fold = op.foldOp();
        if (rank.inRankOrder(op)) {
            // the fixed-order chain ends with the result everywhere: off the root it lands in a temporary
            ChainAllreduce.run(span, local, send, globalId == root ? recv : span.result(id, count * dtype.size()), count,
                    dtype, fold);
        } else {
            LeaderReduce.run(span, local, send, recv, count, dtype, fold, root);
        }
        average(Collective.REDUCE, op, globalId == root ? recv : null, count, dtype);
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        flush();
        Arguments.collective(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, globalId, globalSize);
        if (isMpiAllreduce(op, count * dtype.size())) {
            mpiAllreduce(send, recv, count, dtype, op);   // as a plan's later calls (mpiDirect)
            return;
        }
        checkedAllreduce(send, recv, count, dtype, op);
    }

    /** The allreduce after its arguments were checked (by {@link #allreduce} or the plan). */
    private void checkedAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        requireUserOp(op);
        long bytes = count * dtype.size();
        spanCheck(Collective.ALLREDUCE, count, dtype, op, -1, bytes);
        Op fold = op.foldOp();
        if (rank.inRankOrder(op)) {
            ChainAllreduce.run(span, local, send, recv, count, dtype, fold);
        } else if (span.multiLeader(bytes)) {
            MultiLeaderAllreduce.run(span, local, send, recv, count, dtype, fold);
        } else {
            LeaderAllreduce.run(span, local, send, recv, count, dtype, fold);
        }
        average(Collective.ALLREDUCE, op, recv, count, dtype);
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        flush();
        Arguments.collective(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, globalId, globalSize);
        requireUserOp(op);
        spanCheck(Collective.REDUCE_SCATTER, recvCount, dtype, op, -1, recvCount * dtype.size() * globalSize);
        if (rank.inRankOrder(op)) {
            chainScatter(send, recv, recvCount * globalSize, dtype, op, recvCount * globalId, recvCount);
        } else {
            LeaderReduceScatter.run(span, local, send, recv, recvCount, dtype, op.foldOp());
        }
        average(Collective.REDUCE_SCATTER, op, recv, recvCount, dtype);
    }

    @Override
    public void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        flush();
        Arguments.collective(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, globalId, globalSize);
        spanCheck(Collective.ALLGATHER, sendCount, dtype, null, -1, sendCount * dtype.size() * globalSize);
        LeaderAllgather.run(span, local, send, recv, sendCount, dtype);
    }

    // ---- the rest of the vocabulary

    @Override
    public void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        long total = VocabularyArguments.gather(send, recv, count, dtype, root, globalId, globalSize);
        flush();
        spanCheck(Collective.GATHER, count, dtype, null, root, total);
        LeaderGather.run(span, local, send, recv, count, dtype, root);
    }

    @Override
    public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        long total = VocabularyArguments.scatter(send, recv, count, dtype, root, globalId, globalSize);
        flush();
        spanCheck(Collective.SCATTER, count, dtype, null, root, total);
        LeaderScatter.run(span, local, send, recv, count, dtype, root);
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                        DType dtype, int root) {
        VocabularyArguments.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root, globalId, globalSize);
        flush();
        spanCheck(Collective.GATHERV, 0, dtype, null, root, 0);
        LeaderGatherv.run(span, local, send, sendCount, recv, recvCounts, displs, dtype, root);
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                         DType dtype, int root) {
        VocabularyArguments.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root, globalId, globalSize);
        flush();
        spanCheck(Collective.SCATTERV, 0, dtype, null, root, 0);
        LeaderScatterv.run(span, local, send, sendCounts, displs, recv, recvCount, dtype, root);
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                           DType dtype) {
        long total = VocabularyArguments.allgatherv(send, sendCount, recv, recvCounts, displs, dtype, globalId, globalSize);
        flush();
        spanCheck(Collective.ALLGATHERV, Signature.countsWord(recvCounts), dtype, null, -1, total);
        LeaderAllgatherv.run(span, local, send, sendCount, recv, recvCounts, displs, dtype);
    }

    @Override
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        long total = VocabularyArguments.reduceScatterV(send, recv, recvCounts, dtype, op, globalId, globalSize);
        flush();
        requireUserOp(op);
        spanCheck(Collective.REDUCE_SCATTER_V, Signature.countsWord(recvCounts), dtype, op, -1, total);
        if (rank.inRankOrder(op)) {
            long at = 0;
            for (int r = 0; r < globalId; r++) {
                at += recvCounts[r];
            }
            chainScatter(send, recv, total / dtype.size(), dtype, op, at, recvCounts[globalId]);
        } else {
            LeaderReduceScatterV.run(span, local, send, recv, recvCounts, dtype, op.foldOp());
        }
        average(Collective.REDUCE_SCATTER_V, op, recv, recvCounts[globalId], dtype);
    }

    @Override
    public void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        long total = VocabularyArguments.alltoall(send, recv, count, dtype, globalId, globalSize);
        flush();
        spanCheck(Collective.ALLTOALL, count, dtype, null, -1, total);
        LeaderAlltoall.run(span, local, send, recv, count, dtype);
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                          long[] recvDispls, DType dtype) {
        VocabularyArguments.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype, globalId,
                globalSize);
        flush();
        spanCheck(Collective.ALLTOALLV, 0, dtype, null, -1, 0);
        LeaderAlltoallv.run(span, local, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
    }

    @Override
    public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(Collective.SCAN, send, recv, count, dtype, op);
    }

    @Override
    public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(Collective.EXSCAN, send, recv, count, dtype, op);
    }

    /** Scan or exscan ({@code c}). */
    private void scan(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        long bytes = VocabularyArguments.scan(send, recv, count, dtype, op, globalId);
        flush();
        requireUserOp(op);
        spanCheck(c, count, dtype, op, -1, bytes);
        if (rank.inRankOrder(op)) {
            ChainScan.run(span, local, c == Collective.EXSCAN, send, recv, count, dtype, op.foldOp());
        } else {
            LeaderScan.run(span, local, c == Collective.EXSCAN, send, recv, count, dtype, op.foldOp());
        }
        average(c, op, recv, count, dtype);
    }

    // ---- shared views: one result per process, read in place by its ranks [MPI+MPI §4.1]

    @Override
    public MemorySegment allgatherShared(MemorySegment send, long sendCount, DType dtype) {
        long total = VocabularyArguments.allgatherShared(send, sendCount, dtype, globalId, globalSize);
        flush();
        spanCheck(Collective.ALLGATHER, sendCount, dtype, null, SharedViewAllgather.SIGNATURE_ROOT, total);
        return LeaderSharedAllgather.run(span, local, sharedCalls++ & 1, send, sendCount, dtype);
    }

    @Override
    public MemorySegment allreduceShared(MemorySegment send, long count, DType dtype, Op op) {
        long bytes = VocabularyArguments.allreduceShared(send, count, dtype, op, globalId);
        flush();
        requireUserOp(op);
        spanCheck(Collective.ALLREDUCE, count, dtype, op, SharedViewAllgather.SIGNATURE_ROOT, bytes);
        return LeaderSharedAllreduce.run(span, local, sharedCalls++ & 1, rank.team.reproducible(), send, count, dtype, op);
    }

    // ---- plans

    /**
     * A plan runs the hierarchical collective of its kind (the plan's algorithm is the local one). Its first call
     * compares the plan across processes ({@link SpanCheck}): a plan is made for a hot loop, so one check per plan
     * is free, and a mismatch shows at the first iteration.
     */
    @Override
    public void execute(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        if (plan.collective().vector()) {
            // before any hand-over with the other processes, as a one-process team refuses it
            throw new IllegalArgumentException(plan.collective().cliName() + " needs its count arrays: use "
                    + "execute(send, sendCounts, sendDispls, recv, recvCounts, recvDispls)");
        }
        if (plan.mpiDirect() && rank.spanQueue == null) {
            // the 8-byte allreduce's path across processes: only the buffers are new
            Arguments.allreduceBuffers(send, recv, plan.bytes(), globalId);
            mpiAllreduce(send, recv, plan.count(), plan.dtype(), plan.op());
            return;
        }
        flush();
        long n = plan.count();
        DType t = plan.dtype();
        if (plan.firstSpannedCall()) {
            if (SpanCheck.dueForPlan()) {
                SpanCheck.verify(span, local, Signature.descriptor(plan.collective(), t, plan.op(), plan.root()), n);
            }
            plan.mpiDirect(plan.collective() == Collective.ALLREDUCE && isMpiAllreduce(plan.op(), plan.bytes()));
        }
        switch (plan.collective()) {
            case BARRIER -> barrier();
            case BCAST -> bcast(send, n, t, plan.root());
            case REDUCE -> reduce(send, recv, n, t, plan.op(), plan.root());
            case ALLREDUCE -> {
                // the plan checked count, dtype and op when it was made: only the buffers are new
                Arguments.allreduceBuffers(send, recv, plan.bytes(), globalId);
                checkedAllreduce(send, recv, n, t, plan.op());
            }
            case REDUCE_SCATTER -> reduceScatter(send, recv, n, t, plan.op());
            case ALLGATHER -> allgather(send, recv, n, t);
            case GATHER -> gather(send, recv, n, t, plan.root());
            case SCATTER -> scatter(send, recv, n, t, plan.root());
            case ALLTOALL -> alltoall(send, recv, n, t);
            case SCAN -> scan(send, recv, n, t, plan.op());
            case EXSCAN -> exscan(send, recv, n, t, plan.op());
            default -> throw new AssertionError(plan.collective());     // the v-collectives are refused above
        }
    }

    /** A planned v-variant runs the hierarchical collective of its kind, as {@link #execute}. */
    @Override
    public void executeVector(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls,
                              MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        DType t = plan.dtype();
        switch (plan.collective()) {
            case GATHERV -> gatherv(send, VocabularyArguments.mine("sendCounts", sendCounts, globalId, globalSize), recv,
                    recvCounts, recvDispls, t, plan.root());
            case SCATTERV -> scatterv(send, sendCounts, sendDispls, recv,
                    VocabularyArguments.mine("recvCounts", recvCounts, globalId, globalSize), t, plan.root());
            case ALLGATHERV -> allgatherv(send, VocabularyArguments.mine("sendCounts", sendCounts, globalId, globalSize),
                    recv, recvCounts, recvDispls, t);
            case REDUCE_SCATTER_V -> reduceScatterV(send, recv, recvCounts, t, plan.op());
            case ALLTOALLV -> alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            default -> throw new IllegalArgumentException(plan.collective().cliName()
                    + " has no count arrays: use execute(send, recv)");
        }
    }

    // ---- what every composition shares

    /**
     * Whether an allreduce of {@code op} on {@code bytes} is MPI_Allreduce itself: one rank per process and no
     * rank-order chain ({@link #oneRankPerProcess}: {@link LeaderAllreduce}'s one-rank case, never multi-leader),
     * an op MPI folds itself (not AVG, which divides after, nor a UserOp), and below {@link SpanCheck}'s size (a
     * plan's first call was compared across processes; a call this small is not). Skipping the dispatch of
     * {@link #checkedAllreduce} saved ~10–15 ns of an 8-byte allreduce across 2 processes (MPI's own: ~200 ns).
     */
    private boolean isMpiAllreduce(Op op, long bytes) {
        return oneRankPerProcess && op != Op.AVG && op != Op.USER && !SpanCheck.due(bytes);
    }

    /** The allreduce as one MPI_Allreduce of this process's buffers ({@link #isMpiAllreduce}). */
    private void mpiAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkInterrupted(Collective.ALLREDUCE);
        ProcessSpan s = span.span();
        if (SpanCheck.enabled()) {
            s.carry(Signature.descriptor(Collective.ALLREDUCE, dtype, op, -1), count);   // checked with its payload
        }
        s.allreduce(s.world(), Aliasing.sameStart(send, recv) ? null : send, recv, count, dtype, op);
    }

    /**
     * Before a blocking call of local rank 0 across processes: its outstanding requests' MPI calls go first, so
     * MPI sees the same order in every process ({@code SpanQueue.flush}). One null check when there are none.
     */
    private void flush() {
        if (rank.spanQueue != null && rank.spanQueue.mustFlush()) {
            rank.spanQueue.flush(rank.context, id);
        }
    }

    /**
     * The cross-process mismatch check of a call moving {@code bytes} per rank, where it costs nothing measurable
     * ({@link SpanCheck}); the leader throws {@link CollectiveMismatchException} when processes differ.
     */
    private void spanCheck(Collective c, long count, DType dtype, Op op, int root, long bytes) {
        checkInterrupted(c);
        if (!SpanCheck.enabled()) {
            return;
        }
        // a user op's MPI op is the user's (no word can travel inside its payload), and a reduce whose root is not
        // its process's local rank 0 calls MPI from the root's thread there (LeaderReduce), not the carrying one:
        // both take the separate check at every size, in every process alike (the decision depends on the call)
        boolean separate = op == Op.USER || (c == Collective.REDUCE && root != span.first(span.processOf(root)));
        if (separate || SpanCheck.due(bytes)) {
            SpanCheck.verify(span, local, Signature.descriptor(c, dtype, op, root), count);
        } else if (id == 0) {
            // too small for the separate check: the word travels with the collective's first MPI call, made by
            // local rank 0 in every process
            span.span().carry(Signature.descriptor(c, dtype, op, root), count);
        }
    }

    /**
     * A blocking MPI call cannot be interrupted: an interrupt that came while this rank was inside one (or before
     * this call) is reported at its next collective across processes — a {@link CollectiveInterruptedException}
     * that aborts the team (and so the job) — never lost.
     */
    private void checkInterrupted(Collective c) {
        if (Thread.currentThread().isInterrupted()) {
            CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + globalId + " (thread "
                    + Thread.currentThread().getName() + ") was interrupted before " + c.cliName() + " across processes"
                    + " (or during an MPI call it could not leave); the team is aborted", id);
            rank.context.abort(e, id);
            throw e;
        }
    }

    /**
     * Op USER across processes needs the call's UserOp (the span's algorithms reduce with it, and MPI runs a
     * commutative one's function): through a DType overload it is refused before anything is sent, as in one
     * process.
     */
    private void requireUserOp(Op op) {
        if (op == Op.USER) {
            rank.userReducer();
        }
    }

    /**
     * The ordered reduce-scatter(-v): the chain allreduces the whole {@code send} of {@code total} elements into
     * this rank's result buffer, then this rank copies its block out.
     */
    private void chainScatter(MemorySegment send, MemorySegment recv, long total, DType dtype, Op op, long at, long count) {
        MemorySegment all = span.result(id, total * dtype.size());
        ChainAllreduce.run(span, local, send, all, total, dtype, op.foldOp());
        MemorySegment.copy(all, at * dtype.size(), recv, 0, count * dtype.size());
    }

    /**
     * AVG's division of this rank's result ({@code algo.Averaging}): the compositions fold AVG as SUM across every
     * process, so the contributions are counted by global rank.
     */
    private void average(Collective c, Op op, MemorySegment recv, long count, DType dtype) {
        io.coll4j.kernel.algo.Averaging.divide(c, op, dtype, globalId, globalSize, recv, 0, count);
    }
}
