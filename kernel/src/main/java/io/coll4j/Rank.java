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
 * One rank of a {@link Team}: the handle its thread calls collectives on. Every collective must be
 * called by every rank of the team, in the same order, with the same collective, count, dtype, op and
 * root. A mismatch is detected as the ranks synchronise and aborts the team: every rank gets a
 * {@link CollectiveMismatchException} — in that collective, or, for a rank whose part of it completed
 * without waiting for the others (a bcast root), at its next collective call. Only the thread the rank
 * belongs to may use it.
 *
 * <p>Memory effects: the actions of every rank before it enters a collective happen-before every
 * rank's return from that collective, for every collective whose result depends on all ranks
 * (barrier, allreduce, reduce-scatter, allgather; reduce at the root). For bcast, the root's actions
 * before the call happen-before the others' return.
 *
 * <p>Buffers: a collective reads and writes the first {@code count × dtype.size()} bytes of its
 * segments (reduce-scatter reads {@code localSize() × recvCount} elements, allgather writes
 * {@code localSize() × sendCount}). Segments may be heap or native, at any alignment, but must be accessible
 * from every rank's thread (not from a confined arena). Passing the same segment as send and receive
 * buffer means in place (allreduce, reduce); for allgather, a send segment that is this rank's block of
 * the receive buffer means in place. When a collective returns, its buffers may be reused. A segment must
 * stay alive for the whole call: one already closed is an {@link IllegalArgumentException} naming it
 * and this rank; one closed by another thread during the call fails the call (the rank that passed it
 * gets the {@code IllegalArgumentException}, the others a {@link TeamAbortedException} naming it).
 *
 * <p>Interrupts: a rank whose thread is interrupted while it waits in a collective leaves the call with a
 * {@link CollectiveInterruptedException} naming it; the thread's interrupt status stays set, and the team
 * is aborted (the others get a {@link TeamAbortedException} naming this rank). A thread that enters a
 * collective with its interrupt status already set gets the same exception at its first wait that is
 * not satisfied at once.
 */
public final class Rank implements AutoCloseable, ArrayCollectives {
    private final Team team;
    private final int id;
    private final TeamContext context;
    private final CollectiveCall call;
    private final AtomicReference<Thread> owner = new AtomicReference<>();
    /** This rank has told its (sub-)team it is done ({@link #close}), once. */
    private boolean memberClosed;
    /** {@link #detach}ed once: its life is managed by whoever attaches it, closing it only detaches. */
    private volatile boolean detached;
    /** Op.values().length, once: values() clones its array on every call, and reducer() is on every reduction's path. */
    private static final int OPS = Op.values().length;
    private final Reducer[] reducers = new Reducer[DType.values().length * OPS];
    /** The UserOp of the call in progress (set and cleared by the UserOp overloads, on this rank's thread). */
    private UserOp userOp;
    /** The last UserOp's reducer, kept so a loop of calls with one UserOp creates it once. */
    private UserOp lastUserOp;
    private Reducer lastUserReducer;
    /** The in-place buffer of the scalar allreduces ({@link #allreduce(double, Op)}, …), allocated at the first. */
    private MemorySegment scalarCell;
    private final CollectiveAlgorithm[] lastAlgorithm = new CollectiveAlgorithm[Collective.values().length];
    private final long[] lastKey = new long[Collective.values().length];
    /**
     * reduceScatterV's displacements, one array per sequence parity: the array goes into this rank's
     * {@code BlockLayout}, which peers read during the call; the lag check keeps them out of it before this
     * rank's call two later rewrites the array of that parity (so no allocation per call).
     */
    private final long[][] reduceScatterDispls = new long[2][];
    private volatile BindResult binding;
    private PointToPoint p2p;
    /**
     * Non-null when the team spans processes: every collective (all 16 of {@link Collective}) goes through it,
     * hierarchically.
     */
    private final SpanGroup span;
    /**
     * The team spans processes with one rank in each and folds in MPI's order (not reproducible(true)): an
     * allreduce of an op MPI folds is MPI_Allreduce itself ({@link LeaderAllreduce}'s one-rank case).
     */
    private final boolean oneRankPerProcess;
    /** Set by this rank's thread around the local half of a hierarchical collective (see {@link Local}). */
    private boolean inLocal;
    /** Shared-view calls on a spanning team so far: their parity picks the process's shared buffer. */
    private int sharedCalls;
    private final LocalOps local;
    /** Team.Builder.statistics: every call timed for {@link Team#stats()}. */
    private final boolean statistics;
    /** Whether {@link #call} currently stamps entries and adds up waits for the call event. */
    private boolean callTimed;
    /** {rank, nanos} of the last entry, reused by every recorded call (no allocation per event). */
    private final long[] lastEntry = new long[2];
    /** Written by the rank's thread around every collective, read by {@link Team#close} (see {@link #execute}). */
    @SuppressWarnings("unused")
    private boolean inCall;
    private static final java.lang.invoke.VarHandle IN_CALL;

    static {
        try {
            IN_CALL = java.lang.invoke.MethodHandles.lookup().findVarHandle(Rank.class, "inCall", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    Rank(Team team, int id) {
        this.team = team;
        this.id = id;
        this.context = team.context();
        this.call = new CollectiveCall(context, id);
        this.span = team.spanGroup();
        this.oneRankPerProcess = span != null && span.localSize() == 1 && !team.reproducible();
        this.local = span == null ? null : new Local();
        this.statistics = team.statistics();
    }

    /**
     * This rank's number, 0 .. size()-1. With {@link Team.Builder#mpi()} it is global: process index ×
     * localSize() + localId(), so the ranks of one process are consecutive; on a sub-team across processes
     * ({@link #split}) the processes may hold different numbers of ranks, and it is the ranks of the processes
     * before this one + localId().
     */
    public int id() {
        return span == null ? id : span.globalId(id);
    }

    /** Number of ranks in the team: with {@link Team.Builder#mpi()}, of every process. */
    public int size() {
        return span == null ? context.size() : span.globalSize();
    }

    /** Number of this process's ranks of the team (equals {@link #size()} unless it spans processes). */
    public int localSize() {
        return context.size();
    }

    /** This rank's number among its process's ranks, 0 .. localSize()-1 (equals {@link #id()} unless the team spans processes). */
    public int localId() {
        return id;
    }

    /** Index of this rank's process, 0 .. team().processes()-1 (0 unless the team spans processes). */
    public int processIndex() {
        return team.processIndex();
    }

    /** Host name of this rank's process. */
    public String host() {
        return team.host();
    }

    public Team team() {
        return team;
    }

    /** The PU this rank is placed on. */
    public Pu pu() {
        return team.placement().pu(id);
    }

    /** How binding this rank's thread to its PU went (null before the rank has a thread). */
    public BindResult binding() {
        return binding;
    }

    // ------------------------------------------------------------------ thread ownership

    Thread owner() {
        return owner.get();
    }

    void adopt(Thread t) {
        owner.set(t);
        context.setThread(id, t);
    }

    boolean tryAttach(Thread t) {
        if (!owner.compareAndSet(null, t)) {
            return false;
        }
        context.setThread(id, t);
        return true;
    }

    void release(Thread t) {
        io.coll4j.kernel.sync.Contention contention = team.contention();
        if (contention != null && owner.get() == t) {
            contention.unregister();   // t is the calling thread: its state must not outlive its hold on the rank
        }
        if (owner.compareAndSet(t, null)) {
            context.setThread(id, null);
        }
    }

    void bindThread() {
        io.coll4j.kernel.sync.Contention contention = team.contention();
        if (team.placement().placement().binds()) {
            binding = team.binder().bindCurrentThread(pu());
            if (!binding.bound() && !binding.method().equals("none")) {   // "none": a binder that never binds, noted where chosen
                io.coll4j.topology.Fallbacks.note("thread binding", "rank " + id + " not bound to P#" + binding.requestedOsPu() + " ("
                        + binding.method() + ": " + binding.detail() + "); it runs where the OS puts it");
            }
        } else {
            binding = new BindResult(false, pu().osIndex(), -1, "none", "placement 'none' does not bind");
        }
        if (contention != null) {
            // this thread samples its own run delay in waits that overran (the adaptive strategy's detection)
            contention.register(id, io.coll4j.kernel.sync.Contention::ownRunDelay);
        }
    }

    /**
     * Detaches an attached rank from the calling thread; afterwards the rank may be attached again. Idempotent.
     * On a sub-team ({@link #split}) it is also this member's goodbye: when every member has closed its rank,
     * the sub-team closes itself and frees its memory (try-with-resources on the split rank is all it takes).
     */
    @Override
    public void close() {
        if (owner.get() == Thread.currentThread()) {
            release(Thread.currentThread());
            if (!memberClosed && !detached) {
                memberClosed = true;
                team.memberClosed();
            }
        }
    }

    /**
     * Detaches this rank from the calling thread and keeps it a member: for a sub-team rank that other threads will
     * {@link Team#attach} and use. From then on closing it only detaches, and the sub-team lives until
     * {@code team().close()} or its parent's close.
     */
    public void detach() {
        detached = true;
        release(Thread.currentThread());
    }

    /** This rank's point-to-point messages (MPI's send/recv on this team): see {@link PointToPoint}. */
    public PointToPoint p2p() {
        checkCaller();
        return p2p != null ? p2p : (p2p = new PointToPoint(this, context, id, span != null));
    }

    void checkThread() {
        checkCaller();
    }

    private void checkCaller() {
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

    // ------------------------------------------------------------------ memory

    /**
     * {@code bytes} of native memory local to this rank's NUMA node (page aligned, zeroed — and so first
     * touched — by this rank's thread, and bound to the node where memory binding works and the topology has
     * more than one). Accessible from every rank; freed when the team is closed.
     */
    public MemorySegment allocate(long bytes) {
        checkCaller();
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        try {
            return team.arena().allocate(bytes, team.nodeOf(id));
        } catch (OutOfMemoryError e) {
            // the size is the caller's argument: memory that cannot be had is a bad argument, not a dead JVM
            throw new IllegalArgumentException("bytes: " + bytes + " bytes cannot be allocated (" + e.getMessage() + ")");
        }
    }

    // ------------------------------------------------------------------ collectives on segments

    /** Waits until every rank has called barrier. */
    public void barrier() {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            spanCheck(Collective.BARRIER, 0, null, null, -1, 0);
            LeaderBarrier.run(span, local);
            return;
        }
        execute(Collective.BARRIER, null, null, 0, null, null, -1, 0);
    }

    /** Copies {@code count} elements of the root's {@code buf} into every other rank's {@code buf}. */
    public void bcast(MemorySegment buf, long count, DType dtype, int root) {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            Arguments.collective(Collective.BCAST, buf, buf, count, dtype, null, root, id(), size());
            spanCheck(Collective.BCAST, count, dtype, null, root, count * dtype.size());
            LeaderBcast.run(span, local, buf, count, dtype, root);
            return;
        }
        Arguments.collective(Collective.BCAST, buf, buf, count, dtype, null, root, id, localSize());
        execute(Collective.BCAST, buf, buf, count, dtype, null, root, count * dtype.size());
    }

    /**
     * Reduces the {@code send} buffers of all ranks element-wise with {@code op} into the root's {@code recv};
     * {@code recv} is ignored (and may be null) on the other ranks.
     */
    public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            Arguments.collective(Collective.REDUCE, send, recv, count, dtype, op, root, id(), size());
            requireUserOp(op);
            spanCheck(Collective.REDUCE, count, dtype, op, root, count * dtype.size());
            Op fold = op.foldOp();
            if (inRankOrder(op)) {
                // the fixed-order chain ends with the result everywhere: off the root it lands in a temporary
                ChainAllreduce.run(span, local, send, id() == root ? recv : span.result(id, count * dtype.size()), count, dtype, fold);
            } else {
                LeaderReduce.run(span, local, send, recv, count, dtype, fold, root);
            }
            average(Collective.REDUCE, op, id() == root ? recv : null, count, dtype);
            return;
        }
        Arguments.collective(Collective.REDUCE, send, recv, count, dtype, op, root, id, localSize());
        execute(Collective.REDUCE, send, id == root ? recv : null, count, dtype, op, root, count * dtype.size());
    }

    /**
     * Validates a plan's call with the same validator as the collective's method ({@link Arguments#collective}), then
     * runs the plan's algorithm. Kept under C2's FreqInlineSize (325 bytes of bytecode) so that it inlines into the
     * caller's loop: at 328 bytes (one more call in the spanned branch) it did not, and the 8-byte allreduce across
     * two processes took ~10 ns more. The spanned entry and the collectives that run through their own methods are
     * calls of their own.
     */
    void execute(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        checkCaller();
        if (spanned()) {
            executeSpanned(plan, send, recv);
            return;
        }
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
        Arguments.buffers(c, send, c == Collective.BCAST ? send : recv, count, t, root, id, localSize());
        MemorySegment r = switch (c) {
            case BARRIER -> null;
            case BCAST -> send;
            case REDUCE -> id == root ? recv : null;
            default -> recv;
        };
        execute(plan.algorithm(), c, c == Collective.BARRIER ? null : send, r, count, t, plan.op(), root);
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

    /** A planned v-variant: validated as by its method, run with the plan's algorithm. */
    void executeVector(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                       long[] recvCounts, long[] recvDispls) {
        checkCaller();
        CollectiveAlgorithm alg = plan.algorithm();
        DType t = plan.dtype();
        switch (plan.collective()) {
            case GATHERV -> gatherv(alg, send, mine("sendCounts", sendCounts), recv, recvCounts, recvDispls, t, plan.root());
            case SCATTERV -> scatterv(alg, send, sendCounts, sendDispls, recv, mine("recvCounts", recvCounts), t, plan.root());
            case ALLGATHERV -> allgatherv(alg, send, mine("sendCounts", sendCounts), recv, recvCounts, recvDispls, t);
            case REDUCE_SCATTER_V -> reduceScatterV(alg, send, recv, recvCounts, t, plan.op());
            case ALLTOALLV -> alltoallv(alg, send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            default -> throw new IllegalArgumentException(plan.collective().cliName()
                    + " has no count arrays: use execute(send, recv)");
        }
    }

    /** This rank's own count from a plan's array: its only entry, or entry {@code id} of a per-rank array. */
    private long mine(String name, long[] a) {
        if (a == null || (a.length != 1 && a.length != callSize())) {
            throw new IllegalArgumentException(name + " must hold this rank's count (one entry, or one per rank)");
        }
        return a.length == 1 ? a[0] : a[callId()];
    }

    /** Reduces the {@code send} buffers of all ranks element-wise with {@code op}; every rank gets the result in {@code recv}. */
    public void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            Arguments.collective(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, id(), size());
            if (isMpiAllreduce(op, count * dtype.size())) {
                mpiAllreduce(send, recv, count, dtype, op);   // as a plan's later calls (mpiDirect)
                return;
            }
            spannedAllreduce(send, recv, count, dtype, op);
            return;
        }
        Arguments.collective(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, id, localSize());
        execute(Collective.ALLREDUCE, send, recv, count, dtype, op, -1, count * dtype.size());
    }

    /** A spanning team's allreduce after its arguments were checked (by {@link #allreduce} or the plan). */
    private void spannedAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        requireUserOp(op);
        long bytes = count * dtype.size();
        spanCheck(Collective.ALLREDUCE, count, dtype, op, -1, bytes);
        Op fold = op.foldOp();
        if (inRankOrder(op)) {
            ChainAllreduce.run(span, local, send, recv, count, dtype, fold);
        } else if (span.multiLeader(bytes)) {
            MultiLeaderAllreduce.run(span, local, send, recv, count, dtype, fold);
        } else {
            LeaderAllreduce.run(span, local, send, recv, count, dtype, fold);
        }
        average(Collective.ALLREDUCE, op, recv, count, dtype);
    }

    /**
     * Reduces the {@code localSize() × recvCount} elements of every rank's {@code send} element-wise; rank i
     * receives block i ({@code recvCount} elements) of the result in {@code recv}. Buffers must not overlap.
     */
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            Arguments.collective(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, id(), size());
            requireUserOp(op);
            spanCheck(Collective.REDUCE_SCATTER, recvCount, dtype, op, -1, recvCount * dtype.size() * size());
            if (inRankOrder(op)) {
                chainScatter(send, recv, recvCount * size(), dtype, op, recvCount * id(), recvCount);
            } else {
                LeaderReduceScatter.run(span, local, send, recv, recvCount, dtype, op.foldOp());
            }
            average(Collective.REDUCE_SCATTER, op, recv, recvCount, dtype);
            return;
        }
        Arguments.collective(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, id, localSize());
        execute(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1, recvCount * dtype.size() * localSize());
    }

    /**
     * Gathers {@code sendCount} elements from every rank: block i of {@code recv} receives rank i's
     * {@code send}. In place when {@code send} is exactly this rank's block of {@code recv}.
     */
    public void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        checkCaller();
        if (spanned()) {
            flushSpanned();
            Arguments.collective(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, id(), size());
            spanCheck(Collective.ALLGATHER, sendCount, dtype, null, -1, sendCount * dtype.size() * size());
            LeaderAllgather.run(span, local, send, recv, sendCount, dtype);
            return;
        }
        Arguments.collective(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, id, localSize());
        execute(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1, sendCount * dtype.size() * localSize());
    }

    // collectives on double[], float[], long[] and int[] arrays: ArrayCollectives' typed overloads

    // ---- one number: allreduce of a scalar, through a per-rank 8-byte native cell (no allocation per call)

    /** The allreduce of one {@code double} (AVG included): every rank gets the same bits. */
    public double allreduce(double value, Op op) {
        return Double.longBitsToDouble(allreduceScalar(Double.doubleToRawLongBits(value), DType.F64, op));
    }

    /** The allreduce of one {@code float}. */
    public float allreduce(float value, Op op) {
        return Float.intBitsToFloat((int) allreduceScalar(Float.floatToRawIntBits(value), DType.F32, op));
    }

    /** The allreduce of one {@code long} (I64: signed MIN/MAX, wrapping SUM). */
    public long allreduce(long value, Op op) {
        return allreduceScalar(value, DType.I64, op);
    }

    /** The allreduce of one {@code int} (I32). */
    public int allreduce(int value, Op op) {
        return (int) allreduceScalar(value, DType.I32, op);
    }

    /** One element, as raw bits ({@link ScalarReference}'s encoding), allreduced in place in this rank's cell. */
    private long allreduceScalar(long bits, DType dtype, Op op) {
        MemorySegment cell = scalarCell();
        ScalarReference.set(dtype, cell, 0, bits);
        allreduce(cell, cell, 1, dtype, op);
        return ScalarReference.get(dtype, cell, 0);
    }

    /** This rank's cell for the scalar allreduces, allocated at the first one (in place: send and recv are the cell). */
    private MemorySegment scalarCell() {
        checkCaller();
        if (scalarCell == null) {
            scalarCell = allocate(8);
        }
        return scalarCell;
    }

    // ---- ByteBuffer forms: the buffer's remaining bytes (position to limit), direct or heap

    /** {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} on buffers. */
    public void allreduce(ByteBuffer send, ByteBuffer recv, long count, DType dtype, Op op) {
        allreduce(buffer("send", send), buffer("recv", recv), count, dtype, op);
    }

    /** {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} on buffers; {@code recv} may be null off the root. */
    public void reduce(ByteBuffer send, ByteBuffer recv, long count, DType dtype, Op op, int root) {
        reduce(buffer("send", send), recv == null ? null : buffer("recv", recv), count, dtype, op, root);
    }

    /** {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} on buffers. */
    public void reduceScatter(ByteBuffer send, ByteBuffer recv, long recvCount, DType dtype, Op op) {
        reduceScatter(buffer("send", send), buffer("recv", recv), recvCount, dtype, op);
    }

    /** {@link #bcast(MemorySegment, long, DType, int)} on a buffer. */
    public void bcast(ByteBuffer buf, long count, DType dtype, int root) {
        bcast(buffer("buf", buf), count, dtype, root);
    }

    /** {@link #allgather(MemorySegment, MemorySegment, long, DType)} on buffers. */
    public void allgather(ByteBuffer send, ByteBuffer recv, long sendCount, DType dtype) {
        allgather(buffer("send", send), buffer("recv", recv), sendCount, dtype);
    }

    /** {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} on buffers. */
    public void scan(ByteBuffer send, ByteBuffer recv, long count, DType dtype, Op op) {
        scan(buffer("send", send), buffer("recv", recv), count, dtype, op);
    }

    /** {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} on buffers. */
    public void exscan(ByteBuffer send, ByteBuffer recv, long count, DType dtype, Op op) {
        exscan(buffer("send", send), buffer("recv", recv), count, dtype, op);
    }

    /**
     * The remaining bytes of {@code b} as a segment (a heap buffer's is over its {@code byte[]}, which every
     * dtype accepts; a read-only buffer gives a read-only segment, which a recv refuses by name).
     */
    private static MemorySegment buffer(String name, ByteBuffer b) {
        if (b == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return MemorySegment.ofBuffer(b);
    }

    // ------------------------------------------------------------------ plans

    /**
     * A persistent plan for a collective called repeatedly with the same shape (the hot loop of a
     * training step): the algorithm is chosen once, and {@link CollectivePlan#explain()} says why.
     * {@code root} is ignored for unrooted collectives.
     */
    public CollectivePlan plan(Collective collective, long count, DType dtype, Op op, int root) {
        checkCaller();
        return new CollectivePlan(this, collective, count, dtype, op, root, null);
    }

    /**
     * A plan that runs algorithm {@code algorithm} (a name {@code collbench list} shows; {@code "auto"} lets
     * the model choose) — benchmarks compare algorithms on one team with this. Every rank must make the
     * same plan.
     */
    public CollectivePlan plan(Collective collective, long count, DType dtype, Op op, int root, String algorithm) {
        checkCaller();
        return new CollectivePlan(this, collective, count, dtype, op, root, algorithm);
    }

    /** {@link #plan(Collective, long, DType, Op, int)} for an unrooted collective. */
    public CollectivePlan plan(Collective collective, long count, DType dtype, Op op) {
        return plan(collective, count, dtype, op, 0);
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
    private void average(Collective c, Op op, MemorySegment recv, long count, DType dtype) {
        io.coll4j.kernel.nb.Averaging.divide(c, op, dtype, callId(), callSize(), recv, 0, count);
    }

    /** The reducer of the UserOp this call runs with; {@link Op#USER} without one is the caller's mistake. */
    private Reducer userReducer() {
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
    private void commit(CollectiveCallEvent event, long start, Collective c, CollectiveAlgorithm a, long bytes, DType dtype, Op op) {
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
    private long checkGather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
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
    private long checkScatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
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
    private void checkGatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
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
    private void checkScatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
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
    private long checkAllgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
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
    private long checkReduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
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
    private long checkAlltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
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
    private void checkAlltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
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
    private long checkScan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
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

    /** Runs {@code collective} with {@code op} as the call's reducer (the lambda is not a hot path: user ops fold in plain Java). */
    private void withUserOp(UserOp op, Runnable collective) {
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
    private static void blockOrDisjoint(String innerName, MemorySegment inner, long innerBytes, String outerName,
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
    private void run(CollectiveAlgorithm forced, Collective c, MemorySegment send, MemorySegment recv, long count,
                     DType dtype, Op op, int root, long selectCount, long selectBytes, long signatureCount,
                     long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        CollectiveAlgorithm a = forced != null ? forced : select(c, selectCount, dtype, op, selectBytes);
        executeBlocks(a, c, send, recv, count, dtype, op, root, signatureCount, sendCounts, sendDispls, recvCounts,
                recvDispls);
    }

    // ------------------------------------------------------------------ non-blocking, persistent and chained collectives

    /** Issue number of this rank's last non-blocking call or persistent init (the same sequence on every rank). */
    private long issued;

    /**
     * Non-blocking {@link #barrier()}: complete once every rank has issued it. Non-blocking calls are
     * matched across ranks by issue order — every rank must issue the same non-blocking and persistent-init
     * calls in the same order — independently of the blocking collectives. Any number may be outstanding
     * and they may be awaited in any order (see {@link Request}).
     */
    public Request ibarrier() {
        checkCaller();
        return issue(Collective.BARRIER, null, null, 0, null, null, -1);
    }

    /** Non-blocking {@link #bcast(MemorySegment, long, DType, int)}. */
    public Request ibcast(MemorySegment buf, long count, DType dtype, int root) {
        checkCaller();
        validate(Collective.BCAST, buf, buf, count, dtype, null, root);
        return issue(Collective.BCAST, buf, buf, count, dtype, null, root);
    }

    /** Non-blocking {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)}. */
    public Request ireduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        checkCaller();
        validate(Collective.REDUCE, send, recv, count, dtype, op, root);
        return issue(Collective.REDUCE, send, callId() == root ? recv : null, count, dtype, op, root);
    }

    /** Non-blocking {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iallreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        validate(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
        return issue(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
    }

    /** Non-blocking {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request ireduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        checkCaller();
        validate(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
        return issue(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
    }

    /** Non-blocking {@link #allgather(MemorySegment, MemorySegment, long, DType)}. */
    public Request iallgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        checkCaller();
        validate(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
        return issue(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
    }

    /** Non-blocking {@link #gather(MemorySegment, MemorySegment, long, DType, int)}. */
    public Request igather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        checkGather(send, recv, count, dtype, root);
        return issue(Collective.GATHER, send, callId() == root ? recv : null, count, dtype, null, root);
    }

    /** Non-blocking {@link #scatter(MemorySegment, MemorySegment, long, DType, int)}. */
    public Request iscatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        checkScatter(send, recv, count, dtype, root);
        return issue(Collective.SCATTER, callId() == root ? send : null, recv, count, dtype, null, root);
    }

    /** Non-blocking {@link #alltoall(MemorySegment, MemorySegment, long, DType)}. */
    public Request ialltoall(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        checkAlltoall(send, recv, count, dtype);
        return issue(Collective.ALLTOALL, send, recv, count, dtype, null, -1);
    }

    /** Non-blocking {@link #scan(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        checkScan(send, recv, count, dtype, op);
        return issue(Collective.SCAN, send, recv, count, dtype, op, -1);
    }

    /** Non-blocking {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)}. */
    public Request iexscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        checkScan(send, recv, count, dtype, op);
        return issue(Collective.EXSCAN, send, recv, count, dtype, op, -1);
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

    /** A v-collective's call as a request takes it: checked as by the blocking method, the counts copied. */
    private record VectorArgs(Collective c, MemorySegment send, MemorySegment recv, DType dtype, Op op, int root,
                              VectorCall call) {
    }

    private VectorArgs gathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                   long[] displs, DType dtype, int root) {
        checkCaller();
        checkGatherv(send, sendCount, recv, recvCounts, displs, dtype, root);
        // the root's arrays only at the root (ignored elsewhere, may be null there)
        boolean atRoot = callId() == root;
        return new VectorArgs(Collective.GATHERV, send, atRoot ? recv : null, dtype, null, root,
                VectorCall.copyOf(sendCount, null, null, atRoot ? recvCounts : null, atRoot ? displs : null));
    }

    private VectorArgs scattervArgs(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv,
                                    long recvCount, DType dtype, int root) {
        checkCaller();
        checkScatterv(send, sendCounts, displs, recv, recvCount, dtype, root);
        boolean atRoot = callId() == root;
        return new VectorArgs(Collective.SCATTERV, atRoot ? send : null, recv, dtype, null, root,
                VectorCall.copyOf(recvCount, atRoot ? sendCounts : null, atRoot ? displs : null, null, null));
    }

    private VectorArgs allgathervArgs(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts,
                                      long[] displs, DType dtype) {
        checkCaller();
        checkAllgatherv(send, sendCount, recv, recvCounts, displs, dtype);
        return new VectorArgs(Collective.ALLGATHERV, send, recv, dtype, null, -1,
                VectorCall.copyOf(sendCount, null, null, recvCounts, displs));
    }

    private VectorArgs reduceScatterVArgs(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
        checkCaller();
        checkReduceScatterV(send, recv, recvCounts, dtype, op);
        return new VectorArgs(Collective.REDUCE_SCATTER_V, send, recv, dtype, op, -1,
                VectorCall.copyOf(0, null, null, recvCounts, null));
    }

    private VectorArgs alltoallvArgs(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                                     long[] recvCounts, long[] recvDispls, DType dtype) {
        checkCaller();
        checkAlltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype);
        return new VectorArgs(Collective.ALLTOALLV, send, recv, dtype, null, -1,
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
        checkCaller();
        return init(Collective.BARRIER, null, null, 0, null, null, -1);
    }

    /** Persistent {@link #bcast(MemorySegment, long, DType, int)} bound to {@code buf}. */
    public PersistentRequest bcastInit(MemorySegment buf, long count, DType dtype, int root) {
        checkCaller();
        validate(Collective.BCAST, buf, buf, count, dtype, null, root);
        return init(Collective.BCAST, buf, buf, count, dtype, null, root);
    }

    /** Persistent {@link #reduce(MemorySegment, MemorySegment, long, DType, Op, int)} bound to its buffers. */
    public PersistentRequest reduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        checkCaller();
        validate(Collective.REDUCE, send, recv, count, dtype, op, root);
        return init(Collective.REDUCE, send, callId() == root ? recv : null, count, dtype, op, root);
    }

    /** Persistent {@link #allreduce(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest allreduceInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        validate(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
        return init(Collective.ALLREDUCE, send, recv, count, dtype, op, -1);
    }

    /** Persistent {@link #reduceScatter(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest reduceScatterInit(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        checkCaller();
        validate(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
        return init(Collective.REDUCE_SCATTER, send, recv, recvCount, dtype, op, -1);
    }

    /** Persistent {@link #allgather(MemorySegment, MemorySegment, long, DType)} bound to its buffers. */
    public PersistentRequest allgatherInit(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        checkCaller();
        validate(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
        return init(Collective.ALLGATHER, send, recv, sendCount, dtype, null, -1);
    }

    /** Persistent {@link #gather(MemorySegment, MemorySegment, long, DType, int)} bound to its buffers. */
    public PersistentRequest gatherInit(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        checkGather(send, recv, count, dtype, root);
        return init(Collective.GATHER, send, callId() == root ? recv : null, count, dtype, null, root);
    }

    /** Persistent {@link #scatter(MemorySegment, MemorySegment, long, DType, int)} bound to its buffers. */
    public PersistentRequest scatterInit(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
        checkCaller();
        checkScatter(send, recv, count, dtype, root);
        return init(Collective.SCATTER, callId() == root ? send : null, recv, count, dtype, null, root);
    }

    /** Persistent {@link #alltoall(MemorySegment, MemorySegment, long, DType)} bound to its buffers. */
    public PersistentRequest alltoallInit(MemorySegment send, MemorySegment recv, long count, DType dtype) {
        checkCaller();
        checkAlltoall(send, recv, count, dtype);
        return init(Collective.ALLTOALL, send, recv, count, dtype, null, -1);
    }

    /** Persistent {@link #scan(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest scanInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        checkScan(send, recv, count, dtype, op);
        return init(Collective.SCAN, send, recv, count, dtype, op, -1);
    }

    /** Persistent {@link #exscan(MemorySegment, MemorySegment, long, DType, Op)} bound to its buffers. */
    public PersistentRequest exscanInit(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        checkScan(send, recv, count, dtype, op);
        return init(Collective.EXSCAN, send, recv, count, dtype, op, -1);
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
            case BARRIER -> init(c, null, null, 0, null, null, -1);
            case REDUCE -> init(c, send, callId() == plan.root() ? recv : null, plan.count(), plan.dtype(), plan.op(), plan.root());
            default -> init(c, send, r, plan.count(), plan.dtype(), plan.op(), plan.root());
        };
    }

    /**
     * A schedule of collectives and local steps run as one request [PAMI §4.1–4.2], e.g. reduce-scatter →
     * a function on this rank's block → allgather. Every rank must build the same schedule of collectives.
     */
    public Chain chain() {
        checkCaller();
        return new Chain(this);
    }

    /** True when this rank's team spans processes (its chains then run as a {@link SpanRequest}). */
    boolean spansProcesses() {
        return span != null;
    }

    /** The team's state (a chain across processes runs on it). */
    TeamContext context() {
        return context;
    }

    private Request issue(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        return issue(c, send, recv, count, dtype, op, root, null);
    }

    /** A v-collective's issue: count 0 in the exchange's key, the counts in the call. */
    private Request issue(VectorArgs a) {
        return issue(a.c(), a.send(), a.recv(), 0, a.dtype(), a.op(), a.root(), a.call());
    }

    private Request issue(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root,
                          VectorCall call) {
        if (span != null) {
            return spannedRequest(c, send, recv, count, dtype, op, root, call, false);
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, c, count, dtype, op, root, false, send, recv, call,
                requestReducer(op));
        return io.coll4j.kernel.nb.CollectiveRequest.oneShot(engine, x, id);
    }

    private PersistentRequest init(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                   int root) {
        return init(c, send, recv, count, dtype, op, root, null);
    }

    /** A v-collective's persistent init: count 0 in the exchange's key, the counts in the call. */
    private PersistentRequest init(VectorArgs a) {
        return init(a.c(), a.send(), a.recv(), 0, a.dtype(), a.op(), a.root(), a.call());
    }

    private PersistentRequest init(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                   int root, VectorCall call) {
        if (span != null) {
            return spannedRequest(c, send, recv, count, dtype, op, root, call, true);
        }
        if (context.isAborted()) {
            throw context.abortedException(id);
        }
        io.coll4j.kernel.nb.NonBlockingEngine engine = team.nonBlocking();
        io.coll4j.kernel.nb.Exchange x = engine.join(++issued, id, c, count, dtype, op, root, true, send, recv, call,
                requestReducer(op));
        return io.coll4j.kernel.nb.CollectiveRequest.persistent(engine, x, id);
    }

    /** This rank's outstanding requests across processes, and local rank 0's order of their MPI calls (first use). */
    private SpanQueue spanQueue;

    /**
     * A non-blocking or persistent collective of a team that spans processes: the non-blocking schedule of its
     * leader algorithm ({@link SpanRequest}), every collective and v-variant; on a team that folds in global rank
     * order the reductions' chain of the leaders instead.
     */
    private SpanRequest spannedRequest(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
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
    private List<SpanRequest.Stage> spannedStages(Collective c, MemorySegment send, MemorySegment recv, long count,
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
    private List<SpanRequest.Stage> orderedStages(LocalJoin join, Collective c, MemorySegment send, MemorySegment recv,
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
    private long orderedBytes(Collective c, long count, DType dtype, io.coll4j.kernel.nb.VectorCall v) {
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
    private long bytesOfOneMpiCall(Collective c, long count, DType dtype) {
        int t = localSize();
        long processes = team.processes();
        return switch (c) {
            case GATHER, SCATTER -> count * dtype.size() * t * processes;
            case ALLTOALL -> count * dtype.size() * t * t * processes;
            case SCAN, EXSCAN -> count * dtype.size() * processes;
            default -> 0;   // the v-variants: their MPI calls refuse a byte count beyond int (MPI_ERR_COUNT) when posted
        };
    }

    /** This rank's queue of requests across processes (made on first use). */
    SpanQueue spanQueue() {
        if (spanQueue == null) {
            spanQueue = new SpanQueue();
        }
        return spanQueue;
    }

    /**
     * {@code stages} with {@link SpanCheck} run by the leader just before its first round's MPI call: in the order
     * of the MPI calls (SpanQueue), so every process's leader meets it at the same point of its sequence.
     */
    private List<SpanRequest.Stage> checked(List<SpanRequest.Stage> stages, long descriptor, long count) {
        List<SpanRequest.Stage> out = new java.util.ArrayList<>(stages.size());
        boolean[] done = {false};
        for (SpanRequest.Stage s : stages) {
            if (s instanceof SpanRequest.Inter i) {
                out.add(new SpanRequest.Inter(() -> {
                    if (!done[0]) {
                        done[0] = true;
                        SpanCheck.verify(span, local, descriptor, count, span.span().requests());
                    }
                    return i.post().get();
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
    private void flushSpanned() {
        if (spanQueue != null && spanQueue.mustFlush()) {
            spanQueue.flush(context, id);
        }
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

    /** The reducer a request of {@code op} folds with: the call's UserOp's for USER (set by its overload), else the engine's. */
    private Reducer requestReducer(Op op) {
        return op == Op.USER ? userReducer() : null;
    }

    /**
     * AVG and user ops on a request of a team spanning processes: its stages run after the call returned, when the
     * UserOp the leaders' MPI upcall and folds read is no longer the call's, and no stage divides AVG's sum.
     * Checked before anything is shared; {@code what} names the form the user called.
     */
    private static void refuseAcrossProcesses(Op op, String what) {
        if (op == Op.AVG || op == Op.USER) {
            throw new UnsupportedOperationException("op " + op.cliName() + " is not available on " + what + " of a team"
                    + " spanning processes; the blocking form takes it (for avg: sum, then Averages.divide after await())");
        }
    }

    /**
     * Op USER across processes needs the call's UserOp (the span's algorithms reduce with it, and MPI runs a
     * commutative one's function): through a DType overload it is refused before anything is sent, as in one
     * process.
     */
    private void requireUserOp(Op op) {
        if (op == Op.USER) {
            userReducer();
        }
    }

    /**
     * Whether a spanning call must fold in ascending global rank order (the chain): the team is reproducible,
     * or the op is a non-commutative UserOp, which implies it (UserOp).
     */
    private boolean inRankOrder(Op op) {
        return team.reproducible() || op == Op.USER && !userReducer().commutative();
    }

    /**
     * The ordered reduce-scatter(-v) across processes: the chain allreduces the whole {@code send} of
     * {@code total} elements into this rank's result buffer, then this rank copies its block out.
     */
    private void chainScatter(MemorySegment send, MemorySegment recv, long total, DType dtype, Op op, long at, long count) {
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

    // ------------------------------------------------------------------ sub-teams

    /** How many splits this rank has made (the same on every rank: split is a collective of the team). */
    private long splits;

    /**
     * {@code MPI_Comm_split}: a collective of this team (every rank calls it, in the same order as its other
     * blocking collectives). Ranks with the same {@code color} form a sub-team, ordered by {@code key} and
     * then by their rank here; the calling thread gets its rank in it, attached and ready to use. A rank
     * passing {@link Team#UNDEFINED} joins none and gets null.
     *
     * <p>The sub-team is a team of its own: its placement is its members' PUs, so the selector, the
     * algorithms and the layout see its own topology; it has its own control lines, so it may run
     * collectives while this team runs others (each thread, of course, is in one collective at a time).
     * Closing: every member closes its sub-team rank when done ({@code try (Rank sub = rank.split(c, k)) {…}});
     * the last member's close closes the sub-team and frees its memory. Closing the parent closes every
     * sub-team still open, aborting ranks still inside a collective of it. An abort of the parent aborts its
     * sub-teams.
     *
     * <p>On a team that spans processes ({@link Team.Builder#mpi()}) the order is by key, then global id; a color
     * whose members are in one process is an ordinary sub-team there, one spread over several processes a sub-team
     * across them, over an MPI sub-communicator of exactly those processes (docs/design.md, "Across processes").
     *
     * @throws IllegalArgumentException      when {@code color} is negative and not {@link Team#UNDEFINED}
     * @throws UnsupportedOperationException on every rank, across processes, when one process's members of a color
     *                                       are not consecutive in (key, global id) order (interleaved with another
     *                                       process's), or below MPI_THREAD_MULTIPLE one process would hold members of
     *                                       two sub-teams across processes
     */
    public Rank split(int color, int key) {
        checkCaller();
        if (color < 0 && color != Team.UNDEFINED) {
            throw new IllegalArgumentException("color must be >= 0 or Team.UNDEFINED, got " + color);
        }
        long[] all = new long[2 * size()];
        if (spanned()) {
            allgather(new long[]{color, key}, all);
        } else {
            // the allgather of (color, key) under a count word of its own (Signature.SPLIT): a rank that calls
            // allgather of two longs while another splits is a mismatch on both at once, not an allgather that
            // succeeds and a sub-team that never fills
            MemorySegment send = MemorySegment.ofArray(new long[]{color, key});
            MemorySegment recv = MemorySegment.ofArray(all);
            Arguments.collective(Collective.ALLGATHER, send, recv, 2, DType.I64, null, -1, id, localSize());
            executeBlocks(select(Collective.ALLGATHER, 2, DType.I64, null, 16L * localSize()), Collective.ALLGATHER, send, recv,
                    2, DType.I64, null, -1, Signature.SPLIT | 2, null, null, null, null);
        }
        long split = ++splits;
        return TeamSplit.join(this, team, local, split, all, color);
    }

    /**
     * {@link #split} by package: one sub-team per processor package, ranks in their order here. On a team that
     * spans processes, one per package of each process (memory is shared within a process only): local sub-teams.
     */
    public Rank splitByPackage() {
        return split(perProcess(Math.max(0, pu().pkg())), id());
    }

    /** {@link #split} by NUMA node: one sub-team per node (of each process, as {@link #splitByPackage}), ranks in their order here. */
    public Rank splitByNuma() {
        return split(perProcess(Math.max(0, pu().numa())), id());
    }

    /**
     * {@link #split} into the team of package leaders (the lowest rank of each package), the bridge of a
     * two-level schedule [PAMI §4.2, MPI+MPI]; every other rank gets null. On a team that spans processes, the
     * leaders of every package of every process: a sub-team across processes (local rank 0 of each process on
     * one-package machines).
     */
    public Rank splitLeaders() {
        int pkg = pu().pkg();
        boolean leader = true;
        for (int q = 0; q < id; q++) {
            if (team.placement().pu(q).pkg() == pkg) {
                leader = false;
                break;
            }
        }
        return split(leader ? 0 : Team.UNDEFINED, id());
    }

    /** Local group {@code group} of this process as a color no other process uses (the process index above 16 bits). */
    private int perProcess(int group) {
        if (group >= 1 << 16 || processIndex() >= 1 << 15) {
            throw new UnsupportedOperationException("topology splits need fewer than 2^16 groups per process and 2^15 processes");
        }
        return (processIndex() << 16) | group;
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
    private RuntimeException blame(Throwable e) {
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

    // ---- shared-view allgather [MPI+MPI §4.1] ----

    private static final SharedViewAllgather SHARED_VIEW = new SharedViewAllgather();

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

    private static final SharedViewAllreduce SHARED_VIEW_ALLREDUCE = new SharedViewAllreduce();

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

    // ------------------------------------------------------------------ across processes

    /** True on the entry of a collective of a team that spans processes (not inside its local half). */
    private boolean spanned() {
        return span != null && !inLocal;
    }

    /** The rank number a call's arguments are checked against: global on a spanned entry, local otherwise. */
    private int callId() {
        return spanned() ? id() : id;
    }

    /** The team size a call's arguments are checked against: global on a spanned entry, local otherwise. */
    int callSize() {
        return spanned() ? size() : localSize();
    }

    /** The requests a sub-team across processes with different numbers of ranks per process takes (their schedules follow the layout). */
    private static final java.util.Set<Collective> UNEVEN_REQUESTS = java.util.EnumSet.of(Collective.BARRIER,
            Collective.BCAST, Collective.REDUCE, Collective.ALLREDUCE, Collective.REDUCE_SCATTER, Collective.ALLGATHER);

    private static UnsupportedOperationException singleProcessOnly(String what) {
        return new UnsupportedOperationException(what + " is not available on a team that spans processes (Team.Builder.mpi()); "
                + "every blocking collective and its plan is, and every collective's non-blocking, persistent and chained forms");
    }

    /**
     * The cross-process mismatch check of a spanned call moving {@code bytes} per rank, where it costs nothing
     * measurable ({@link SpanCheck}); the leader throws {@link CollectiveMismatchException} when processes differ.
     */
    private void spanCheck(Collective c, long count, DType dtype, Op op, int root, long bytes) {
        checkInterruptedAcrossProcesses(c);
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
    private void executeSpanned(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
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
    private boolean mpiDirect(CollectivePlan plan) {
        return plan.collective() == Collective.ALLREDUCE && isMpiAllreduce(plan.op(), plan.bytes());
    }

    /**
     * Whether an allreduce of {@code op} on {@code bytes} is MPI_Allreduce itself: one rank per process and no
     * rank-order chain ({@link #oneRankPerProcess}: {@link LeaderAllreduce}'s one-rank case, never multi-leader),
     * an op MPI folds itself (not AVG, which divides after, nor a UserOp), and below {@link SpanCheck}'s size (a
     * plan's first call was compared across processes; a call this small is not). Skipping the dispatch of
     * {@link #spannedAllreduce} saved ~10–15 ns of an 8-byte allreduce across 2 processes (MPI's own: ~200 ns).
     */
    private boolean isMpiAllreduce(Op op, long bytes) {
        return oneRankPerProcess && op != Op.AVG && op != Op.USER && !SpanCheck.due(bytes);
    }

    /**
     * A blocking MPI call cannot be interrupted: an interrupt that came while this rank was inside one (or before
     * this call) is reported at its next collective across processes — a {@link CollectiveInterruptedException}
     * that aborts the team (and so the job) — never lost.
     */
    private void checkInterruptedAcrossProcesses(Collective c) {
        if (Thread.currentThread().isInterrupted()) {
            CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + id() + " (thread "
                    + Thread.currentThread().getName() + ") was interrupted before " + c.cliName() + " across processes"
                    + " (or during an MPI call it could not leave); the team is aborted", id);
            context.abort(e, id);
            throw e;
        }
    }

    /** The allreduce as one MPI_Allreduce of this process's buffers ({@link #isMpiAllreduce}). */
    private void mpiAllreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkInterruptedAcrossProcesses(Collective.ALLREDUCE);
        io.coll4j.kernel.span.ProcessSpan s = span.span();
        s.carry(Signature.descriptor(Collective.ALLREDUCE, dtype, op, -1), count);   // checked with its payload
        s.allreduce(s.world(), Aliasing.sameStart(send, recv) ? null : send, recv, count, dtype, op);
    }

    /**
     * This rank's collectives on its own process's ranks, for the hierarchical algorithms: the public
     * methods with {@link #inLocal} set, so they take the single-process path with local ids and roots.
     */
    private final class Local implements LocalOps {
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
            return op == Op.USER ? userReducer() : Rank.this.reducer(dtype, op);
        }

        @Override
        public void barrier() {
            local(() -> Rank.this.barrier());
        }

        @Override
        public void bcast(MemorySegment buf, long count, DType dtype, int root) {
            local(() -> Rank.this.bcast(buf, count, dtype, root));
        }

        @Override
        public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
            local(() -> Rank.this.reduce(send, recv, count, dtype, op, root));
        }

        @Override
        public void gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
            local(() -> Rank.this.gather(send, recv, count, dtype, root));
        }

        @Override
        public void scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root) {
            local(() -> Rank.this.scatter(send, recv, count, dtype, root));
        }

        @Override
        public void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs, DType dtype,
                            int root) {
            local(() -> Rank.this.gatherv(send, sendCount, recv, recvCounts, displs, dtype, root));
        }

        @Override
        public void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount, DType dtype,
                             int root) {
            local(() -> Rank.this.scatterv(send, sendCounts, displs, recv, recvCount, dtype, root));
        }

        @Override
        public void scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
            local(() -> Rank.this.scan(send, recv, count, dtype, op));
        }

        @Override
        public void exscan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
            local(() -> Rank.this.exscan(send, recv, count, dtype, op));
        }

        @Override
        public void reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op) {
            local(() -> Rank.this.reduceScatterV(send, recv, recvCounts, dtype, op));
        }

        @Override
        public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
                               DType dtype) {
            local(() -> Rank.this.allgatherv(send, sendCount, recv, recvCounts, displs, dtype));
        }
    }

    @Override
    public String toString() {
        return "Rank[" + id() + "/" + size() + "]";
    }
}
