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
 * <p>{@link #allreducePipelined} cuts one allreduce into chunks posted together, each followed by a local
 * step: while this rank runs the step of chunk k, its peers (waiting on their chains) already combine
 * chunk k + 1.
 */
public final class Chain {
    /** One stage as declared: a collective's arguments, or a local step. */
    private record Declared(Collective collective, MemorySegment send, MemorySegment recv, long count, DType dtype,
                            Op op, int root, Runnable local, boolean early, UserOp user) {
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

    private Chain add(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        rank.validate(c, send, recv, count, dtype, op, root);
        stages.add(new Declared(c, send, recv, count, dtype, op, root, null, false, null));
        return this;
    }

    /** A reduction with a user-defined op: validated as by the rank's UserOp overload, folded with {@code op}'s function. */
    private Chain add(Collective c, MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        rank.withUserOp(op, () -> {
            rank.validate(c, send, recv, count, op.dtype(), Op.USER, root);
            return null;
        });
        stages.add(new Declared(c, send, recv, count, op.dtype(), Op.USER, root, null, false, op));
        return this;
    }

    public Chain barrier() {
        return add(Collective.BARRIER, null, null, 0, null, null, -1);
    }

    public Chain bcast(MemorySegment buf, long count, DType dtype, int root) {
        return add(Collective.BCAST, buf, buf, count, dtype, null, root);
    }

    public Chain reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return add(Collective.REDUCE, send, recv, count, dtype, op, root);
    }

    public Chain allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        return add(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
    }

    public Chain reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        return add(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
    }

    /** {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} with a user-defined op (rank order, as blocking). */
    public Chain reduce(MemorySegment send, MemorySegment recv, long count, UserOp op, int root) {
        return add(Collective.REDUCE, send, recv, count, op, root);
    }

    /** {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain allreduce(MemorySegment send, MemorySegment recv, long count, UserOp op) {
        return add(Collective.ALLREDUCE, send, recv, count, op, -1);
    }

    /** {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} with a user-defined op. */
    public Chain reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        return add(Collective.REDUCE_SCATTER, send, recv, recvCount, op, -1);
    }

    public Chain allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        return add(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
    }

    /** A local step: runs on this rank's thread once every earlier stage of the chain is complete here. */
    public Chain then(Runnable localStep) {
        if (localStep == null) {
            throw new IllegalArgumentException("localStep must not be null");
        }
        stages.add(new Declared(null, null, null, 0, null, null, -1, localStep, false, null));
        return this;
    }

    /**
     * An allreduce of {@code count} elements cut into {@code chunks} chunks of whole cache lines, all
     * posted when the chain starts, each followed by {@code afterChunk} on its elements of {@code recv}.
     * Every rank must use the same {@code chunks}.
     */
    public Chain allreducePipelined(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int chunks,
                                    ChunkStep afterChunk) {
        rank.validate(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
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
            stages.add(new Declared(Collective.ALLREDUCE, s, r, n, dtype, op, -1, null, true, null));
            long f = first;
            stages.add(new Declared(null, null, null, 0, null, null, -1, () -> afterChunk.accept(f, n), false, null));
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
                CollectiveRequest r = rank.joinStage(d.collective(), d.send(), d.recv(), d.count(), d.dtype(), d.op(), d.root(),
                        d.user());
                run.add(new ChainRequest.Stage(r, null, d.early()));
            }
        }
        return new ChainRequest(rank.team().nonBlocking(), rank.localId(), run);
    }

    /**
     * The chain on a team that spans processes: each collective expands into its leader algorithm's stages
     * (local, the leader's MPI non-blocking call, local) followed by a fence, each local step into a step, all
     * run as one {@link SpanRequest}. A pipeline's chunks run one after the other (their MPI calls keep the
     * chain's order), each followed by its step.
     */
    private Request startAcrossProcesses() {
        List<SpanRequest.Stage> run = new ArrayList<>();
        for (Declared d : stages) {
            if (d.local() != null) {
                run.add(new SpanRequest.Step(d.local()));
            } else {
                run.addAll(rank.spanRequests.stages(d.collective(), d.send(), d.recv(), d.count(), d.dtype(), d.op(), d.root(),
                        "chained " + d.collective().cliName()));
                run.add(new SpanRequest.Fence());
            }
        }
        return SpanRequest.chain(run, rank.spanQueue(), rank.context(), rank.localId());
    }
}
