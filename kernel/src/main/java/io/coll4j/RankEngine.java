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
 * The state of one {@link Rank} and the machinery every form of every collective runs through: the owner
 * and caller checks, the selector cache, the reducers (a UserOp's while its overload runs), {@code execute}
 * (the call record, JFR event, statistics and AVG's division around an algorithm), the argument checks the
 * requests share with the blocking calls, and the helpers of a team that spans processes (the cross-process
 * check, the order of local rank 0's MPI calls, the MPI_Allreduce shortcut). No public API: {@link Rank} and
 * the layers between ({@link RankVocabulary}, {@link RankRequests}) are what users call.
 */
abstract class RankEngine {
    final Team team;
    final int id;
    final TeamContext context;
    final CollectiveCall call;
    final AtomicReference<Thread> owner = new AtomicReference<>();
    /** This rank has told its (sub-)team it is done ({@link Rank#close}), once. */
    boolean memberClosed;
    /** {@link Rank#detach}ed once: its life is managed by whoever attaches it, closing it only detaches. */
    volatile boolean detached;
    /** Op.values().length, once: values() clones its array on every call, and reducer() is on every reduction's path. */
    static final int OPS = Op.values().length;
    final Reducer[] reducers = new Reducer[DType.values().length * OPS];
    /** The UserOp of the call in progress (set and cleared by the UserOp overloads, on this rank's thread). */
    UserOp userOp;
    /** The last UserOp's reducer, kept so a loop of calls with one UserOp creates it once. */
    UserOp lastUserOp;
    Reducer lastUserReducer;
    /** The in-place buffer of the scalar allreduces ({@link Rank#allreduce(double, Op)}, …), allocated at the first. */
    MemorySegment scalarCell;
    final CollectiveAlgorithm[] lastAlgorithm = new CollectiveAlgorithm[Collective.values().length];
    final long[] lastKey = new long[Collective.values().length];
    /**
     * reduceScatterV's displacements, one array per sequence parity: the array goes into this rank's
     * {@code BlockLayout}, which peers read during the call; the lag check keeps them out of it before this
     * rank's call two later rewrites the array of that parity (so no allocation per call).
     */
    final long[][] reduceScatterDispls = new long[2][];
    volatile BindResult binding;
    PointToPoint p2p;
    /**
     * Non-null when the team spans processes: every collective (all 16 of {@link Collective}) goes through it,
     * hierarchically.
     */
    final SpanGroup span;
    /**
     * The team spans processes with one rank in each and folds in MPI's order (not reproducible(true)): an
     * allreduce of an op MPI folds is MPI_Allreduce itself ({@link LeaderAllreduce}'s one-rank case).
     */
    final boolean oneRankPerProcess;
    /** Set by this rank's thread around the local half of a hierarchical collective (see {@link Local}). */
    boolean inLocal;
    /** Shared-view calls on a spanning team so far: their parity picks the process's shared buffer. */
    int sharedCalls;
    /** The local half's operations on a spanning team (set by {@link RankVocabulary}, which holds them), else null. */
    LocalOps local;
    /** Team.Builder.statistics: every call timed for {@link Team#stats()}. */
    final boolean statistics;
    /** Whether {@link #call} currently stamps entries and adds up waits for the call event. */
    boolean callTimed;
    /** {rank, nanos} of the last entry, reused by every recorded call (no allocation per event). */
    final long[] lastEntry = new long[2];
    /** Written by the rank's thread around every collective, read by {@link Team#close} (see {@link #execute}). */
    @SuppressWarnings("unused")
    boolean inCall;
    static final java.lang.invoke.VarHandle IN_CALL;

    static {
        try {
            IN_CALL = java.lang.invoke.MethodHandles.lookup().findVarHandle(RankEngine.class, "inCall", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // the calls of Rank and RankVocabulary this machinery reaches (the local half, a plan's and a spanning
    // team's dispatch): declared here so the layers stay one class each

    public abstract int id();

    public abstract int size();

    public abstract int localSize();

    public abstract void barrier();

    public abstract void bcast(MemorySegment buf, long count, DType dtype, int root);

    public abstract void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root);

    public abstract void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    public abstract void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op);

    public abstract void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype);

    public abstract void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    public abstract void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root);

    public abstract void alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype);

    public abstract void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    public abstract void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    abstract long mine(String name, long[] a);

    abstract void spannedAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    RankEngine(Team team, int id) {
        this.team = team;
        this.id = id;
        this.context = team.context();
        this.call = new CollectiveCall(context, id);
        this.span = team.spanGroup();
        this.oneRankPerProcess = span != null && span.localSize() == 1 && !team.reproducible();
        this.statistics = team.statistics();
    }

    void checkThread() {
        checkCaller();
    }

    void checkCaller() {
        Thread t = owner.get();
        if (t != Thread.currentThread()) {
            if (team.isClosed()) {
                throw new IllegalStateException("the team is closed");
            }
            throw new IllegalStateException(t == null
                    ? "rank " + id + " is not attached to any thread (closed, or used outside team.run)"
                    : "rank " + id + " belongs to thread " + t.getName() + ", not " + Thread.currentThread().getName());
        }
        if (team.isClosed()) {
            throw new IllegalStateException("the team is closed");
        }
    }

    void checkOwner() {
        checkCaller();
    }

    /**
     * What this rank reports for an unexpected exception {@code e} from its algorithm, with the team aborted
     * and the blame on the right rank: a rank that entered this collective with another call (another
     * algorithm misreads its lines and buffers) is a mismatch; a closed team is an IllegalStateException; a
     * buffer closed during the call is an IllegalArgumentException for the rank that passed it, and a
     * TeamAbortedException naming that rank for the others. Null when {@code e} is this rank's own failure.
     */
    RuntimeException blame(Throwable e) {
        try {
            call.rethrowMismatchBehind();
        } catch (CollectiveException m) {
            m.addSuppressed(e);
            return m;
        }
        if (team.isClosed()) {
            context.abort(new IllegalStateException("the team was closed"), -1);
            IllegalStateException closed = new IllegalStateException("the team was closed while rank " + id + " was in "
                    + call.collective().cliName(), e);
            return closed;
        }
        String dead = call.deadBuffer();
        if (dead != null) {
            int owner = call.deadBufferOwner();
            IllegalArgumentException bad = new IllegalArgumentException(dead + " was closed during "
                    + call.collective().cliName() + " (collective #" + call.seq() + ")", e);
            context.abort(bad, owner);
            return owner == id ? bad : context.abortedException(id);
        }
        return null;
    }

    /** True while this rank's thread is inside a collective (read by {@link Team#close}). */
    boolean inCall() {
        return (boolean) IN_CALL.getAcquire(this);
    }

    /** Runs {@code collective} with {@code op} as the call's reducer (the lambda is not a hot path: user ops fold in plain Java). */
    void withUserOp(UserOp op, Runnable collective) {
        withUserOp(op, () -> {
            collective.run();
            return null;
        });
    }

    /** {@link #withUserOp(UserOp, Runnable)} of a call that returns its request (or a chain's stage). */
    <T> T withUserOp(UserOp op, java.util.function.Supplier<T> collective) {
        checkCaller();
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        userOp = op;
        try {
            return collective.get();
        } finally {
            userOp = null;
        }
    }

    /** {@code inner} is exactly block {@code at} of {@code outer} (in place), or shares no byte with it. */
    static void blockOrDisjoint(String innerName, MemorySegment inner, long innerBytes, String outerName,
                                        MemorySegment outer, long outerBytes, long at) {
        if (!Aliasing.overlap(inner, innerBytes, outer, outerBytes)) {
            return;
        }
        if (Aliasing.sameStart(inner, 0, outer, at)) {
            return;
        }
        throw new IllegalArgumentException(innerName + " overlaps " + outerName + " without being this rank's block of it");
    }

    /**
     * Runs a collective with a block layout: {@code forced} (a plan's algorithm) or the selector's choice
     * for ({@code selectCount}, {@code selectBytes}) — values every rank computes alike, so every rank picks
     * the same algorithm. {@code signatureCount} is the count word of the mismatch check.
     */
    void run(CollectiveAlgorithm forced, Collective c, MemorySegment send, MemorySegment recv, long count,
                     DType dtype, Op op, int root, long selectCount, long selectBytes, long signatureCount,
                     long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        CollectiveAlgorithm a = forced != null ? forced : select(c, selectCount, dtype, op, selectBytes);
        executeBlocks(a, c, send, recv, count, dtype, op, root, signatureCount, sendCounts, sendDispls, recvCounts,
                recvDispls);
    }

    /** This rank's outstanding requests across processes, and local rank 0's order of their MPI calls (first use). */
    SpanQueue spanQueue;

    /** This rank's queue of requests across processes (made on first use). */
    SpanQueue spanQueue() {
        if (spanQueue == null) {
            spanQueue = new SpanQueue();
        }
        return spanQueue;
    }

    /**
     * {@code stages} with {@link SpanCheck} posted by the leader just before its first round's MPI call: in the order
     * of the MPI calls (SpanQueue), so every process's leader meets it at the same point of its sequence. The check
     * is non-blocking like the call ({@link SpanCheck#post}); the round completes when both have, the check tested
     * first, so a mismatch is reported before the call's result is used.
     */
    List<SpanRequest.Stage> checked(List<SpanRequest.Stage> stages, long descriptor, long count) {
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
     * Before a blocking call of local rank 0 across processes: its outstanding requests' MPI calls go first, so
     * MPI sees the same order in every process ({@link SpanQueue#flush}). One null check when there are none.
     */
    void flushSpanned() {
        if (spanQueue != null && spanQueue.mustFlush()) {
            spanQueue.flush(context, id);
        }
    }

    /** The reducer a request of {@code op} folds with: the call's UserOp's for USER (set by its overload), else the engine's. */
    Reducer requestReducer(Op op) {
        return op == Op.USER ? userReducer() : null;
    }

    /**
     * User ops on a request or chain of a team spanning processes: its stages run after the call returned, when the
     * UserOp that the leaders' folds and MPI's upcall read is no longer the call's. Checked before anything is
     * shared; {@code what} names the form the user called.
     */
    static void refuseAcrossProcesses(Op op, String what) {
        if (op == Op.USER) {
            throw new UnsupportedOperationException("op user is not available on " + what + " of a team spanning"
                    + " processes: its stages run after the call returned, outside the UserOp's call; the blocking form"
                    + " takes it");
        }
    }

    /**
     * Op USER across processes needs the call's UserOp (the span's algorithms reduce with it, and MPI runs a
     * commutative one's function): through a DType overload it is refused before anything is sent, as in one
     * process.
     */
    void requireUserOp(Op op) {
        if (op == Op.USER) {
            userReducer();
        }
    }

    /**
     * Whether a spanning call must fold in ascending global rank order (the chain): the team is reproducible,
     * or the op is a non-commutative UserOp, which implies it (UserOp).
     */
    boolean inRankOrder(Op op) {
        return team.reproducible() || op == Op.USER && !userReducer().commutative();
    }

    /**
     * The ordered reduce-scatter(-v) across processes: the chain allreduces the whole {@code send} of
     * {@code total} elements into this rank's result buffer, then this rank copies its block out.
     */
    void chainScatter(MemorySegment send, MemorySegment recv, long total, DType dtype, Op op, long at, long count) {
        MemorySegment all = span.result(id, total * dtype.size());
        ChainAllreduce.run(span, local, send, all, total, dtype, op.foldOp());
        MemorySegment.copy(all, at * dtype.size(), recv, 0, count * dtype.size());
    }

    /** The checks of the blocking method of collective {@code c}, before anything is shared. */
    void validate(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        if (c == Collective.BARRIER) {
            return;
        }
        Arguments.count(c == Collective.REDUCE_SCATTER ? "recvCount" : c == Collective.ALLGATHER ? "sendCount" : "count", count);
        Arguments.dtype(dtype);
        if (c.reduces()) {
            Arguments.op(op, dtype);
            if (op == Op.USER && userOp == null) {
                userReducer();      // its message: Op.USER without the overload that takes the UserOp
            }
        }
        if (c.rooted()) {
            Arguments.root(root, callSize());
        }
        switch (c) {
            case BCAST -> Arguments.writable("buf", send, Arguments.bytes(count, dtype, 1), callId());
            case REDUCE -> {
                long bytes = Arguments.bytes(count, dtype, 1);
                Arguments.readable("send", send, bytes, callId());
                if (callId() == root) {
                    Arguments.writable("recv", recv, bytes, callId());
                    Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
                }
            }
            case ALLREDUCE -> {
                long bytes = Arguments.bytes(count, dtype, 1);
                Arguments.readable("send", send, bytes, callId());
                Arguments.writable("recv", recv, bytes, callId());
                Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
            }
            case REDUCE_SCATTER -> {
                long block = Arguments.bytes(count, dtype, 1);
                long total = Arguments.bytes(count, dtype, callSize());
                Arguments.readable("send", send, total, callId());
                Arguments.writable("recv", recv, block, callId());
                if (Aliasing.overlap(send, total, recv, block)) {
                    throw new IllegalArgumentException("send and recv overlap: reduceScatter needs separate buffers");
                }
            }
            case ALLGATHER -> {
                long block = Arguments.bytes(count, dtype, 1);
                long total = Arguments.bytes(count, dtype, callSize());
                Arguments.readable("send", send, block, callId());
                Arguments.writable("recv", recv, total, callId());
                if (Aliasing.overlap(send, block, recv, total) && !Aliasing.sameStart(send, 0, recv, callId() * block)) {
                    throw new IllegalArgumentException("send overlaps recv without being this rank's block of it");
                }
            }
            default -> { }
        }
    }

    // ------------------------------------------------------------------ execution

    /** The algorithm the selector picks for this call (cached per collective for repeated shapes). */
    CollectiveAlgorithm select(Collective c, long count, DType dtype, Op op, long bytes) {
        int i = c.ordinal();
        // 4 bits each for dtype and op (15 = none): both enums have more than 8 constants
        long key = (((count << 4) | (dtype == null ? 15 : dtype.ordinal())) << 4) | (op == null ? 15 : op.ordinal());
        CollectiveAlgorithm a = lastAlgorithm[i];
        if (a == null || lastKey[i] != key) {
            a = team.selector().choose(c, localSize(), count, dtype, op, bytes);
            lastAlgorithm[i] = a;
            lastKey[i] = key;
        }
        return a;
    }

    Reducer reducer(DType dtype, Op op) {
        if (op == null) {
            return null;
        }
        int i = dtype.ordinal() * OPS + op.ordinal();
        Reducer r = reducers[i];
        if (r == null) {
            r = reducers[i] = Reducers.of(dtype, op);
        }
        return r;
    }

    void execute(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root, long bytes) {
        execute(select(c, count, dtype, op == null ? null : op.foldOp(), bytes), c, send, recv, count, dtype, op, root);
    }

    /**
     * The division of {@link Op#AVG} (nothing for any other op), on this rank's result only: each element is
     * the SUM of the contributions folded into it — every rank's for the reductions, ranks 0..r for rank r's
     * scan, 0..r−1 for its exscan — and is divided by their number. Rank 0's exscan result and the non-roots'
     * reduce have nothing to divide. Ranks and sizes are the call's ({@link #callId()}): global on the entry
     * of a team spanning processes, whose hierarchical collectives fold AVG as SUM across every process.
     */
    void average(Collective c, Op op, MemorySegment recv, long count, DType dtype) {
        io.coll4j.kernel.algo.Averaging.divide(c, op, dtype, callId(), callSize(), recv, 0, count);
    }

    /** The reducer of the UserOp this call runs with; {@link Op#USER} without one is the caller's mistake. */
    Reducer userReducer() {
        if (userOp == null) {
            throw new IllegalArgumentException("op user stands for a UserOp: call the overload that takes the UserOp");
        }
        if (userOp != lastUserOp) {
            lastUserOp = userOp;
            lastUserReducer = userOp.reducer();
        }
        return lastUserReducer;
    }

    void execute(CollectiveAlgorithm a, Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
                 Op op, int root) {
        executeBlocks(a, c, send, recv, count, dtype, op, root, count, null, null, null, null);
    }

    /** {@link #execute(CollectiveAlgorithm, Collective, MemorySegment, MemorySegment, long, DType, Op, int)} with a block layout and the check word's count. */
    void executeBlocks(CollectiveAlgorithm a, Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype,
                       Op op, int root, long signatureCount, long[] sendCounts, long[] sendDispls, long[] recvCounts,
                       long[] recvDispls) {
        if (spanned()) {
            throw singleProcessOnly(c.cliName());
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        // AVG runs as SUM and is divided below; a UserOp's reducer was set by the UserOp overload that called us
        Op foldOp = op == null ? null : op.foldOp();
        Reducer red = dtype == null ? null : op == Op.USER ? userReducer() : reducer(dtype, foldOp);
        // release: a plain store on x86; Team.close polls it (acquire) after aborting the team, to let an
        // in-flight call leave before the arena is freed (the native calls also hold their segments' sessions)
        IN_CALL.setRelease(this, true);
        // off unless a JFR recording enabled it: then a constant false, and the event does not escape
        CollectiveCallEvent event = new CollectiveCallEvent();
        boolean recorded = event.isEnabled();
        long start = recorded || statistics ? System.nanoTime() : 0;
        if (recorded != callTimed) {
            callTimed = recorded;
            call.timed(recorded);
        }
        if (recorded) {
            event.begin();
        }
        try {
            call.begin(c, send, recv, count, dtype, foldOp, root, red, a, signatureCount, sendCounts, sendDispls, recvCounts,
                    recvDispls);
            a.run(call);
            average(c, op, recv, count, dtype);
            call.end(a.observesAllEntries(id, root, localSize()));
            long bytes = dtype == null ? 0 : count * dtype.size();
            context.stats().add(id, c, call.algorithmId(), bytes, recorded || statistics ? System.nanoTime() - start : -1);
            if (recorded) {
                commit(event, start, c, a, bytes, dtype, op);
            }
        } catch (CollectiveException e) {
            call.end(false);
            call.failed();
            throw e;
        } catch (RuntimeException | Error e) {
            call.end(false);
            call.failed();
            RuntimeException blamed = blame(e);
            if (blamed != null) {
                throw blamed;
            }
            context.abort(e, id);
            throw e;
        } finally {
            IN_CALL.setRelease(this, false);
        }
    }

    /** Fills and commits the call event of the call that started at {@code start} (only while a recording wants it). */
    void commit(CollectiveCallEvent event, long start, Collective c, CollectiveAlgorithm a, long bytes, DType dtype, Op op) {
        if (!event.shouldCommit()) {
            call.takeWaitedNanos();
            return;
        }
        long[] last = lastEntry;
        call.lastEntry(last);
        event.collective = c.cliName();
        event.algorithm = a.name();
        event.bytes = bytes;
        event.dtype = dtype == null ? null : dtype.name().toLowerCase(java.util.Locale.ROOT);
        event.op = op == null ? null : op.name().toLowerCase(java.util.Locale.ROOT);
        event.teamSize = localSize();
        event.rank = id;
        event.seq = call.seq();
        event.waitTime = call.takeWaitedNanos();
        event.lastRank = (int) last[0];
        event.lateBy = last[1];
        event.commit();
    }

    // ------------------------------------------------------------------ across processes

    /** True on the entry of a collective of a team that spans processes (not inside its local half). */
    boolean spanned() {
        return span != null && !inLocal;
    }

    /** The rank number a call's arguments are checked against: global on a spanned entry, local otherwise. */
    int callId() {
        return spanned() ? id() : id;
    }

    /** The team size a call's arguments are checked against: global on a spanned entry, local otherwise. */
    int callSize() {
        return spanned() ? size() : localSize();
    }

    /** The requests a sub-team across processes with different numbers of ranks per process takes (their schedules follow the layout). */
    static final java.util.Set<Collective> UNEVEN_REQUESTS = java.util.EnumSet.of(Collective.BARRIER,
            Collective.BCAST, Collective.REDUCE, Collective.ALLREDUCE, Collective.REDUCE_SCATTER, Collective.ALLGATHER);

    static UnsupportedOperationException singleProcessOnly(String what) {
        return new UnsupportedOperationException(what + " is not available on a team that spans processes (Team.Builder.mpi()); "
                + "every blocking collective and its plan is, and every collective's non-blocking, persistent and chained forms");
    }

    /**
     * The cross-process mismatch check of a spanned call moving {@code bytes} per rank, where it costs nothing
     * measurable ({@link SpanCheck}); the leader throws {@link CollectiveMismatchException} when processes differ.
     */
    void spanCheck(Collective c, long count, DType dtype, Op op, int root, long bytes) {
        checkInterruptedAcrossProcesses(c);
        if (!SpanCheck.enabled()) {
            return;
        }
        // a user op's MPI op is the user's (no word can travel inside its payload), and a reduce whose root is not
        // its process's local rank 0 calls MPI from the root's thread there (LeaderReduce), not the carrying one:
        // both take the separate check at every size, in every process alike (the decision depends on the call)
        boolean separate = op == Op.USER || (c == Collective.REDUCE && root != span.first(span.processOf(root)));
        if (separate || SpanCheck.due(bytes)) {
            SpanCheck.verify(span, local, Signature.descriptor(c, dtype, op, root), count);
        } else if (local.localId() == 0) {
            // too small for the separate check: the word travels with the collective's first MPI call, made by
            // local rank 0 in every process
            span.span().carry(Signature.descriptor(c, dtype, op, root), count);
        }
    }

    /**
     * A plan of a spanning team runs the hierarchical collective of its kind (the plan's algorithm is the local
     * one). Its first call compares the plan across processes ({@link SpanCheck}): a plan is made for a hot loop,
     * so one check per plan is free, and a mismatch shows at the first iteration.
     */
    void executeSpanned(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        if (plan.mpiDirect() && spanQueue == null) {
            // the 8-byte allreduce's path across processes: only the buffers are new
            Arguments.allreduceBuffers(send, recv, plan.bytes(), id());
            mpiAllreduce(send, recv, plan.count(), plan.dtype(), plan.op());
            return;
        }
        flushSpanned();
        long n = plan.count();
        DType t = plan.dtype();
        if (plan.firstSpannedCall()) {
            if (SpanCheck.dueForPlan()) {
                SpanCheck.verify(span, local, Signature.descriptor(plan.collective(), t, plan.op(), plan.root()), n);
            }
            plan.mpiDirect(mpiDirect(plan));
        }
        switch (plan.collective()) {
            case BARRIER -> barrier();
            case BCAST -> bcast(send, n, t, plan.root());
            case REDUCE -> reduce(send, recv, n, t, plan.op(), plan.root());
            case ALLREDUCE -> {
                // the plan checked count, dtype and op when it was made: only the buffers are new
                Arguments.allreduceBuffers(send, recv, plan.bytes(), id());
                spannedAllreduce(send, recv, n, t, plan.op());
            }
            case REDUCE_SCATTER -> reduceScatter(send, recv, n, t, plan.op());
            case ALLGATHER -> allgather(send, recv, n, t);
            case GATHER -> gather(send, recv, n, t, plan.root());
            case SCATTER -> scatter(send, recv, n, t, plan.root());
            case ALLTOALL -> alltoall(send, recv, n, t);
            case SCAN -> scan(send, recv, n, t, plan.op());
            case EXSCAN -> exscan(send, recv, n, t, plan.op());
            default -> throw singleProcessOnly(plan.collective().cliName());
        }
    }

    /** Whether every later call of {@code plan} is one MPI_Allreduce ({@link #isMpiAllreduce}), decided once at its first call. */
    boolean mpiDirect(CollectivePlan plan) {
        return plan.collective() == Collective.ALLREDUCE && isMpiAllreduce(plan.op(), plan.bytes());
    }

    /**
     * Whether an allreduce of {@code op} on {@code bytes} is MPI_Allreduce itself: one rank per process and no
     * rank-order chain ({@link #oneRankPerProcess}: {@link LeaderAllreduce}'s one-rank case, never multi-leader),
     * an op MPI folds itself (not AVG, which divides after, nor a UserOp), and below {@link SpanCheck}'s size (a
     * plan's first call was compared across processes; a call this small is not). Skipping the dispatch of
     * {@link #spannedAllreduce} saved ~10–15 ns of an 8-byte allreduce across 2 processes (MPI's own: ~200 ns).
     */
    boolean isMpiAllreduce(Op op, long bytes) {
        return oneRankPerProcess && op != Op.AVG && op != Op.USER && !SpanCheck.due(bytes);
    }

    /**
     * A blocking MPI call cannot be interrupted: an interrupt that came while this rank was inside one (or before
     * this call) is reported at its next collective across processes — a {@link CollectiveInterruptedException}
     * that aborts the team (and so the job) — never lost.
     */
    void checkInterruptedAcrossProcesses(Collective c) {
        if (Thread.currentThread().isInterrupted()) {
            CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + id() + " (thread "
                    + Thread.currentThread().getName() + ") was interrupted before " + c.cliName() + " across processes"
                    + " (or during an MPI call it could not leave); the team is aborted", id);
            context.abort(e, id);
            throw e;
        }
    }

    /** The allreduce as one MPI_Allreduce of this process's buffers ({@link #isMpiAllreduce}). */
    void mpiAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkInterruptedAcrossProcesses(Collective.ALLREDUCE);
        io.coll4j.kernel.span.ProcessSpan s = span.span();
        if (SpanCheck.enabled()) {
            s.carry(Signature.descriptor(Collective.ALLREDUCE, dtype, op, -1), count);   // checked with its payload
        }
        s.allreduce(s.world(), Aliasing.sameStart(send, recv) ? null : send, recv, count, dtype, op);
    }

    /**
     * This rank's collectives on its own process's ranks, for the hierarchical algorithms: the public
     * methods with {@link #inLocal} set, so they take the single-process path with local ids and roots.
     */
}
