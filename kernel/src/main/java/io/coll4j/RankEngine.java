package io.coll4j;

import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.events.CollectiveCallEvent;
import io.coll4j.kernel.span.SpanQueue;
import io.coll4j.kernel.span.SpanGroup;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;
import io.coll4j.reductions.internal.Reducers;
import io.coll4j.topology.BindResult;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The state of one {@link Rank} and the machinery every form of every collective runs through: the owner
 * and caller checks, the selector cache, the reducers (a UserOp's while its overload runs), {@code execute}
 * (the call record, JFR event, statistics and AVG's division around an algorithm), the argument checks the
 * requests and chains take, and the rank's {@link Collectives}, chosen once: its {@link LocalCollectives}, or on a
 * team spanning processes the {@link HierarchicalCollectives} composed of them. No public API: {@link Rank} and
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
     * Non-null when the team spans processes: every collective (all 16 of {@link Collective}) is a composition of
     * this process's collectives with the span ({@link HierarchicalCollectives}).
     */
    final SpanGroup span;
    /** This rank's collectives on its own process's ranks: the whole team's, or the local half of every composition. */
    final LocalCollectives local;
    /** What the public methods hand a call to, chosen once: {@link #local}, or across processes the composition. */
    final Collectives collectives;
    /** Team.Builder.statistics: every call timed for {@link Team#stats()}. */
    final boolean statistics;
    /** Whether {@link #call} currently stamps entries and adds up waits for the call event. */
    boolean callTimed;
    /** {rank, nanos} of the last entry, reused by every recorded call (no allocation per event). */
    final long[] lastEntry = new long[2];
    /**
     * Element {@link #IN_CALL_SLOT} is 1 while the rank's thread is inside a collective: written by that thread around
     * every call, read by {@link Team#close} (see {@link #execute}). It lives in an array of its own, far from both
     * ends, so no line holding it holds anything else: as a field of this object it shared a line with whatever the
     * heap put beside it, in some teams and not others, and those teams paid a
     * second line hand-over per call — an 8-byte allreduce at p = 2 read 0.5–0.65 µs in them against 0.32–0.37 in the
     * rest, and 0.32–0.37 in every team with the store gone (docs/measurements.md, "The 8-byte modes").
     */
    private final long[] inCall = new long[2 * IN_CALL_SLOT];
    /** 176 bytes into a 336-byte array: the 128-byte pair of lines around it lies inside the array whatever its alignment. */
    private static final int IN_CALL_SLOT = 20;
    private static final java.lang.invoke.VarHandle IN_CALL = java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);
    /**
     * Never begun or committed: asks whether a recording has the call event on. An event made per call to ask
     * does not escape once C2 has compiled the path, but until then (interpreter and C1, the first ~10 000 calls,
     * where a benchmark with a short warm-up times them) every blocking call allocated one: 32–88 B a call
     * (docs/measurements.md, "The bcast lean").
     */
    private static final CollectiveCallEvent CALL_EVENT_PROBE = new CollectiveCallEvent();


    public abstract int id();

    public abstract int size();

    public abstract int localSize();

    RankEngine(Team team, int id) {
        this.team = team;
        this.id = id;
        this.context = team.context();
        this.call = new CollectiveCall(context, id);
        this.span = team.spanGroup();
        this.statistics = team.statistics();
        this.local = new LocalCollectives(this);
        this.collectives = span == null ? local : new HierarchicalCollectives(this, span, local);
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
        // acquire: pairs with execute's release stores
        return (long) IN_CALL.getAcquire(inCall, IN_CALL_SLOT) != 0;
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

    /** The reducer a request of {@code op} folds with: the call's UserOp's for USER (set by its overload), else the engine's. */
    Reducer requestReducer(Op op) {
        return op == Op.USER ? userReducer() : null;
    }

    /**
     * Whether a spanning call must fold in ascending global rank order (the chain): the team is reproducible,
     * or the op is a non-commutative UserOp, which implies it (UserOp).
     */
    boolean inRankOrder(Op op) {
        return team.reproducible() || op == Op.USER && !userReducer().commutative();
    }

    /** The checks of the blocking method of collective {@code c} for its request or chain stage (global ids), before anything is shared. */
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
            Arguments.root(root, size());
        }
        switch (c) {
            case BCAST -> Arguments.writable("buf", send, Arguments.bytes(count, dtype, 1), id());
            case REDUCE -> {
                long bytes = Arguments.bytes(count, dtype, 1);
                Arguments.readable("send", send, bytes, id());
                if (id() == root) {
                    Arguments.writable("recv", recv, bytes, id());
                    Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
                }
            }
            case ALLREDUCE -> {
                long bytes = Arguments.bytes(count, dtype, 1);
                Arguments.readable("send", send, bytes, id());
                Arguments.writable("recv", recv, bytes, id());
                Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
            }
            case REDUCE_SCATTER -> {
                long block = Arguments.bytes(count, dtype, 1);
                long total = Arguments.bytes(count, dtype, size());
                Arguments.readable("send", send, total, id());
                Arguments.writable("recv", recv, block, id());
                if (Aliasing.overlap(send, total, recv, block)) {
                    throw new IllegalArgumentException("send and recv overlap: reduceScatter needs separate buffers");
                }
            }
            case ALLGATHER -> {
                long block = Arguments.bytes(count, dtype, 1);
                long total = Arguments.bytes(count, dtype, size());
                Arguments.readable("send", send, block, id());
                Arguments.writable("recv", recv, total, id());
                if (Aliasing.overlap(send, block, recv, total) && !Aliasing.sameStart(send, 0, recv, id() * block)) {
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
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        // AVG runs as SUM and is divided below; a UserOp's reducer was set by the UserOp overload that called us
        Op foldOp = op == null ? null : op.foldOp();
        Reducer red = dtype == null ? null : op == Op.USER ? userReducer() : reducer(dtype, foldOp);
        // release: a plain store on x86; Team.close polls it (acquire) after aborting the team, to let an
        // in-flight call leave before the arena is freed (the native calls also hold their segments' sessions)
        IN_CALL.setRelease(inCall, IN_CALL_SLOT, 1L);
        // off unless a JFR recording enabled it; the event object only while it is on (see CALL_EVENT_PROBE)
        boolean recorded = CALL_EVENT_PROBE.isEnabled();
        CollectiveCallEvent event = recorded ? new CollectiveCallEvent() : null;
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
            // AVG's division of this rank's result (the contributions counted by local rank: across processes the
            // compositions fold AVG as SUM here and divide by global rank after)
            io.coll4j.kernel.algo.Averaging.divide(c, op, dtype, id, localSize(), recv, 0, count);
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
            IN_CALL.setRelease(inCall, IN_CALL_SLOT, 0L);
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


}
