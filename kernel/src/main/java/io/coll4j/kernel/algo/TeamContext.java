package io.coll4j.kernel.algo;

import io.coll4j.CollectiveException;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.TeamAbortedException;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.memory.RankScratch;
import io.coll4j.kernel.memory.SharedArena;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.WaitStrategy;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * What the ranks of one team share, as the algorithms see it: the control block, the published buffer
 * references, every rank's scratch, the layout, the copy engine, and the abort state.
 *
 * <p>Buffer references ({@link #slot}) are plain array elements written by their owner before it
 * publishes a stamp with release semantics and read by peers after an acquire of that stamp (or a
 * later one). The release/acquire pair on the native control line orders these plain Java writes and
 * reads as well: a VarHandle access mode on a memory segment has the same memory-ordering semantics
 * as on a field, and HotSpot implements it with the same compiler and hardware barriers.
 */
public final class TeamContext {
    private static final System.Logger LOG = System.getLogger("io.coll4j");
    /** Kinds of published buffer reference. */
    public static final int SEND = 0, RECV = 1, SCRATCH = 2;
    private static final int KINDS = 3;
    /** Reference slots per rank, padded to 128 bytes (32 compressed references) against false sharing. */
    private static final int SLOT_STRIDE = 32;

    private final int size;
    private final ControlBlock ctrl;
    private final WaitStrategy waitStrategy;
    /** The adaptive strategy's contention monitor, or null when the team's strategy does not adapt. */
    private volatile io.coll4j.kernel.sync.Contention contention;
    private final long timeoutNanos;
    private final TeamLayout layout;
    private final Copy copy;
    private final boolean reproducible;
    private final SharedArena arena;
    private final RankScratch[] scratch;
    private final MemorySegment[] slots;
    private final AtomicReferenceArray<TreeShape> trees;
    private final AtomicReferenceArray<Thread> threads;
    private final AtomicReference<Abort> abort = new AtomicReference<>();
    private final java.util.concurrent.ConcurrentHashMap<Class<?>, Object> attachments = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.List<Runnable> abortListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile Schedule schedule;
    private final long maxSliceBytes;
    /** Per rank and parity: the block layout of the current call (see {@link BlockLayout}). */
    private final BlockLayout[] blockLayouts;
    /** Set once, read in every wait loop's slow path: cheaper than reading the AtomicReference. */
    private volatile boolean aborted;
    /** The last calls of every rank, for the messages of a failure and the late-rank field of the call event. */
    private final CallHistory history;
    /** Calls, bytes and time per collective and algorithm, per rank ({@code Team.stats()}). */
    private final CallStats stats;
    /** Per rank: 1 once its team.run body returned normally (cleared when a run starts). */
    private final java.util.concurrent.atomic.AtomicIntegerArray returned;
    /** How many ranks' bodies returned in this run: the wait loops' scan looks further only when it is not 0. */
    private final java.util.concurrent.atomic.AtomicInteger returnedCount = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Why the team stopped: the original failure and the rank it came from (-1: the team itself, e.g. close, or
     * its parent); {@code origin}, when not null, says who failed outside this team ("rank 2 of the parent team");
     * {@code calls}: the last calls of every rank when it did ({@link CallHistory#describe}).
     */
    public record Abort(Throwable cause, int rank, String origin, String calls) {
    }

    public TeamContext(int size, ControlBlock ctrl, WaitStrategy waitStrategy, long timeoutNanos, TeamLayout layout,
                       Copy copy, boolean reproducible, SharedArena arena, RankScratch[] scratch, long maxSliceBytes) {
        this.returned = new java.util.concurrent.atomic.AtomicIntegerArray(size);
        this.size = size;
        this.ctrl = ctrl;
        this.waitStrategy = waitStrategy;
        this.timeoutNanos = timeoutNanos;
        this.layout = layout;
        this.copy = copy;
        this.reproducible = reproducible;
        this.arena = arena;
        this.scratch = scratch;
        this.maxSliceBytes = maxSliceBytes;
        this.slots = new MemorySegment[size * SLOT_STRIDE];
        this.trees = new AtomicReferenceArray<>(size);
        this.threads = new AtomicReferenceArray<>(size);
        this.history = new CallHistory(size);
        this.stats = new CallStats(size);
        this.blockLayouts = new BlockLayout[2 * size];
        for (int i = 0; i < blockLayouts.length; i++) {
            blockLayouts[i] = new BlockLayout();
        }
    }

    /**
     * The block layout {@code rank} filled for collective {@code seq}: written by its owner before its
     * ANNOUNCE release, read by peers after an acquire of a stamp of that collective (as {@link #slot}).
     */
    public BlockLayout blocks(int rank, long seq) {
        return blockLayouts[2 * rank + (int) (seq & 1)];
    }

    public int size() {
        return size;
    }

    /**
     * I_max of [YHCCL §5.1]: the largest slice a strip-mined algorithm moves between synchronisations
     * (slice I = max(min(s/p, I_max), cache line)). From the machine model (a fraction of L2) unless the
     * team builder set it — tests set it small to reach multi-slice paths with little data.
     */
    public long maxSliceBytes() {
        return maxSliceBytes;
    }

    /** The schedule being recorded, or null. */
    public Schedule schedule() {
        return schedule;
    }

    public void setSchedule(Schedule schedule) {
        this.schedule = schedule;
    }

    public ControlBlock ctrl() {
        return ctrl;
    }

    public WaitStrategy waitStrategy() {
        return waitStrategy;
    }

    /** The team's contention monitor (sampled by waits that overran), or null: its strategy does not adapt. */
    public io.coll4j.kernel.sync.Contention contention() {
        return contention;
    }

    /** Set once by the team before any rank runs (the monitor's listener needs the team, built after this context). */
    public void setContention(io.coll4j.kernel.sync.Contention contention) {
        this.contention = contention;
    }

    /** The collective timeout in nanoseconds; {@code Long.MAX_VALUE} for none. */
    public long timeoutNanos() {
        return timeoutNanos;
    }

    public TeamLayout layout() {
        return layout;
    }

    public Copy copy() {
        return copy;
    }

    /** True when every algorithm must reduce in ascending rank order (bitwise equal to the scalar left fold). */
    public boolean reproducible() {
        return reproducible;
    }

    public SharedArena arena() {
        return arena;
    }

    public CallHistory history() {
        return history;
    }

    public CallStats stats() {
        return stats;
    }

    public RankScratch scratch(int rank) {
        return scratch[rank];
    }

    /** The hierarchical binomial tree rooted at {@code root}, built once per root. */
    public TreeShape tree(int root) {
        TreeShape t = trees.get(root);
        if (t == null) {
            t = TreeShape.hierarchical(layout, root);
            if (!trees.compareAndSet(root, null, t)) {
                t = trees.get(root);
            }
        }
        return t;
    }

    static int slotIndex(int rank, long seq, int kind) {
        return rank * SLOT_STRIDE + (int) (seq & 1) * KINDS + kind;
    }

    /** The buffer reference {@code rank} published for collective {@code seq} (see class comment for ordering). */
    public MemorySegment slot(int rank, long seq, int kind) {
        return slots[slotIndex(rank, seq, kind)];
    }

    void setSlot(int rank, long seq, int kind, MemorySegment seg) {
        int i = slotIndex(rank, seq, kind);
        // a hot loop passes the same buffers every call: the slot of this parity already holds the reference
        // (written two calls ago, published then and with every later ANNOUNCE), so skip the store and its GC
        // write barrier (5% of an 8-byte allreduce's samples under JFR); the load hits my own padded line
        if (slots[i] != seg) {
            slots[i] = seg;
        }
    }

    /**
     * Per-team state of an algorithm that needs some (the {@code cyclicbarrier} baselines), created once on
     * first use by {@code factory}.
     */
    public <T> T attachment(Class<T> type, java.util.function.Supplier<T> factory) {
        return type.cast(attachments.computeIfAbsent(type, k -> factory.get()));
    }

    /** Runs {@code listener} when the team aborts (at once if it already has); e.g. to break a CyclicBarrier. */
    public void onAbort(Runnable listener) {
        abortListeners.add(listener);
        if (aborted) {
            listener.run();
        }
    }

    /** Records the thread currently acting as {@code rank} (null when none), so an abort can unpark it. */
    public void setThread(int rank, Thread t) {
        threads.set(rank, t);
    }

    public Thread thread(int rank) {
        return threads.get(rank);
    }

    public boolean isAborted() {
        return aborted;
    }

    /**
     * Records that {@code rank}'s team.run body returned normally: a rank waiting in a collective this rank never
     * entered fails at once (its wait's scan, {@code CollectiveCall}) instead of at the timeout. Called after the
     * body's last collective, so its ANNOUNCE stamps are final when this is seen.
     */
    public void bodyReturned(int rank) {
        if (returned.compareAndSet(rank, 0, 1)) {
            returnedCount.incrementAndGet();
        }
    }

    /** Forgets the returned bodies of the previous run (team.run, before its threads start). */
    public void clearReturned() {
        for (int r = 0; r < size; r++) {
            returned.set(r, 0);
        }
        returnedCount.set(0);
    }

    /** True when some rank's body has returned in this run (one volatile read: the wait loops' fast check). */
    public boolean anyReturned() {
        return returnedCount.get() != 0;
    }

    /** True when {@code rank}'s body has returned in this run. */
    public boolean hasReturned(int rank) {
        return returned.get(rank) != 0;
    }

    /** The abort record, or null while the team is healthy. */
    public Abort abortState() {
        return abort.get();
    }

    /**
     * Aborts the team: the first caller's cause wins. Every rank blocked in a collective is unparked and
     * throws; every later collective throws immediately. Returns true for the call that aborted the team.
     */
    public boolean abort(Throwable cause, int rank) {
        return abort(cause, rank, null);
    }

    /**
     * Aborts this sub-team because its parent aborted: {@code origin} names who failed there ("rank 2 of the
     * parent team"), as the sub-team's own ranks do not include it.
     */
    public boolean abortFromParent(Throwable cause, String origin) {
        return abort(cause, -1, origin);
    }

    private boolean abort(Throwable cause, int rank, String origin) {
        // taken before the CAS publishes the abort, so every rank that sees the abort sees the history too
        String calls = history.describe(CallHistory.IN_MESSAGES);
        if (!abort.compareAndSet(null, new Abort(cause, rank, origin, calls))) {
            return false;
        }
        aborted = true;
        io.coll4j.kernel.events.TeamEvent.emit("aborted", "team of " + size, size, rank, describe(cause));
        // the exceptions carry the same text; the log is for applications that catch and go on (DEBUG: a
        // user who wants it turns it on, a test suite that aborts teams on purpose stays quiet)
        LOG.log(System.Logger.Level.DEBUG, () -> "coll4j team of " + size + " aborted by "
                + (rank >= 0 ? "rank " + rank : "the team") + ": " + describe(cause) + "; last calls: " + calls);
        for (Runnable l : abortListeners) {
            l.run();
        }
        for (int r = 0; r < size; r++) {
            Thread t = threads.get(r);
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
        return true;
    }

    /**
     * The exception {@code rank} throws for the current abort: a mismatch or timeout is reported as such
     * on every rank (same message); anything else as {@link TeamAbortedException} with the cause attached.
     */
    public CollectiveException abortedException(int rank) {
        Abort a = abort.get();
        Throwable c = a.cause();
        if (c instanceof CollectiveMismatchException m) {
            return new CollectiveMismatchException(m.getMessage());
        }
        if (c instanceof CollectiveTimeoutException t) {
            return new CollectiveTimeoutException(t.getMessage(), t.missingRanks());
        }
        String who = a.rank() >= 0 ? "rank " + a.rank() + " failed" : a.origin() != null ? a.origin() + " failed"
                : "the team was stopped";
        if (c instanceof io.coll4j.CollectiveInterruptedException && a.rank() >= 0) {
            who = "rank " + a.rank() + " was interrupted";
        }
        return new TeamAbortedException("team aborted (" + who + ": " + describe(c) + "); rank " + rank
                + " cannot continue; last calls: " + a.calls(), c);
    }

    private static String describe(Throwable t) {
        return t.getMessage() == null ? t.getClass().getName() : t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
