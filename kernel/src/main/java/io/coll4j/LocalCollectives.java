package io.coll4j;

import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.Signature;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.kernel.algo.allreduce.SharedViewAllreduce;
import io.coll4j.kernel.span.LocalOps;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;

/**
 * One rank's collectives on its own process's ranks: each checks its arguments against the local rank number and
 * team size, then runs the selector's algorithm (or a plan's) through the rank's {@link RankEngine#execute}. The
 * collectives of a team of one process, and, as its {@link LocalOps}, the local half of every composition a team
 * spanning processes runs ({@link HierarchicalCollectives}): there it is called with local ids and roots, on the
 * rank's thread, after the public method checked the caller.
 */
final class LocalCollectives implements Collectives, LocalOps {
    static final SharedViewAllgather SHARED_VIEW = new SharedViewAllgather();
    static final SharedViewAllreduce SHARED_VIEW_ALLREDUCE = new SharedViewAllreduce();

    private final RankEngine rank;
    /** This rank's number among its process's ranks, and their number. */
    private final int id;
    private final int size;

    LocalCollectives(RankEngine rank) {
        this.rank = rank;
        this.id = rank.id;
        this.size = rank.context.size();
    }

    @Override
    public int localId() {
        return id;
    }

    @Override
    public int localSize() {
        return size;
    }

    @Override
    public UserOp userOp() {
        return rank.userOp;
    }

    @Override
    public Reducer reducer(DType dtype, Op op) {
        return op == Op.USER ? rank.userReducer() : rank.reducer(dtype, op);
    }

    // ---- the first six

    @Override
    public void barrier() {
        rank.execute(Collective.BARRIER, null, null, 0, null, null, -1, 0);
    }

    @Override
    public void bcast(MemorySegment buf, long count, DType dtype, int root) {
        Arguments.collective(Collective.BCAST, buf, buf, count, dtype, null, root, id, size);
        rank.execute(Collective.BCAST, buf, buf, count, dtype, null, root, count * dtype.size());
    }

    @Override
    public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        Arguments.collective(Collective.REDUCE, send, recv, count, dtype, op, root, id, size);
        rank.execute(Collective.REDUCE, send, id == root ? recv : null, count, dtype, op, root, count * dtype.size());
    }

    @Override
    public void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        Arguments.collective(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, id, size);
        rank.execute(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, count * dtype.size());
    }

    @Override
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        Arguments.collective(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, id, size);
        rank.execute(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, recvCount * dtype.size() * size);
    }

    @Override
    public void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        Arguments.collective(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, id, size);
        rank.execute(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, sendCount * dtype.size() * size);
    }

    // ---- the rest of the vocabulary; a plan's call passes its algorithm as {@code forced} (null: the selector's)

    @Override
    public void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        gather(null, send, recv, count, dtype, root);
    }

    void gather(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        long total = VocabularyArguments.gather(send, recv, count, dtype, root, id, size);
        rank.run(forced, Collective.GATHER, send, id == root ? recv : null, count, dtype, null, root, count, total, count,
                null, null, null, null);
    }

    @Override
    public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        scatter(null, send, recv, count, dtype, root);
    }

    void scatter(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        long total = VocabularyArguments.scatter(send, recv, count, dtype, root, id, size);
        rank.run(forced, Collective.SCATTER, id == root ? send : null, recv, count, dtype, null, root, count, total, count,
                null, null, null, null);
    }

    @Override
    public void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                        DType dtype, int root) {
        gatherv(null, send, sendCount, recv, recvCounts, displs, dtype, root);
    }

    void gatherv(CollectiveAlgorithm forced, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                 long[] displs, DType dtype, int root) {
        VocabularyArguments.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root, id, size);
        rank.run(forced, Collective.GATHERV, send, id == root ? recv : null, sendCount, dtype, null, root, 0, 0, 0,
                null, null, id == root ? recvCounts : null, id == root ? displs : null);
    }

    @Override
    public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                         DType dtype, int root) {
        scatterv(null, send, sendCounts, displs, recv, recvCount, dtype, root);
    }

    void scatterv(CollectiveAlgorithm forced, MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                  long recvCount, DType dtype, int root) {
        VocabularyArguments.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root, id, size);
        rank.run(forced, Collective.SCATTERV, id == root ? send : null, recv, recvCount, dtype, null, root, 0, 0, 0,
                id == root ? sendCounts : null, id == root ? displs : null, null, null);
    }

    @Override
    public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                           DType dtype) {
        allgatherv(null, send, sendCount, recv, recvCounts, displs, dtype);
    }

    void allgatherv(CollectiveAlgorithm forced, MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                    long[] displs, DType dtype) {
        long total = VocabularyArguments.allgatherv(send, sendCount, recv, recvCounts, displs, dtype, id, size);
        rank.run(forced, Collective.ALLGATHERV, send, recv, sendCount, dtype, null, -1, total / dtype.size(), total,
                Signature.countsWord(recvCounts), null, null, recvCounts, displs);
    }

    @Override
    public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        reduceScatterV(null, send, recv, recvCounts, dtype, op);
    }

    void reduceScatterV(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype,
                        Op op) {
        long total = VocabularyArguments.reduceScatterV(send, recv, recvCounts, dtype, op, id, size);
        int parity = (int) ((rank.call.seq() + 1) & 1);                 // the parity of the call about to begin
        long[] displs = rank.reduceScatterDispls[parity];
        if (displs == null) {
            displs = rank.reduceScatterDispls[parity] = new long[size];
        }
        for (int j = 1; j < displs.length; j++) {
            displs[j] = displs[j - 1] + recvCounts[j - 1];
        }
        rank.run(forced, Collective.REDUCE_SCATTER_V, send, recv, recvCounts[id], dtype, op, -1, total / dtype.size(), total,
                Signature.countsWord(recvCounts), null, null, recvCounts, displs);
    }

    @Override
    public void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        alltoall(null, send, recv, count, dtype);
    }

    void alltoall(CollectiveAlgorithm forced, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        long total = VocabularyArguments.alltoall(send, recv, count, dtype, id, size);
        rank.run(forced, Collective.ALLTOALL, send, recv, count, dtype, null, -1, count, total, count, null, null, null,
                null);
    }

    @Override
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                          long[] recvDispls, DType dtype) {
        alltoallv(null, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
    }

    void alltoallv(CollectiveAlgorithm forced, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                   long[] recvCounts, long[] recvDispls, DType dtype) {
        VocabularyArguments.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype, id, size);
        rank.run(forced, Collective.ALLTOALLV, send, recv, 0, dtype, null, -1, 0, 0, 0, sendCounts, sendDispls, recvCounts,
                recvDispls);
    }

    @Override
    public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(null, Collective.SCAN, send, recv, count, dtype, op);
    }

    @Override
    public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        scan(null, Collective.EXSCAN, send, recv, count, dtype, op);
    }

    /** Scan or exscan ({@code c}). */
    void scan(CollectiveAlgorithm forced, Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
              Op op) {
        long bytes = VocabularyArguments.scan(send, recv, count, dtype, op, id);
        rank.run(forced, c, send, recv, count, dtype, op, -1, count, bytes, count, null, null, null, null);
    }

    // ---- shared views [MPI+MPI §4.1]

    @Override
    public MemorySegment allgatherShared(MemorySegment send, long sendCount, DType dtype) {
        VocabularyArguments.allgatherShared(send, sendCount, dtype, id, size);
        rank.execute(SHARED_VIEW, Collective.ALLGATHER, send, null, sendCount, dtype, null,
                SharedViewAllgather.SIGNATURE_ROOT);
        return SharedViewAllgather.view(rank.call);
    }

    @Override
    public MemorySegment allreduceShared(MemorySegment send, long count, DType dtype, Op op) {
        VocabularyArguments.allreduceShared(send, count, dtype, op, id);
        rank.execute(SHARED_VIEW_ALLREDUCE, Collective.ALLREDUCE, send, null, count, dtype, op,
                SharedViewAllgather.SIGNATURE_ROOT);
        return SharedViewAllreduce.view(rank.call);
    }

    // ---- plans

    /**
     * Validates a plan's call with the same validator as the collective's method ({@link Arguments#buffers}), then
     * runs the plan's algorithm. Kept under C2's FreqInlineSize (325 bytes of bytecode) so that it inlines into the
     * caller's loop (at 328 bytes it did not, and the 8-byte allreduce took ~10 ns more). The collectives that run
     * through their own methods are calls of their own.
     */
    @Override
    public void execute(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        Collective c = plan.collective();
        switch (c) {
            case GATHER, SCATTER, ALLTOALL, SCAN, EXSCAN, GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTER_V, ALLTOALLV -> {
                executeByMethod(plan, send, recv);
                return;
            }
            default -> { }
        }
        long count = plan.count();
        DType t = plan.dtype();
        int root = plan.root();
        Arguments.buffers(c, send, c == Collective.BCAST ? send : recv, count, t, root, id, size);
        MemorySegment r = switch (c) {
            case BARRIER -> null;
            case BCAST -> send;
            case REDUCE -> id == root ? recv : null;
            default -> recv;
        };
        rank.execute(plan.algorithm(), c, c == Collective.BARRIER ? null : send, r, count, t, plan.op(), root);
    }

    /** A plan of a collective whose method validates and runs it with the plan's algorithm. */
    private void executeByMethod(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        Collective c = plan.collective();
        long count = plan.count();
        DType t = plan.dtype();
        CollectiveAlgorithm alg = plan.algorithm();
        switch (c) {
            case GATHER -> gather(alg, send, recv, count, t, plan.root());
            case SCATTER -> scatter(alg, send, recv, count, t, plan.root());
            case ALLTOALL -> alltoall(alg, send, recv, count, t);
            case SCAN, EXSCAN -> scan(alg, c, send, recv, count, t, plan.op());
            default -> throw new IllegalArgumentException(c.cliName() + " needs its count arrays: use "
                    + "execute(send, sendCounts, sendDispls, recv, recvCounts, recvDispls)");
        }
    }

    @Override
    public void executeVector(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls,
                              MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        CollectiveAlgorithm alg = plan.algorithm();
        DType t = plan.dtype();
        switch (plan.collective()) {
            case GATHERV -> gatherv(alg, send, VocabularyArguments.mine("sendCounts", sendCounts, id, size), recv,
                    recvCounts, recvDispls, t, plan.root());
            case SCATTERV -> scatterv(alg, send, sendCounts, sendDispls, recv,
                    VocabularyArguments.mine("recvCounts", recvCounts, id, size), t, plan.root());
            case ALLGATHERV -> allgatherv(alg, send, VocabularyArguments.mine("sendCounts", sendCounts, id, size), recv,
                    recvCounts, recvDispls, t);
            case REDUCE_SCATTER_V -> reduceScatterV(alg, send, recv, recvCounts, t, plan.op());
            case ALLTOALLV -> alltoallv(alg, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            default -> throw new IllegalArgumentException(plan.collective().cliName()
                    + " has no count arrays: use execute(send, recv)");
        }
    }
}
