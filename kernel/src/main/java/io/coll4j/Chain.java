package io.coll4j;

import io.coll4j.kernel.nb.ChainRequest;
import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.span.SpanRequest;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A schedule of collectives and local steps run as one {@link Request} [PAMI §4.1–4.2]: built on one
 * rank with {@link Rank#chain()}, started with {@link #start()}. For example, a reduce-scatter, a
 * function on this rank's block, and an allgather of the processed blocks:
 *
 * <pre>{@code
 * Request r = rank.chain()
 *         .reduceScatter(grad, block, n, DType.F64, Op.SUM)
 *         .then(() -> scale(block))            // runs on this rank's thread, on its own block
 *         .allgather(block, grad, n, DType.F64)
 *         .start();
 * ... compute ...
 * r.await();
 * }</pre>
 *
 * Every rank must build the same sequence of collectives (local steps may differ), and the chain's
 * collectives take their issue numbers, in order, when the chain starts: they are matched with the other
 * ranks' non-blocking calls exactly as if issued one after the other at {@link #start()}. A collective
 * stage starts when the chain reaches it, so its inputs may be produced by the stage before; local steps
 * run on this rank's thread while it polls or waits on the chain.
 *
 * <p>A chain takes every collective of {@link Collective}, with the checks and ops of its blocking method (a
 * v-collective's count arrays are copied when it is added).
 *
 * <p>{@link #allreducePipelined} cuts one allreduce into chunks posted together, each followed by a local
 * step: while this rank runs the step of chunk k, its peers (waiting on their chains) already combine
 * chunk k + 1.
 */
public final class Chain {
    /** One stage as declared: a collective's checked arguments (with its UserOp for Op.USER), or a local step. */
    private record Declared(RankRequests.CallArgs call, Runnable local, boolean early, UserOp user) {
    }

    /** The local step of a pipeline chunk: elements {@code [first, first + count)} of the receive buffer are final. */
    @FunctionalInterface
    public interface ChunkStep {
        void accept(long first, long count);
    }

    private final Rank rank;
    private final List<Declared> stages = new ArrayList<>();
    private boolean started;

    Chain(Rank rank) {
        this.rank = rank;
    }

    private Chain add(RankRequests.CallArgs call) {
        stages.add(new Declared(call, null, false, null));
        return this;
    }

    /** A reduction with a user-defined op: checked as by the rank's UserOp overload, folded with {@code op}'s function. */
    private Chain add(UserOp op, java.util.function.Supplier<RankRequests.CallArgs> checked) {
        stages.add(new Declared(rank.withUserOp(op, checked), null, false, op));
        return this;
    }

    public Chain barrier() {
        return add(rank.barrierArgs());
    }

    public Chain bcast(MemorySegment buf, long count, DType dtype, int root) {
        return add(rank.bcastArgs(buf, count, dtype, root));
    }

    public Chain reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return add(rank.reduceArgs(send, recv, count, dtype, op, root));
    }

    public Chain allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return add(rank.allreduceArgs(send, recv, count, dtype, op));
    }

    public Chain reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return add(rank.reduceScatterArgs(send, recv, recvCount, dtype, op));
    }

    public Chain allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        return add(rank.allgatherArgs(send, recv, sendCount, dtype));
    }

    public Chain gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return add(rank.gatherArgs(send, recv, count, dtype, root));
    }

    public Chain scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        return add(rank.scatterArgs(send, recv, count, dtype, root));
    }

    public Chain alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        return add(rank.alltoallArgs(send, recv, count, dtype));
    }

    public Chain scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return add(rank.scanArgs(Collective.SCAN, send, recv, count, dtype, op));
    }

    public Chain exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return add(rank.scanArgs(Collective.EXSCAN, send, recv, count, dtype, op));
    }

    public Chain gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                         DType dtype, int root) {
        return add(rank.gathervArgs(send, sendCount, recv, recvCounts, displs, dtype, root));
    }

    public Chain scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
                          DType dtype, int root) {
        return add(rank.scattervArgs(send, sendCounts, displs, recv, recvCount, dtype, root));
    }

    public Chain allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                            DType dtype) {
        return add(rank.allgathervArgs(send, sendCount, recv, recvCounts, displs, dtype));
    }

    public Chain reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        return add(rank.reduceScatterVArgs(send, recv, recvCounts, dtype, op));
    }

    public Chain alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                           long[] recvCounts, long[] recvDispls, DType dtype) {
        return add(rank.alltoallvArgs(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype));
    }

    /** {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} with a user-defined op (rank order, as blocking). */
    public Chain reduce(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        return add(op, () -> rank.reduceArgs(send, recv, count, op.dtype(), Op.USER, root));
    }

    /** {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain allreduce(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return add(op, () -> rank.allreduceArgs(send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        return add(op, () -> rank.reduceScatterArgs(send, recv, recvCount, op.dtype(), Op.USER));
    }

    /** {@link #reduceScatterV(MemorySegment, MemorySegment, long[], DType, Op)} with a user-defined op. */
    public Chain reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, UserOp op) {
        return add(op, () -> rank.reduceScatterVArgs(send, recv, recvCounts, op.dtype(), Op.USER));
    }

    /** {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain scan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return add(op, () -> rank.scanArgs(Collective.SCAN, send, recv, count, op.dtype(), Op.USER));
    }

    /** {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain exscan(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return add(op, () -> rank.scanArgs(Collective.EXSCAN, send, recv, count, op.dtype(), Op.USER));
    }

    /** A local step: runs on this rank's thread once every earlier stage of the chain is complete here. */
    public Chain then(Runnable localStep) {
        if (localStep == null) {
            throw new IllegalArgumentException("localStep must not be null");
        }
        stages.add(new Declared(null, localStep, false, null));
        return this;
    }

    /**
     * An allreduce of {@code count} elements cut into {@code chunks} chunks of whole cache lines, all
     * posted when the chain starts, each followed by {@code afterChunk} on its elements of {@code recv}.
     * Every rank must use the same {@code chunks}.
     */
    public Chain allreducePipelined(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int chunks,
                                    ChunkStep afterChunk) {
        rank.allreduceArgs(send, recv, count, dtype, op);
        if (chunks < 1) {
            throw new IllegalArgumentException("chunks must be >= 1, got " + chunks);
        }
        if (afterChunk == null) {
            throw new IllegalArgumentException("afterChunk must not be null");
        }
        int es = dtype.size();
        long lineElements = Math.max(1, 64 / es);
        long per = Math.max(lineElements, ((count + chunks - 1) / chunks + lineElements - 1) / lineElements * lineElements);
        for (long first = 0; first < count || (first == 0 && count == 0); first += per) {
            long n = Math.min(per, count - first);
            MemorySegment s = send.asSlice(first * es, n * es);
            MemorySegment r = send == recv ? s : recv.asSlice(first * es, n * es);
            stages.add(new Declared(new RankRequests.CallArgs(Collective.ALLREDUCE, s, r, n, dtype, op, -1, null), null,
                    true, null));
            long f = first;
            stages.add(new Declared(null, () -> afterChunk.accept(f, n), false, null));
            if (count == 0) {
                break;
            }
        }
        return this;
    }

    /**
     * Starts the chain: its collectives take their issue numbers now. The first stage, and every chunk of
     * a pipeline, is posted at once.
     *
     * @throws IllegalStateException when the chain was already started
     */
    public Request start() {
        rank.checkOwner();
        if (started) {
            throw new IllegalStateException("the chain was already started");
        }
        started = true;
        if (rank.spansProcesses()) {
            return startAcrossProcesses();
        }
        List<ChainRequest.Stage> run = new ArrayList<>(stages.size());
        for (Declared d : stages) {
            if (d.local() != null) {
                run.add(new ChainRequest.Stage(null, d.local(), false));
            } else {
                CollectiveRequest r = rank.joinStage(d.call(), d.user());
                run.add(new ChainRequest.Stage(r, null, d.early()));
            }
        }
        return new ChainRequest(rank.team().nonBlocking(), rank.localId(), run);
    }

    /**
     * The chain on a team that spans processes: each collective expands into its leader algorithm's stages
     * (local, the leader's MPI non-blocking call, local) followed by a fence, each local step into a step, all
     * run as one {@link SpanRequest}. A pipeline's chunks run one after the other (their MPI calls keep the
     * chain's order), each followed by its step. A user op's stages are made while the call is its UserOp's, so
     * they capture its reducer.
     */
    private Request startAcrossProcesses() {
        List<SpanRequest.Stage> run = new ArrayList<>();
        for (Declared d : stages) {
            if (d.local() != null) {
                run.add(new SpanRequest.Step(d.local()));
            } else {
                RankRequests.CallArgs a = d.call();
                java.util.function.Supplier<List<SpanRequest.Stage>> expand = () -> rank.spanRequests.stages(a.c(), a.send(),
                        a.recv(), a.count(), a.dtype(), a.op(), a.root(), "chained " + a.c().cliName(), a.call());
                run.addAll(d.user() == null ? expand.get() : rank.withUserOp(d.user(), expand));
                run.add(new SpanRequest.Fence());
            }
        }
        return SpanRequest.chain(run, rank.spanQueue(), rank.context(), rank.localId());
    }
}
