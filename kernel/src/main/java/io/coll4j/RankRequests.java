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
 * The non-blocking, persistent and chained forms of every collective: their issue into the team's
 * non-blocking engine (one exchange per call, matched across ranks by issue order), the v-variants' copied
 * counts, the user-op overloads, and on a team spanning processes the leader algorithms' stages run as a
 * {@code SpanRequest}.
 */
abstract class RankRequests extends RankVocabulary {
    RankRequests(Team team, int id) {
        super(team, id);
    }

    // ------------------------------------------------------------------ non-blocking, persistent and chained collectives

    /** Issue number of this rank's last non-blocking call or persistent init (the same sequence on every rank). */
    long issued;

    /**
     * Non-blocking {@link #barrier()}: complete once every rank has issued it. Non-blocking calls are
     * matched across ranks by issue order — every rank must issue the same non-blocking and persistent-init
     * calls in the same order — independently of the blocking collectives. Any number may be outstanding
     * and they may be awaited in any order (see {@link Request}).
     */
    public Request ibarrier() {
        return issue(barrierArgs());
    }

    /** Non-blocking {@link #bcast(MemorySegment, long, DType, int)}. */
    public Request ibcast(MemorySegment buf, long count, DType dtype, int root) {
        return issue(bcastArgs(buf, count, dtype, root));
    }

    /** Non-blocking {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)}. */
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return issue(reduceArgs(send, recv, count, dtype, op, root));
    }

    /** Non-blocking {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return issue(allreduceArgs(send, recv, count, dtype, op));
    }

    /** Non-blocking {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return issue(reduceScatterArgs(send, recv, recvCount, dtype, op));
    }

    /** Non-blocking {@link #allgather(MemorySegment, MemorySegment, long, DType)}. */
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
        return new CallArgs(Collective.REDUCE, send, callId() == root ? recv : null, count, dtype, op, root, null);
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
        checkGather(send, recv, count, dtype, root);
        return new CallArgs(Collective.GATHER, send, callId() == root ? recv : null, count, dtype, null, root, null);
    }

    CallArgs scatterArgs(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        checkScatter(send, recv, count, dtype, root);
        return new CallArgs(Collective.SCATTER, callId() == root ? send : null, recv, count, dtype, null, root, null);
    }

    CallArgs alltoallArgs(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        checkAlltoall(send, recv, count, dtype);
        return new CallArgs(Collective.ALLTOALL, send, recv, count, dtype, null, -1, null);
    }

    /** Scan or exscan ({@code c}). */
    CallArgs scanArgs(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        checkScan(send, recv, count, dtype, op);
        return new CallArgs(c, send, recv, count, dtype, op, -1, null);
    }

    CallArgs gathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                   long[] displs, DType dtype, int root) {
        checkCaller();
        checkGatherv(send, sendCount, recv, recvCounts, displs, dtype, root);
        // the root's arrays only at the root (ignored elsewhere, may be null there)
        boolean atRoot = callId() == root;
        return new CallArgs(Collective.GATHERV, send, atRoot ? recv : null, 0, dtype, null, root,
                VectorCall.copyOf(sendCount, null, null, atRoot ? recvCounts : null, atRoot ? displs : null));
    }

    CallArgs scattervArgs(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                                    long recvCount, DType dtype, int root) {
        checkCaller();
        checkScatterv(send, sendCounts, displs, recv, recvCount, dtype, root);
        boolean atRoot = callId() == root;
        return new CallArgs(Collective.SCATTERV, atRoot ? send : null, recv, 0, dtype, null, root,
                VectorCall.copyOf(recvCount, atRoot ? sendCounts : null, atRoot ? displs : null, null, null));
    }

    CallArgs allgathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                      long[] displs, DType dtype) {
        checkCaller();
        checkAllgatherv(send, sendCount, recv, recvCounts, displs, dtype);
        return new CallArgs(Collective.ALLGATHERV, send, recv, 0, dtype, null, -1,
                VectorCall.copyOf(sendCount, null, null, recvCounts, displs));
    }

    CallArgs reduceScatterVArgs(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        checkCaller();
        checkReduceScatterV(send, recv, recvCounts, dtype, op);
        return new CallArgs(Collective.REDUCE_SCATTER_V, send, recv, 0, dtype, op, -1,
                VectorCall.copyOf(0, null, null, recvCounts, null));
    }

    CallArgs alltoallvArgs(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                     long[] recvCounts, long[] recvDispls, DType dtype) {
        checkCaller();
        checkAlltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
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

    /** Persistent {@link #barrier()} (see {@link PersistentRequest}); issued like a non-blocking call. */
    public PersistentRequest barrierInit() {
        return init(barrierArgs());
    }

    /** Persistent {@link #bcast(MemorySegment, long, DType, int)} bound to {@code buf}. */
    public PersistentRequest bcastInit(MemorySegment buf, long count, DType dtype, int root) {
        return init(bcastArgs(buf, count, dtype, root));
    }

    /** Persistent {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} bound to its buffers. */
    public PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return init(reduceArgs(send, recv, count, dtype, op, root));
    }

    /** Persistent {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return init(allreduceArgs(send, recv, count, dtype, op));
    }

    /** Persistent {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return init(reduceScatterArgs(send, recv, recvCount, dtype, op));
    }

    /** Persistent {@link #allgather(MemorySegment, MemorySegment, long, DType)} bound to its buffers. */
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
            case GATHERV -> gathervInit(send, mine("sendCounts", sendCounts), recv, recvCounts, recvDispls, t, plan.root());
            case SCATTERV -> scattervInit(send, sendCounts, sendDispls, recv, mine("recvCounts", recvCounts), t, plan.root());
            case ALLGATHERV -> allgathervInit(send, mine("sendCounts", sendCounts), recv, recvCounts, recvDispls, t);
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
            case REDUCE -> init(new CallArgs(c, send, callId() == plan.root() ? recv : null, plan.count(), plan.dtype(),
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
        if (span != null) {
            return spannedRequest(a.c(), a.send(), a.recv(), a.count(), a.dtype(), a.op(), a.root(), a.call(), persistent);
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, a.c(), a.count(), a.dtype(), a.op(), a.root(), persistent,
                a.send(), a.recv(), a.call(), requestReducer(a.op()));
        return persistent ? io.coll4j.kernel.nb.CollectiveRequest.persistent(engine, x, id)
                : io.coll4j.kernel.nb.CollectiveRequest.oneShot(engine, x, id);
    }

    /**
     * A non-blocking or persistent collective of a team that spans processes: the non-blocking schedule of its
     * leader algorithm ({@link SpanRequest}), every collective and v-variant; on a team that folds in global rank
     * order the reductions' chain of the leaders instead.
     */
    SpanRequest spannedRequest(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                       int root, VectorCall call, boolean persistent) {
        String what = (persistent ? "persistent " : "non-blocking ") + c.cliName();
        // a one-shot request gives its staging buffers back when it completes; a persistent one keeps them
        java.util.function.Supplier<List<SpanRequest.Stage>> schedule = () -> spannedStages(c, send, recv, count, dtype, op, root, what, call);
        io.coll4j.kernel.span.RequestBuffers.Collected<List<SpanRequest.Stage>> built = persistent
                ? new io.coll4j.kernel.span.RequestBuffers.Collected<>(schedule.get(), List.of())
                : io.coll4j.kernel.span.RequestBuffers.collect(schedule);
        List<SpanRequest.Stage> stages = built.value();
        // the cross-process mismatch check: every one-shot request (the word the small blocking calls carry
        // cannot travel with a request's MPI calls), a persistent request's first round (as a plan's first call);
        // a v-variant's count word as its blocking call's (the hash of recvCounts where every rank knows them)
        long word = count;
        if (call != null && (c == Collective.ALLGATHERV || c == Collective.REDUCE_SCATTER_V)) {
            word = Signature.countsWord(call.recvCounts());
        }
        if (persistent ? SpanCheck.dueForPlan() : SpanCheck.dueForRequest()) {
            stages = checked(stages, Signature.descriptor(c, dtype, op, root), word);
        }
        long bytes = dtype == null ? 0 : count * dtype.size();
        return persistent ? SpanRequest.persistent(stages, spanQueue(), context, id, what, c.cliName(), bytes)
                : SpanRequest.oneShot(stages, spanQueue(), context, id, what, built.buffers(), c.cliName(), bytes);
    }

    /**
     * This rank's stages of collective {@code c} across processes (the leader algorithm's {@code schedule}), its
     * local stages joined now under the next issue numbers: a request's, or a chain's collective stage.
     */
    List<SpanRequest.Stage> spannedStages(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
                                          Op op, int root, String what) {
        return spannedStages(c, send, recv, count, dtype, op, root, what, null);
    }

    /** {@link #spannedStages(Collective, MemorySegment, MemorySegment, long, DType, Op, int, String)} of a v-variant's {@code call}. */
    List<SpanRequest.Stage> spannedStages(Collective c, MemorySegment send, MemorySegment recv, long count,
                                                  DType dtype, Op op, int root, String what,
                                                  io.coll4j.kernel.nb.VectorCall v) {
        List<SpanRequest.Stage> stages = leaderStages(c, send, recv, count, dtype, op, root, what, v);
        if (op != Op.AVG) {
            return stages;
        }
        // every schedule folds AVG as SUM (op.foldOp()); this rank divides its own result once its last stage is
        // done here, as the blocking call divides after its algorithm (Averaging: the same count of contributions)
        MemorySegment out = c == Collective.REDUCE && id() != root ? null : recv;
        long n = c == Collective.REDUCE_SCATTER_V ? v.recvCounts()[id()] : count;
        int me = id();
        int p = size();
        List<SpanRequest.Stage> divided = new java.util.ArrayList<>(stages);
        divided.add(new SpanRequest.Step(() -> io.coll4j.kernel.algo.Averaging.divide(c, op, dtype, me, p, out, 0, n)));
        return divided;
    }

    /** The leader algorithm's stages of {@code c} (or, folding in rank order, the leaders' chain), AVG as SUM. */
    private List<SpanRequest.Stage> leaderStages(Collective c, MemorySegment send, MemorySegment recv, long count,
                                                 DType dtype, Op op, int root, String what,
                                                 io.coll4j.kernel.nb.VectorCall v) {
        refuseAcrossProcesses(op, what);
        boolean ordered = c.reduces() && inRankOrder(op);
        if (!span.even() && (ordered || !UNEVEN_REQUESTS.contains(c))) {
            // the request schedules of these assume one T in every process (their blocks and counts per process)
            throw new UnsupportedOperationException(what + (ordered ? " of a reproducible(true) team" : "") + " is not "
                    + "available on a sub-team across processes whose processes hold different numbers of ranks; the "
                    + "blocking form is, and the requests of barrier, bcast, reduce, allreduce, reduce-scatter and allgather");
        }
        // the most elements one MPI call moves: a process block (every process decides alike), or for reduce-scatter on
        // processes holding different numbers of ranks the whole vector (the leaders allreduce it)
        long perProcess = c == Collective.REDUCE_SCATTER && !span.even() ? count * size()
                : c == Collective.ALLGATHER || c == Collective.REDUCE_SCATTER ? count * span.maxCount() : count;
        if (perProcess > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " across processes moves " + perProcess + " elements per process in "
                    + "one MPI non-blocking call, more than MPI's int count allows; use the blocking form (it cuts chunks)");
        }
        long movedBytes = ordered ? orderedBytes(c, count, dtype, v) : bytesOfOneMpiCall(c, count, dtype);
        if (movedBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " across processes spans " + movedBytes + " bytes in one MPI call (its "
                    + "byte counts and displacements), more than MPI's int allows");
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        LocalJoin join = new LocalJoin() {
            @Override
            public long reserve() {
                return ++issued;
            }

            @Override
            public io.coll4j.kernel.nb.CollectiveRequest joinAt(long n, Collective lc, MemorySegment ls, MemorySegment lr,
                                                                long count, DType t, Op o, int r,
                                                                io.coll4j.kernel.nb.VectorCall v) {
                return io.coll4j.kernel.nb.CollectiveRequest.persistent(engine,
                        engine.join(n, id, lc, count, t, o, r, true, ls, lr, v, null), id);
            }
        };
        if (ordered) {
            return orderedStages(join, c, send, recv, count, dtype, op.foldOp(), root, v);
        }
        return switch (c) {
            case BARRIER -> LeaderBarrier.schedule(span, local, join);
            case BCAST -> LeaderBcast.schedule(span, local, join, send, count, dtype, root);
            case REDUCE -> LeaderReduce.schedule(span, local, join, send, recv, count, dtype, op.foldOp(), root);
            case ALLREDUCE -> LeaderAllreduce.schedule(span, local, join, send, recv, count, dtype, op.foldOp());
            case REDUCE_SCATTER -> LeaderReduceScatter.schedule(span, local, join, send, recv, count, dtype, op.foldOp());
            case ALLGATHER -> LeaderAllgather.schedule(span, local, join, send, recv, count, dtype);
            case GATHER -> LeaderGather.schedule(span, local, join, send, recv, count, dtype, root);
            case SCATTER -> LeaderScatter.schedule(span, local, join, send, recv, count, dtype, root);
            case ALLTOALL -> LeaderAlltoall.schedule(span, local, join, send, recv, count, dtype);
            case SCAN, EXSCAN -> LeaderScan.schedule(span, local, join, c == Collective.EXSCAN, send, recv, count, dtype,
                    op.foldOp());
            case GATHERV -> LeaderGatherv.schedule(span, local, join, send, v.own(), recv, v.recvCounts(), v.recvDispls(), dtype,
                    root);
            case SCATTERV -> LeaderScatterv.schedule(span, local, join, send, v.sendCounts(), v.sendDispls(), recv, v.own(),
                    dtype, root);
            case ALLGATHERV -> LeaderAllgatherv.schedule(span, local, join, send, v.own(), recv, v.recvCounts(),
                    v.recvDispls(), dtype);
            case REDUCE_SCATTER_V -> LeaderReduceScatterV.schedule(span, local, join, send, recv, v.recvCounts(), dtype,
                    op.foldOp());
            case ALLTOALLV -> LeaderAlltoallv.schedule(span, local, join, send, v.sendCounts(), v.sendDispls(), recv,
                    v.recvCounts(), v.recvDispls(), dtype);
        };
    }

    /**
     * A reduction's stages on a team that folds in global rank order: the non-blocking chain of the leaders
     * (ChainAllreduce, ChainScan), bitwise the blocking call's. Reduce keeps the root's copy of the allreduced
     * vector, reduce-scatter(-v) each rank's block of it, as the blocking forms do.
     */
    List<SpanRequest.Stage> orderedStages(LocalJoin join, Collective c, MemorySegment send, MemorySegment recv,
                                                  long count, DType dtype, Op op, int root, io.coll4j.kernel.nb.VectorCall v) {
        long es = dtype.size();
        switch (c) {
            case ALLREDUCE -> {
                return ChainAllreduce.schedule(span, local, join, send, recv, count, dtype, op);
            }
            case REDUCE -> {
                MemorySegment out = id() == root ? recv : SpanGroup.requestBuffer(count * es);
                return ChainAllreduce.schedule(span, local, join, send, out, count, dtype, op);
            }
            case SCAN, EXSCAN -> {
                return ChainScan.schedule(span, local, join, c == Collective.EXSCAN, send, recv, count, dtype, op);
            }
            default -> {   // REDUCE_SCATTER, REDUCE_SCATTER_V: this rank's block of the whole
                long[] counts = v != null ? v.recvCounts() : null;
                long total = counts != null ? java.util.Arrays.stream(counts).sum() : count * size();
                long at = counts != null ? java.util.Arrays.stream(counts).limit(id()).sum() : count * id();
                long mine = counts != null ? counts[id()] : count;
                MemorySegment all = SpanGroup.requestBuffer(total * es);
                List<SpanRequest.Stage> s = new java.util.ArrayList<>(
                        ChainAllreduce.schedule(span, local, join, send, all, total, dtype, op));
                s.add(new SpanRequest.Step(() -> MemorySegment.copy(all, at * es, recv, 0, mine * es)));
                return s;
            }
        }
    }

    /** The bytes of one point-to-point message of an ordered reduction's chain: the vector the chain folds. */
    long orderedBytes(Collective c, long count, DType dtype, io.coll4j.kernel.nb.VectorCall v) {
        long elements = switch (c) {
            case REDUCE_SCATTER -> count * size();
            case REDUCE_SCATTER_V -> java.util.Arrays.stream(v.recvCounts()).sum();
            default -> count;
        };
        return elements * dtype.size();
    }

    /**
     * The extent in bytes of the data-movement MPI call of collective {@code c}'s schedule (the whole buffer its
     * byte displacements index; 0 for the typed calls): gather and scatter move P process blocks of T·count
     * elements, alltoall P blocks of T·T·count per process, scan P process totals of count.
     */
    long bytesOfOneMpiCall(Collective c, long count, DType dtype) {
        int t = localSize();
        long processes = team.processes();
        return switch (c) {
            case GATHER, SCATTER -> count * dtype.size() * t * processes;
            case ALLTOALL -> count * dtype.size() * t * t * processes;
            case SCAN, EXSCAN -> count * dtype.size() * processes;
            default -> 0;   // the v-variants: their MPI calls refuse a byte count beyond int (MPI_ERR_COUNT) when posted
        };
    }

    /** Joins a chain's collective stage under the next issue number; the chain posts it when the stage is reached. */
    io.coll4j.kernel.nb.CollectiveRequest joinStage(Collective c, MemorySegment send, MemorySegment recv, long count,
                                                     DType dtype, Op op, int root, UserOp user) {
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        MemorySegment r = c == Collective.REDUCE && id != root ? null : recv;
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, c, count, dtype, op, root, false, send, r, null,
                op == Op.USER ? user.reducer() : null);
        return io.coll4j.kernel.nb.CollectiveRequest.unposted(engine, x, id);
    }
}
