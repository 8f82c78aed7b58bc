package io.coll4j;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.kernel.span.SpanRequest;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;

/**
 * The non-blocking, persistent and chained forms of every collective: their issue into the team's
 * non-blocking engine (one exchange per call, matched across ranks by issue order), the v-variants' copied
 * counts, the user-op overloads; on a team spanning processes each call's schedule across processes comes from
 * the rank's {@link HierarchicalRequests} and runs as a {@code SpanRequest}.
 */
abstract class RankRequests extends RankVocabulary {
    /** The requests' compositions across processes (their non-blocking schedules); null on a team of one process. */
    final HierarchicalRequests spanRequests;

    RankRequests(Team team, int id) {
        super(team, id);
        this.spanRequests = span == null ? null : new HierarchicalRequests(this, span, local);
    }

    // ------------------------------------------------------------------ non-blocking, persistent and chained collectives

    /** Issue number of this rank's last non-blocking call or persistent init (the same sequence on every rank). */
    long issued;

    /**
     * Non-blocking {@link Rank#barrier()}: complete once every rank has issued it. Non-blocking calls are
     * matched across ranks by issue order — every rank must issue the same non-blocking and persistent-init
     * calls in the same order — independently of the blocking collectives. Any number may be outstanding
     * and they may be awaited in any order (see {@link Request}).
     */
    public Request ibarrier() {
        return issue(barrierArgs());
    }

    /** Non-blocking {@link Rank#bcast(MemorySegment, long, DType, int)}. */
    public Request ibcast(MemorySegment buf, long count, DType dtype, int root) {
        return issue(bcastArgs(buf, count, dtype, root));
    }

    /** Non-blocking {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)}. */
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return issue(reduceArgs(send, recv, count, dtype, op, root));
    }

    /** Non-blocking {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return issue(allreduceArgs(send, recv, count, dtype, op));
    }

    /** Non-blocking {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return issue(reduceScatterArgs(send, recv, recvCount, dtype, op));
    }

    /** Non-blocking {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)}. */
    public Request iallgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        return issue(allgatherArgs(send, recv, sendCount, dtype));
    }

    /** Non-blocking {@link #gather(MemorySegment, MemorySegment, long, DType, int)}. */
    public Request igather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return issue(gatherArgs(send, recv, count, dtype, root));
    }

    /** Non-blocking {@link #scatter(MemorySegment, MemorySegment, long, DType, int)}. */
    public Request iscatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return issue(scatterArgs(send, recv, count, dtype, root));
    }

    /** Non-blocking {@link #alltoall(MemorySegment, MemorySegment, long, DType)}. */
    public Request ialltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        return issue(alltoallArgs(send, recv, count, dtype));
    }

    /** Non-blocking {@link #scan(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return issue(scanArgs(Collective.SCAN, send, recv, count, dtype, op));
    }

    /** Non-blocking {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iexscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return issue(scanArgs(Collective.EXSCAN, send, recv, count, dtype, op));
    }

    /**
     * Non-blocking {@link #gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)}. The count
     * arrays are copied when issued. A rank whose {@code sendCount} differs from the root's
     * {@code recvCounts[rank]} is a {@link CollectiveMismatchException} on every rank's request.
     */
    public Request igatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                            DType dtype, int root) {
        return issue(gathervArgs(send, sendCount, recv, recvCounts, displs, dtype, root));
    }

    /** Non-blocking {@link #scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} (counts copied when issued). */
    public Request iscatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                             DType dtype, int root) {
        return issue(scattervArgs(send, sendCounts, displs, recv, recvCount, dtype, root));
    }

    /**
     * Non-blocking {@link #allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} (counts copied
     * when issued); {@code recvCounts} differing between ranks is a {@link CollectiveMismatchException}.
     */
    public Request iallgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                               DType dtype) {
        return issue(allgathervArgs(send, sendCount, recv, recvCounts, displs, dtype));
    }

    /**
     * Non-blocking {@link #reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} (counts copied when
     * issued); {@code recvCounts} differing between ranks is a {@link CollectiveMismatchException}.
     */
    public Request ireduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        return issue(reduceScatterVArgs(send, recv, recvCounts, dtype, op));
    }

    /**
     * Non-blocking {@link #alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} (counts
     * copied when issued); a rank's {@code sendCounts[j]} differing from rank j's {@code recvCounts[rank]} is
     * a {@link CollectiveMismatchException}.
     */
    public Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                              long[] recvCounts, long[] recvDispls, DType dtype) {
        return issue(alltoallvArgs(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype));
    }

    /**
     * A call as a request takes it, checked as by the blocking method (and on this rank's thread): the buffers
     * it registers (a root's buffer only at the root), and a v-collective's copied counts (its count in the
     * exchange's key is 0). One per collective, shared by the non-blocking and the persistent form.
     */
    record CallArgs(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root,
                    VectorCall call) {
    }

    CallArgs barrierArgs() {
        checkCaller();
        return new CallArgs(Collective.BARRIER, null, null, 0, null, null, -1, null);
    }

    CallArgs bcastArgs(MemorySegment buf, long count, DType dtype, int root) {
        checkCaller();
        validate(Collective.BCAST, buf, buf, count, dtype, null, root);
        return new CallArgs(Collective.BCAST, buf, buf, count, dtype, null, root, null);
    }

    CallArgs reduceArgs(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        checkCaller();
        validate(Collective.REDUCE, send, recv, count, dtype, op, root);
        return new CallArgs(Collective.REDUCE, send, id() == root ? recv : null, count, dtype, op, root, null);
    }

    CallArgs allreduceArgs(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        validate(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
        return new CallArgs(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, null);
    }

    CallArgs reduceScatterArgs(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        checkCaller();
        validate(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
        return new CallArgs(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, null);
    }

    CallArgs allgatherArgs(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        checkCaller();
        validate(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
        return new CallArgs(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, null);
    }

    CallArgs gatherArgs(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        VocabularyArguments.gather(send, recv, count, dtype, root, id(), size());
        return new CallArgs(Collective.GATHER, send, id() == root ? recv : null, count, dtype, null, root, null);
    }

    CallArgs scatterArgs(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        VocabularyArguments.scatter(send, recv, count, dtype, root, id(), size());
        return new CallArgs(Collective.SCATTER, id() == root ? send : null, recv, count, dtype, null, root, null);
    }

    CallArgs alltoallArgs(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        VocabularyArguments.alltoall(send, recv, count, dtype, id(), size());
        return new CallArgs(Collective.ALLTOALL, send, recv, count, dtype, null, -1, null);
    }

    /** Scan or exscan ({@code c}). */
    CallArgs scanArgs(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        VocabularyArguments.scan(send, recv, count, dtype, op, id());
        return new CallArgs(c, send, recv, count, dtype, op, -1, null);
    }

    CallArgs gathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                   long[] displs, DType dtype, int root) {
        checkCaller();
        VocabularyArguments.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root, id(), size());
        // the root's arrays only at the root (ignored elsewhere, may be null there)
        boolean atRoot = id() == root;
        return new CallArgs(Collective.GATHERV, send, atRoot ? recv : null, 0, dtype, null, root,
                VectorCall.copyOf(sendCount, null, null, atRoot ? recvCounts : null, atRoot ? displs : null));
    }

    CallArgs scattervArgs(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                                    long recvCount, DType dtype, int root) {
        checkCaller();
        VocabularyArguments.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root, id(), size());
        boolean atRoot = id() == root;
        return new CallArgs(Collective.SCATTERV, atRoot ? send : null, recv, 0, dtype, null, root,
                VectorCall.copyOf(recvCount, atRoot ? sendCounts : null, atRoot ? displs : null, null, null));
    }

    CallArgs allgathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                      long[] displs, DType dtype) {
        checkCaller();
        VocabularyArguments.allgatherv(send, sendCount, recv, recvCounts, displs, dtype, id(), size());
        return new CallArgs(Collective.ALLGATHERV, send, recv, 0, dtype, null, -1,
                VectorCall.copyOf(sendCount, null, null, recvCounts, displs));
    }

    CallArgs reduceScatterVArgs(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        checkCaller();
        VocabularyArguments.reduceScatterV(send, recv, recvCounts, dtype, op, id(), size());
        return new CallArgs(Collective.REDUCE_SCATTER_V, send, recv, 0, dtype, op, -1,
                VectorCall.copyOf(0, null, null, recvCounts, null));
    }

    CallArgs alltoallvArgs(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                     long[] recvCounts, long[] recvDispls, DType dtype) {
        checkCaller();
        VocabularyArguments.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype, id(),
                size());
        return new CallArgs(Collective.ALLTOALLV, send, recv, 0, dtype, null, -1,
                VectorCall.copyOf(0, sendCounts, sendDispls, recvCounts, recvDispls));
    }

    // ---- user-defined ops on requests: as blocking, the UserOp's function in ascending rank order (the
    // exchange folds every rank's contribution left to right), on whichever thread progresses the request

    /** Non-blocking {@link #reduce(MemorySegment, MemorySegment, long, UserOp, int)}. */
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        return withUserOp(op, () -> ireduce(send, recv, count, op.dtype(), Op.USER, root));
    }

    /** Non-blocking {@link #allreduce(MemorySegment, MemorySegment, long, UserOp)}. */
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> iallreduce(send, recv, count, op.dtype(), Op.USER));
    }

    /** Non-blocking {@link #reduceScatter(MemorySegment, MemorySegment, long, UserOp)}. */
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        return withUserOp(op, () -> ireduceScatter(send, recv, recvCount, op.dtype(), Op.USER));
    }

    /** Non-blocking {@link #reduceScatterV(MemorySegment, MemorySegment, long[], UserOp)}. */
    public Request ireduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, UserOp op) {
        return withUserOp(op, () -> ireduceScatterV(send, recv, recvCounts, op.dtype(), Op.USER));
    }

    /** Non-blocking {@link #scan(MemorySegment, MemorySegment, long, UserOp)}. */
    public Request iscan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> iscan(send, recv, count, op.dtype(), Op.USER));
    }

    /** Non-blocking {@link #exscan(MemorySegment, MemorySegment, long, UserOp)}. */
    public Request iexscan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> iexscan(send, recv, count, op.dtype(), Op.USER));
    }

    /** Persistent {@link #reduce(MemorySegment, MemorySegment, long, UserOp, int)} bound to its buffers. */
    public PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        return withUserOp(op, () -> reduceInit(send, recv, count, op.dtype(), Op.USER, root));
    }

    /** Persistent {@link #allreduce(MemorySegment, MemorySegment, long, UserOp)} bound to its buffers. */
    public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> allreduceInit(send, recv, count, op.dtype(), Op.USER));
    }

    /** Persistent {@link #reduceScatter(MemorySegment, MemorySegment, long, UserOp)} bound to its buffers. */
    public PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        return withUserOp(op, () -> reduceScatterInit(send, recv, recvCount, op.dtype(), Op.USER));
    }

    /** Persistent {@link #reduceScatterV(MemorySegment, MemorySegment, long[], UserOp)} bound to its buffers and counts. */
    public PersistentRequest reduceScatterVInit(MemorySegment send, MemorySegment recv, long[] recvCounts, UserOp op) {
        return withUserOp(op, () -> reduceScatterVInit(send, recv, recvCounts, op.dtype(), Op.USER));
    }

    /** Persistent {@link #scan(MemorySegment, MemorySegment, long, UserOp)} bound to its buffers. */
    public PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> scanInit(send, recv, count, op.dtype(), Op.USER));
    }

    /** Persistent {@link #exscan(MemorySegment, MemorySegment, long, UserOp)} bound to its buffers. */
    public PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return withUserOp(op, () -> exscanInit(send, recv, count, op.dtype(), Op.USER));
    }

    /** Persistent {@link Rank#barrier()} (see {@link PersistentRequest}); issued like a non-blocking call. */
    public PersistentRequest barrierInit() {
        return init(barrierArgs());
    }

    /** Persistent {@link Rank#bcast(MemorySegment, long, DType, int)} bound to {@code buf}. */
    public PersistentRequest bcastInit(MemorySegment buf, long count, DType dtype, int root) {
        return init(bcastArgs(buf, count, dtype, root));
    }

    /** Persistent {@link Rank#reduce(MemorySegment, MemorySegment, long, DType, Op, int)} bound to its buffers. */
    public PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return init(reduceArgs(send, recv, count, dtype, op, root));
    }

    /** Persistent {@link Rank#allreduce(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return init(allreduceArgs(send, recv, count, dtype, op));
    }

    /** Persistent {@link Rank#reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return init(reduceScatterArgs(send, recv, recvCount, dtype, op));
    }

    /** Persistent {@link Rank#allgather(MemorySegment, MemorySegment, long, DType)} bound to its buffers. */
    public PersistentRequest allgatherInit(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        return init(allgatherArgs(send, recv, sendCount, dtype));
    }

    /** Persistent {@link #gather(MemorySegment, MemorySegment, long, DType, int)} bound to its buffers. */
    public PersistentRequest gatherInit(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return init(gatherArgs(send, recv, count, dtype, root));
    }

    /** Persistent {@link #scatter(MemorySegment, MemorySegment, long, DType, int)} bound to its buffers. */
    public PersistentRequest scatterInit(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return init(scatterArgs(send, recv, count, dtype, root));
    }

    /** Persistent {@link #alltoall(MemorySegment, MemorySegment, long, DType)} bound to its buffers. */
    public PersistentRequest alltoallInit(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        return init(alltoallArgs(send, recv, count, dtype));
    }

    /** Persistent {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return init(scanArgs(Collective.SCAN, send, recv, count, dtype, op));
    }

    /** Persistent {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return init(scanArgs(Collective.EXSCAN, send, recv, count, dtype, op));
    }

    /** Persistent {@link #gatherv(MemorySegment, long, MemorySegment, long[], long[], DType, int)} bound to its buffers and counts. */
    public PersistentRequest gathervInit(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                         long[] displs, DType dtype, int root) {
        return init(gathervArgs(send, sendCount, recv, recvCounts, displs, dtype, root));
    }

    /** Persistent {@link #scatterv(MemorySegment, long[], long[], MemorySegment, long, DType, int)} bound to its buffers and counts. */
    public PersistentRequest scattervInit(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                                          long recvCount, DType dtype, int root) {
        return init(scattervArgs(send, sendCounts, displs, recv, recvCount, dtype, root));
    }

    /** Persistent {@link #allgatherv(MemorySegment, long, MemorySegment, long[], long[], DType)} bound to its buffers and counts. */
    public PersistentRequest allgathervInit(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                            long[] displs, DType dtype) {
        return init(allgathervArgs(send, sendCount, recv, recvCounts, displs, dtype));
    }

    /** Persistent {@link #reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} bound to its buffers and counts. */
    public PersistentRequest reduceScatterVInit(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        return init(reduceScatterVArgs(send, recv, recvCounts, dtype, op));
    }

    /** Persistent {@link #alltoallv(MemorySegment, long[], long[], MemorySegment, long[], long[], DType)} bound to its buffers and counts. */
    public PersistentRequest alltoallvInit(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                           long[] recvCounts, long[] recvDispls, DType dtype) {
        return init(alltoallvArgs(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype));
    }

    /**
     * A planned v-variant bound to buffers and counts: the persistent form of {@code plan}'s collective, with
     * the arguments of {@link CollectivePlan#execute(MemorySegment, long[], long[], MemorySegment, long[], long[])}
     * (gatherv and allgatherv take this rank's send count from {@code sendCounts}, scatterv its receive count
     * from {@code recvCounts}). Runs the non-blocking schedule, not the plan's blocking algorithm.
     */
    public PersistentRequest init(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls,
                                  MemorySegment recv, long[] recvCounts, long[] recvDispls) {
        checkCaller();
        if (plan == null) {
            throw new IllegalArgumentException("plan must not be null");
        }
        DType t = plan.dtype();
        return switch (plan.collective()) {
            case GATHERV -> gathervInit(send, VocabularyArguments.mine("sendCounts", sendCounts, id(), size()), recv,
                    recvCounts, recvDispls, t, plan.root());
            case SCATTERV -> scattervInit(send, sendCounts, sendDispls, recv,
                    VocabularyArguments.mine("recvCounts", recvCounts, id(), size()), t, plan.root());
            case ALLGATHERV -> allgathervInit(send, VocabularyArguments.mine("sendCounts", sendCounts, id(), size()), recv,
                    recvCounts, recvDispls, t);
            case REDUCE_SCATTER_V -> reduceScatterVInit(send, recv, recvCounts, t, plan.op());
            case ALLTOALLV -> alltoallvInit(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            default -> throw new IllegalArgumentException(plan.collective().cliName()
                    + " has no count arrays: use init(plan, send, recv)");
        };
    }

    /**
     * A plan bound to buffers: the persistent form of {@code plan}'s collective ({@code recv} ignored for
     * barrier and bcast, as by {@link CollectivePlan#execute}). Runs the non-blocking schedule, not the
     * plan's blocking algorithm.
     */
    public PersistentRequest init(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        checkCaller();
        if (plan == null) {
            throw new IllegalArgumentException("plan must not be null");
        }
        Collective c = plan.collective();
        switch (c) {
            case GATHER -> {
                return gatherInit(send, recv, plan.count(), plan.dtype(), plan.root());
            }
            case SCATTER -> {
                return scatterInit(send, recv, plan.count(), plan.dtype(), plan.root());
            }
            case ALLTOALL -> {
                return alltoallInit(send, recv, plan.count(), plan.dtype());
            }
            case SCAN -> {
                return scanInit(send, recv, plan.count(), plan.dtype(), plan.op());
            }
            case EXSCAN -> {
                return exscanInit(send, recv, plan.count(), plan.dtype(), plan.op());
            }
            case GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTER_V, ALLTOALLV -> throw new IllegalArgumentException(
                    c.cliName() + " needs its count arrays: use init(plan, send, sendCounts, sendDispls, recv, recvCounts, recvDispls)");
            default -> { }
        }
        MemorySegment r = c == Collective.BCAST ? send : recv;
        if (c != Collective.BARRIER) {
            validate(c, send, r, plan.count(), plan.dtype(), plan.op(), plan.root());
        }
        return switch (c) {
            case BARRIER -> init(new CallArgs(c, null, null, 0, null, null, -1, null));
            case REDUCE -> init(new CallArgs(c, send, id() == plan.root() ? recv : null, plan.count(), plan.dtype(),
                    plan.op(), plan.root(), null));
            default -> init(new CallArgs(c, send, r, plan.count(), plan.dtype(), plan.op(), plan.root(), null));
        };
    }

    /**
     * A schedule of collectives and local steps run as one request [PAMI §4.1–4.2], e.g. reduce-scatter →
     * a function on this rank's block → allgather. Every rank must build the same schedule of collectives.
     */
    public Chain chain() {
        checkCaller();
        return new Chain((Rank) this);
    }

    /** True when this rank's team spans processes (its chains then run as a {@link SpanRequest}). */
    boolean spansProcesses() {
        return span != null;
    }

    /** The team's state (a chain across processes runs on it). */
    TeamContext context() {
        return context;
    }

    /** The non-blocking form of a checked call: its single round posted now. */
    Request issue(CallArgs a) {
        return join(a, false);
    }

    /** The persistent form of a checked call: inactive until its first {@code start()}. */
    PersistentRequest init(CallArgs a) {
        return join(a, true);
    }

    /** Joins call {@code a} under the next issue number: the team's exchange, or across processes a SpanRequest. */
    private PersistentRequest join(CallArgs a, boolean persistent) {
        if (spanRequests != null) {
            return spanRequests.request(a.c(), a.send(), a.recv(), a.count(), a.dtype(), a.op(), a.root(), a.call(), persistent);
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, a.c(), a.count(), a.dtype(), a.op(), a.root(), persistent,
                a.send(), a.recv(), a.call(), requestReducer(a.op()));
        if (persistent) {
            return io.coll4j.kernel.nb.CollectiveRequest.persistent(engine, x, id);
        }
        io.coll4j.kernel.nb.CollectiveRequest r = io.coll4j.kernel.nb.CollectiveRequest.oneShot(engine, x, id);
        r.prepareNext(issued);
        return r;
    }

    /** Joins a chain's collective stage under the next issue number; the chain posts it when the stage is reached. */
    io.coll4j.kernel.nb.CollectiveRequest joinStage(CallArgs a, UserOp user) {
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, a.c(), a.count(), a.dtype(), a.op(), a.root(), false,
                a.send(), a.recv(), a.call(), a.op() == Op.USER ? user.reducer() : null);
        return io.coll4j.kernel.nb.CollectiveRequest.unposted(engine, x, id);
    }
}
