package io.coll4j;

import io.coll4j.kernel.algo.Signature;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;
import io.coll4j.topology.BindResult;
import io.coll4j.topology.Pu;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

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
public final class Rank extends RankRequests implements AutoCloseable, ArrayCollectives {
    // The state and the call machinery are RankEngine's; the public collectives beyond the first six, their user-op
    // and shared-view forms RankVocabulary's; the non-blocking, persistent and chained forms RankRequests'. Their
    // public methods are Rank's (inherited: the layers are package-private). Here: the rank's identity and thread,
    // the first six collectives and their scalar and ByteBuffer forms, plans, sub-teams. A blocking call is checked
    // for its caller here and run by the rank's Collectives: LocalCollectives on a team of one process, the
    // compositions of HierarchicalCollectives on one spanning processes.

    Rank(Team team, int id) {
        super(team, id);
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
        return p2p != null ? p2p : (p2p = new PointToPoint(this, context, id, span));
    }

    // ------------------------------------------------------------------ memory

    /**
     * {@code bytes} of native memory local to this rank's NUMA node (page aligned, zeroed — and so first
     * touched — by this rank's thread, and bound to the node where memory binding works and the topology has
     * more than one). Accessible from every rank; freed when the team is closed. In a team of
     * {@code processes(n, i)} it lies in the mapping every process shares (page aligned, zeroed), so the
     * collectives read and write it in place; more than this process's region holds
     * ({@link Team.Builder#sharedMemory}) is an {@link IllegalArgumentException}.
     */
    public MemorySegment allocate(long bytes) {
        checkCaller();
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        try {
            // a process team's memory lies in the mapping every process reaches: its collectives work on it in place
            MemorySegment shared = span != null ? span.span().allocate(bytes) : null;
            return shared != null ? shared : team.arena().allocate(bytes, team.nodeOf(id));
        } catch (OutOfMemoryError e) {
            // the size is the caller's argument: memory that cannot be had is a bad argument, not a dead JVM
            throw new IllegalArgumentException("bytes: " + bytes + " bytes cannot be allocated (" + e.getMessage() + ")");
        }
    }

    // ------------------------------------------------------------------ collectives on segments

    /** Waits until every rank has called barrier. */
    public void barrier() {
        checkCaller();
        collectives.barrier();
    }

    /** Copies {@code count} elements of the root's {@code buf} into every other rank's {@code buf}. */
    public void bcast(MemorySegment buf, long count, DType dtype, int root) {
        checkCaller();
        collectives.bcast(buf, count, dtype, root);
    }

    /**
     * Reduces the {@code send} buffers of all ranks element-wise with {@code op} into the root's {@code recv};
     * {@code recv} is ignored (and may be null) on the other ranks.
     */
    public void reduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root) {
        checkCaller();
        collectives.reduce(send, recv, count, dtype, op, root);
    }

    /** A plan's call: checked and run by the rank's {@link Collectives} (small, so that it inlines into the caller's loop). */
    void execute(CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        checkCaller();
        collectives.execute(plan, send, recv);
    }

    /** A planned v-variant: validated as by its method, run with the plan's algorithm. */
    void executeVector(CollectivePlan plan, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                       long[] recvCounts, long[] recvDispls) {
        checkCaller();
        collectives.executeVector(plan, send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    /** Reduces the {@code send} buffers of all ranks element-wise with {@code op}; every rank gets the result in {@code recv}. */
    public void allreduce(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        checkCaller();
        collectives.allreduce(send, recv, count, dtype, op);
    }

    /**
     * Reduces the {@code localSize() × recvCount} elements of every rank's {@code send} element-wise; rank i
     * receives block i ({@code recvCount} elements) of the result in {@code recv}. Buffers must not overlap.
     */
    public void reduceScatter(MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        checkCaller();
        collectives.reduceScatter(send, recv, recvCount, dtype, op);
    }

    /**
     * Gathers {@code sendCount} elements from every rank: block i of {@code recv} receives rank i's
     * {@code send}. In place when {@code send} is exactly this rank's block of {@code recv}.
     */
    public void allgather(MemorySegment send, MemorySegment recv, long sendCount, DType dtype) {
        checkCaller();
        collectives.allgather(send, recv, sendCount, dtype);
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
    long allreduceScalar(long bits, DType dtype, Op op) {
        MemorySegment cell = scalarCell();
        ScalarReference.set(dtype, cell, 0, bits);
        allreduce(cell, cell, 1, dtype, op);
        return ScalarReference.get(dtype, cell, 0);
    }

    /** This rank's cell for the scalar allreduces, allocated at the first one (in place: send and recv are the cell). */
    MemorySegment scalarCell() {
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
    static MemorySegment buffer(String name, ByteBuffer b) {
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

    // ------------------------------------------------------------------ sub-teams

    /** How many splits this rank has made (the same on every rank: split is a collective of the team). */
    long splits;

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
        if (span != null) {
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
    int perProcess(int group) {
        if (group >= 1 << 16 || processIndex() >= 1 << 15) {
            throw new UnsupportedOperationException("topology splits need fewer than 2^16 groups per process and 2^15 processes");
        }
        return (processIndex() << 16) | group;
    }

    @Override
    public String toString() {
        return "Rank[" + id() + "/" + size() + "]";
    }
}
