package io.coll4j;

import io.coll4j.kernel.algo.Signature;
import io.coll4j.kernel.nb.VectorCall;
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
import io.coll4j.kernel.span.LocalJoin;
import io.coll4j.kernel.span.SpanCheck;
import io.coll4j.kernel.span.SpanGroup;
import io.coll4j.kernel.span.SpanRequest;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One rank's requests and chain stages on a team spanning processes: each collective's non-blocking schedule, the
 * composition of local stages (joined into the team's non-blocking engine under the rank's next issue numbers) with
 * the leader's MPI non-blocking calls ({@link SpanRequest}; on a team folding in global rank order the reductions'
 * chain of the leaders), checked across processes where due ({@link SpanCheck}). Made once, with the rank, for a
 * rank whose team spans processes; the blocking compositions are {@link HierarchicalCollectives}'.
 */
final class HierarchicalRequests {
    private final RankRequests rank;
    private final SpanGroup span;
    private final LocalCollectives local;
    /** This rank's local number. */
    private final int id;

    HierarchicalRequests(RankRequests rank, SpanGroup span, LocalCollectives local) {
        this.rank = rank;
        this.span = span;
        this.local = local;
        this.id = local.localId();
    }

    /**
     * A non-blocking or persistent collective of a team that spans processes: the non-blocking schedule of its
     * leader algorithm ({@link SpanRequest}), every collective and v-variant; on a team that folds in global rank
     * order the reductions' chain of the leaders instead.
     */
    SpanRequest request(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root,
                        VectorCall call, boolean persistent) {
        String what = (persistent ? "persistent " : "non-blocking ") + c.cliName();
        // a one-shot request gives its staging buffers back when it completes; a persistent one keeps them
        java.util.function.Supplier<List<SpanRequest.Stage>> schedule =
                () -> stages(c, send, recv, count, dtype, op, root, what, call);
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
        return persistent ? SpanRequest.persistent(stages, rank.spanQueue(), rank.context, id, what, c.cliName(), bytes)
                : SpanRequest.oneShot(stages, rank.spanQueue(), rank.context, id, what, built.buffers(), c.cliName(), bytes);
    }

    /**
     * {@code stages} with {@link SpanCheck} posted by the leader just before its first round's MPI call: in the order
     * of the MPI calls (SpanQueue), so every process's leader meets it at the same point of its sequence. The check
     * is non-blocking like the call ({@link SpanCheck#post}); the round completes when both have, the check tested
     * first, so a mismatch is reported before the call's result is used.
     */
    private List<SpanRequest.Stage> checked(List<SpanRequest.Stage> stages, long descriptor, long count) {
        List<SpanRequest.Stage> out = new java.util.ArrayList<>(stages.size());
        boolean[] done = {false};
        for (SpanRequest.Stage s : stages) {
            if (s instanceof SpanRequest.Inter i) {
                out.add(new SpanRequest.Inter(() -> {
                    if (done[0]) {
                        return i.post().get();
                    }
                    done[0] = true;
                    io.coll4j.kernel.span.ProcessSpan.Pending check = SpanCheck.post(span, local, descriptor, count,
                            span.span().requests());
                    io.coll4j.kernel.span.ProcessSpan.Pending call = i.post().get();
                    if (check == null) {
                        return call;
                    }
                    return new io.coll4j.kernel.span.ProcessSpan.Pending() {
                        private boolean checkDone;
                        private boolean callDone;

                        @Override
                        public boolean test() {
                            // the check strictly first: when the calls differ, MPI may fail the call itself (a truncated
                            // message) before the check is in, and the mismatch is what the user must hear of
                            if (!checkDone && !(checkDone = check.test())) {
                                return false;
                            }
                            callDone = callDone || call == null || call.test();
                            return callDone;
                        }
                    };
                }));
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * This rank's stages of collective {@code c} across processes (the leader algorithm's {@code schedule}), its
     * local stages joined now under the next issue numbers: a request's, or a chain's collective stage.
     */
    List<SpanRequest.Stage> stages(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
                                   Op op, int root, String what) {
        return stages(c, send, recv, count, dtype, op, root, what, null);
    }

    /** {@link #stages(Collective, MemorySegment, MemorySegment, long, DType, Op, int, String)} of a v-variant's {@code call}. */
    List<SpanRequest.Stage> stages(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
                                   Op op, int root, String what, VectorCall v) {
        List<SpanRequest.Stage> stages = leaderStages(c, send, recv, count, dtype, op, root, what, v);
        if (op != Op.AVG) {
            return stages;
        }
        // every schedule folds AVG as SUM (op.foldOp()); this rank divides its own result once its last stage is
        // done here, as the blocking call divides after its algorithm (Averaging: the same count of contributions)
        MemorySegment out = c == Collective.REDUCE && rank.id() != root ? null : recv;
        long n = c == Collective.REDUCE_SCATTER_V ? v.recvCounts()[rank.id()] : count;
        int me = rank.id();
        int p = rank.size();
        List<SpanRequest.Stage> divided = new java.util.ArrayList<>(stages);
        divided.add(new SpanRequest.Step(() -> io.coll4j.kernel.algo.Averaging.divide(c, op, dtype, me, p, out, 0, n)));
        return divided;
    }

    /** The leader algorithm's stages of {@code c} (or, folding in rank order, the leaders' chain), AVG as SUM. */
    private List<SpanRequest.Stage> leaderStages(Collective c, MemorySegment send, MemorySegment recv, long count,
                                                 DType dtype, Op op, int root, String what,
                                                 io.coll4j.kernel.nb.VectorCall v) {
        // a user op folds in the leaders' chain, in Java, with the reducer captured here, while the call is the
        // UserOp's: the stages run after the call returned, and inside MPI a non-blocking user op's function would
        // run in whichever later MPI call progresses the request (any thread, MPI_Finalize included), where a
        // failure could not be charged to its request
        boolean ordered = c.reduces() && (op == Op.USER || rank.inRankOrder(op));
        io.coll4j.reductions.Reducer user = op == Op.USER ? rank.requestReducer(op) : null;
        // the most elements one MPI call moves: a process block (every process decides alike), or for reduce-scatter on
        // processes holding different numbers of ranks the whole vector (the leaders allreduce it)
        long perProcess = c == Collective.REDUCE_SCATTER && !span.even() ? count * rank.size()
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
        if (rank.context.isAborted()) {
            throw rank.context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = rank.team.nonBlocking();
        LocalJoin join = new LocalJoin() {
            @Override
            public long reserve() {
                return ++rank.issued;
            }

            @Override
            public io.coll4j.kernel.nb.CollectiveRequest joinAt(long n, Collective lc, MemorySegment ls, MemorySegment lr,
                                                                long count, DType t, Op o, int r,
                                                                io.coll4j.kernel.nb.VectorCall v) {
                return io.coll4j.kernel.nb.CollectiveRequest.persistent(engine,
                        engine.join(n, id, lc, count, t, o, r, true, ls, lr, v, o == Op.USER ? user : null), id);
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
    private List<SpanRequest.Stage> orderedStages(LocalJoin join, Collective c, MemorySegment send, MemorySegment recv,
                                                  long count, DType dtype, Op op, int root, io.coll4j.kernel.nb.VectorCall v) {
        long es = dtype.size();
        switch (c) {
            case ALLREDUCE -> {
                return ChainAllreduce.schedule(span, local, join, send, recv, count, dtype, op);
            }
            case REDUCE -> {
                MemorySegment out = rank.id() == root ? recv : SpanGroup.requestBuffer(count * es);
                return ChainAllreduce.schedule(span, local, join, send, out, count, dtype, op);
            }
            case SCAN, EXSCAN -> {
                return ChainScan.schedule(span, local, join, c == Collective.EXSCAN, send, recv, count, dtype, op);
            }
            default -> {   // REDUCE_SCATTER, REDUCE_SCATTER_V: this rank's block of the whole
                long[] counts = v != null ? v.recvCounts() : null;
                long total = counts != null ? java.util.Arrays.stream(counts).sum() : count * rank.size();
                long at = counts != null ? java.util.Arrays.stream(counts).limit(rank.id()).sum() : count * rank.id();
                long mine = counts != null ? counts[rank.id()] : count;
                MemorySegment all = SpanGroup.requestBuffer(total * es);
                List<SpanRequest.Stage> s = new java.util.ArrayList<>(
                        ChainAllreduce.schedule(span, local, join, send, all, total, dtype, op));
                s.add(new SpanRequest.Step(() -> MemorySegment.copy(all, at * es, recv, 0, mine * es)));
                return s;
            }
        }
    }

    /** The bytes of one point-to-point message of an ordered reduction's chain: the vector the chain folds. */
    private long orderedBytes(Collective c, long count, DType dtype, io.coll4j.kernel.nb.VectorCall v) {
        long elements = switch (c) {
            case REDUCE_SCATTER -> count * rank.size();
            case REDUCE_SCATTER_V -> java.util.Arrays.stream(v.recvCounts()).sum();
            default -> count;
        };
        return elements * dtype.size();
    }

    /**
     * The extent in bytes of the data-movement MPI call of collective {@code c}'s schedule (the whole buffer its
     * byte displacements index; 0 for the typed calls): gather and scatter move every rank's count elements,
     * alltoall at most T_max·count per rank and process, scan P process totals of count. From the layout every
     * process shares, so every process refuses alike.
     */
    private long bytesOfOneMpiCall(Collective c, long count, DType dtype) {
        long ranks = span.globalSize();
        return switch (c) {
            case GATHER, SCATTER -> count * dtype.size() * ranks;
            case ALLTOALL -> count * dtype.size() * span.maxCount() * ranks;
            case SCAN, EXSCAN -> count * dtype.size() * span.processes();
            default -> 0;   // the v-variants: their MPI calls refuse a byte count beyond int (MPI_ERR_COUNT) when posted
        };
    }
}
