package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Signature;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One non-blocking (or persistent) collective of a team, shared by its ranks: a resumable state machine
 * in the sense of [PAMI §3]. It is created by the first rank that issues it, found by the others under
 * the same issue number (ranks issue non-blocking collectives in the same order, as in MPI), and then
 * driven by whoever has time: a rank that waits or polls, or the team's progress thread. No step belongs
 * to a particular rank, so a rank that posts and goes off to compute finds its result done when it
 * comes back if a peer was waiting meanwhile.
 *
 * <h2>What the exchange keeps, what the schedule says</h2>
 * The work of a round is the call's {@link Steps} ({@link RequestSchedule}: a catalogue algorithm's steps as the
 * selector picks them, or the engine's own schedules where no catalogue algorithm has steps yet). The exchange
 * keeps matching, rounds, claiming, waiters and failure; the steps say what an item or a part does.
 * <b>Items</b> ({@link Steps.Items}; a barrier has none) are claimed through {@link RoundCounters} and read the
 * ranks' buffers in place; every output element is written by exactly one item, after that item read all of its
 * inputs that the output may alias (a rank's own buffer in place), so in place is safe. A round is complete for
 * every rank at once, when the last item is finished: no rank's buffers are read or written after any rank's
 * request completes. <b>Per-rank items</b> ({@link Steps.Items#perRank}: item q is rank q's share, as the owners'
 * blocks of the blocking push) do without the shared counters: each rank posts with its own stamp (as the parts
 * below, without a copy), claims its own item with a CAS on its own line before any peer's, and marks it done on
 * its own line; a rank's request completes once every item is done, so here too no rank's buffers are touched
 * after any rank's request completes. A rank that waits takes a late peer's item, whole.
 *
 * <p><b>Parts</b> ({@link Steps.Parts}, small messages): each rank copies its contribution into its own region of
 * this exchange's staging array and publishes the round number in a stamp on the same cache line (release),
 * like the inline payloads of the blocking collectives: one line transfer carries flag and data, and there
 * is no shared counter to contend on. Each rank's output ("part") is then computed from the staged copies
 * once every stamp has reached the round — one hand-over per round instead of the items' two,
 * and a rank's send buffer is free again as soon as it posted. A part is done by its own rank (or, in a
 * team with a progress thread, claimed with a CAS by whichever thread gets it). Each region has two
 * payload halves, used by rounds of alternating parity; round r + 2 may overwrite half r mod 2 because a
 * rank posts r + 2 only after its request of r + 1 completed, which needed every rank to post r + 1, which
 * each did only after its part of round r — the last reader of that half — was done.
 *
 * <h2>Happens-before</h2>
 * <ol>
 *   <li>Items: a rank's writes before its post (send buffer, buffer references) → every worker of round
 *       r ({@link RoundCounters#post()} → {@link RoundCounters#allPosted}); an item's outputs → the
 *       request's completion ({@link RoundCounters#finish} → {@link RoundCounters#complete}).</li>
 *   <li>Parts: the staged copy → every reader of round r (release store of the rank's stamp → acquire
 *       load in {@code stagedPosted}); a part's output → its rank's completion (release store of
 *       {@code partDone[q]} → its acquire load in {@link #done}).</li>
 *   <li>Per-rank items: a rank's writes before its post → every worker (release store of its stamp → acquire load
 *       in {@code stampsPosted}); an item's outputs → every rank's completion (release store of
 *       {@code partDone[q]} → the acquire loads of every item's in {@link #done}).</li>
 *   <li>Buffer references are written by their rank before its post in program order, so (1) and (2)
 *       publish them too.</li>
 * </ol>
 */
public final class Exchange {
    /**
     * The call this exchange serves now, on lines of its own ({@link #LINE} longs from index {@link #LINE}): its issue
     * number ({@code ID}), first issuer ({@code CREATOR}) and use ({@code USE}: 1, 2, …; a pooled one-shot exchange,
     * {@link ExchangePool}, serves call after call, use u as round u). Written by the claimer of the call's issue slot
     * before its publication ({@link IssueWindow#publish}), read by later claimers (ordered by issue) and by messages.
     * Not beside the fields every worker reads at every call (steps, buffers, flags): the claimer's writes at each call
     * would take that line from the other ranks' caches. The ranks learn the use from the issue slot instead
     * ({@link IssueWindow#use}), on the line that tells them the call was published.
     */
    private static final int LINE = 16;
    private final long[] current = new long[3 * LINE];
    private static final int ID = LINE, CREATOR = LINE + 1, USE = LINE + 2;
    final Collective collective;
    final long count;
    final DType dtype;
    final Op op;
    final int root;
    final boolean persistent;
    /** The USER op's reducer the steps fold with (null for the other ops): a pooled exchange serves the same. */
    final Reducer user;
    private final int p;
    final MemorySegment[] send;
    final MemorySegment[] recv;
    /** Whether one-shot calls reuse this exchange ({@link ExchangePool}). */
    final boolean pooled;
    /** Not pooled: how many ranks have joined (the last one checks a v-collective's counts and clears the slot). */
    private final AtomicLong joined = new AtomicLong();
    final RoundCounters counters;
    /** The schedule's algorithm name ({@code collbench list}'s, or the engine's own schedule's). */
    private final String algorithm;
    /** Exactly one of items and parts is set: the call's steps. */
    private final Steps.Items items;
    private final Steps.Parts parts;
    private final boolean staged;
    /** Per-rank items ({@link Steps.Items#perRank}): posts by stamp, item q claimed and done on rank q's own line. */
    private final boolean owned;
    /** Index stride of partClaim/partDone: a line (16 longs) per rank for per-rank items, which each rank writes. */
    private final int partStride;
    private final long stageBytes;
    private final long stageHalf;
    private final long rankStride;
    /** Staged: per rank one region of whole 128-byte lines: [stamp | payload half 0 | payload half 1]. */
    private final long[] stageArray;
    private final MemorySegment staging;
    /** Whether parts may be taken by other threads (a progress thread): then they are claimed with a CAS. */
    private final boolean claimParts;
    private final AtomicLongArray partClaim;
    private final AtomicLongArray partDone;
    private final AtomicLongArray postedBy;
    /** The v-collectives' per-rank layouts and items (null for the others). */
    private final VectorBlocks vector;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

    /** A future of rank {@code rank}'s request for round {@code round}; a failure goes through the request (sticky). */
    record Waiter(CollectiveRequest request, int rank, long round, CompletableFuture<Void> future) {
    }

    private static final java.lang.invoke.VarHandle STAMP = java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    Exchange(long id, int creator, int p, Collective collective, long count, DType dtype, Op op, int root,
             boolean persistent, boolean claimParts, RequestSchedule schedule, Reducer user) {
        this.claimParts = claimParts;
        this.user = user;
        current[ID] = id;
        current[CREATOR] = creator;
        current[USE] = 1;
        this.p = p;
        this.collective = collective;
        this.count = count;
        this.dtype = dtype;
        this.op = op;
        this.root = root;
        this.persistent = persistent;
        this.algorithm = schedule.algorithm();
        this.vector = schedule.vector();
        this.send = new MemorySegment[p];
        this.recv = new MemorySegment[p];
        this.pooled = ExchangePool.pooled(collective, persistent);
        this.postedBy = new AtomicLongArray(p);
        if (schedule.steps() instanceof Steps.Parts pt) {
            this.parts = pt;
            this.items = null;
            this.staged = true;
            this.stageBytes = pt.stagedBytes();
            // the stamp and a small payload share one cache line: one transfer carries flag and data
            this.stageHalf = (stageBytes + 7) / 8 * 8;
            this.rankStride = (8 + 2 * stageHalf + 127) / 128 * 128;
            this.stageArray = new long[(int) (p * rankStride / 8)];
            this.staging = MemorySegment.ofArray(stageArray);
            this.owned = false;
            this.partStride = 1;
            this.partClaim = new AtomicLongArray(p);
            this.partDone = new AtomicLongArray(p);
            this.counters = new RoundCounters(p, 0);
        } else {
            this.items = (Steps.Items) schedule.steps();
            this.parts = null;
            this.staged = false;
            this.owned = items.perRank();
            if (owned && items.items() != p) {
                throw new IllegalStateException(algorithm + ": per-rank steps with " + items.items() + " items for " + p + " ranks");
            }
            this.stageBytes = 0;
            this.stageHalf = 0;
            this.staging = null;
            if (owned) {
                // a stamp line per rank, no payload
                this.rankStride = 128;
                this.stageArray = new long[p * LINE];
                this.partStride = LINE;
                this.partClaim = new AtomicLongArray(p * LINE);
                this.partDone = new AtomicLongArray(p * LINE);
            } else {
                this.rankStride = 0;
                this.stageArray = null;
                this.partStride = 1;
                this.partClaim = null;
                this.partDone = null;
            }
            this.counters = new RoundCounters(p, items.items());
        }
    }

    public boolean staged() {
        return staged;
    }

    /** Whether ranks post by stamp (parts, per-rank items): no post can tell it completed the round's posting. */
    boolean stampedPosts() {
        return staged || owned;
    }

    /** Work items per round of an items schedule (0 for parts). */
    public long items() {
        return counters.items();
    }

    /** The algorithm whose steps this exchange runs. */
    public String algorithm() {
        return algorithm;
    }

    // ------------------------------------------------------------------ matching

    boolean sameCall(Collective c, long n, DType t, Op o, int r, boolean pers) {
        return collective == c && count == n && dtype == t && op == o && root == r && persistent == pers;
    }

    String describe() {
        return (persistent ? "persistent " : "") + Signature.describe(Signature.descriptor(collective, dtype, op, root), count);
    }

    /**
     * Records rank {@code rank}'s buffers (and a v-collective's counts); true for the last rank to join an exchange
     * that is not pooled (a pooled one does not count its joins: nothing needs its last joiner).
     */
    boolean register(int rank, MemorySegment s, MemorySegment r, VectorCall call) {
        // a loop that calls with the same buffers finds them registered by its last call (a pooled exchange keeps
        // them): no store, so the arrays' lines stay shared in every rank's cache instead of moving at each call
        if (send[rank] != s) {
            send[rank] = s;
        }
        if (recv[rank] != r) {
            recv[rank] = r;
        }
        if (vector != null) {
            vector.register(rank, call);
        }
        return !pooled && joined.incrementAndGet() == p;
    }

    /** The issue number of the call this exchange serves now (messages; see {@link #current}). */
    long id() {
        return current[ID];
    }

    /** The rank that issued the call this exchange serves first (messages). */
    int creator() {
        return (int) current[CREATOR];
    }

    /** The use (round) this exchange serves now; read by the claimer of a later call (ordered by issue). */
    long use() {
        return current[USE];
    }

    /**
     * Serves call {@code id}, issued first by {@code creator}, as the next use: called by the claimer of the call's
     * issue slot on an exchange it took from the pool, before it publishes it. Its rounds go on where the last use's
     * ended, so a helper still holding the last round (the progress thread) finds nothing to claim. Returns the use.
     */
    long reuse(long id, int creator) {
        current[ID] = id;
        current[CREATOR] = creator;
        return ++current[USE];
    }

    /**
     * Takes back use {@code use}, which {@link #reuse} gave a call published ahead ({@link IssueWindow#publishAhead})
     * that no rank took: the exchange serves its last use again, done, so the next call of its shape may take it.
     * Called by the rank that claimed the slot over it (ordered with the pool's other claimers, as {@code reuse}).
     */
    void revoke(long use) {
        if (current[USE] == use) {
            current[USE] = use - 1;
        }
    }

    /**
     * Every item (or part) of the current use is done, so the exchange may serve another call: nothing reads or writes
     * the use's buffers any more, and every rank's request of it is complete — its rank may not have seen it yet, but
     * what it reads then (its done flags, the claims of a round that has none left) only grows, and no rank posts the
     * next use before it issues the next call on this exchange. The same rule as a persistent request's (a rank posts
     * round r + 1 only after its round r completed), taken from the lines the claimer read to see its own request
     * complete: in a loop awaited at once the exchange of the last call serves the next, with no line but the issue
     * slot between the ranks. Acquire loads: each pairs with the release that marked its item or part done (or the
     * finished counter's RMW), so the work happens-before the next use's writes.
     */
    boolean servedOut() {
        long u = current[USE];
        if (staged || owned) {
            for (int q = 0; q < p; q++) {
                if (partDone.getAcquire(q * partStride) < u) {
                    return false;
                }
            }
            return true;
        }
        return counters.complete(u);
    }

    /**
     * A v-collective's counts that do not agree across the ranks (null if they do, or for the others).
     * Only the last rank to join may ask: its {@code joined} increment read every other rank's, each made
     * after that rank's {@link #register}, so it sees every rank's counts.
     */
    String vectorMismatch() {
        return vector == null ? null : vector.mismatch();
    }

    // ------------------------------------------------------------------ rounds

    /** Rank {@code rank} publishes its inputs for round {@code round}; true when this post completed the round's posting. */
    boolean post(int rank, long round) {
        if (stampedPosts()) {
            if (staged && parts.stages(rank)) {
                MemorySegment.copy(send[rank], 0, staging, stageOffset(round, rank), stageBytes);
            }
            // release: the staged copy (per-rank items: my send buffer and buffer references) → every reader whose
            // acquire of my stamp sees this round (stampsPosted)
            STAMP.setRelease(stageArray, (int) (rank * rankStride / 8), round);
            return false;
        }
        postedBy.lazySet(rank, round);
        // release: my send buffer and buffer references → every reader of this round
        return counters.post();
    }

    boolean allPosted(long round) {
        return stampedPosts() ? stampsPosted(round) : counters.allPosted(round);
    }

    /** Stamped posts: every rank's stamp has reached {@code round} (acquire loads; each pairs with that rank's post). */
    private boolean stampsPosted(long round) {
        for (int q = 0; q < p; q++) {
            if ((long) STAMP.getAcquire(stageArray, (int) (q * rankStride / 8)) < round) {
                return false;
            }
        }
        return true;
    }

    List<Integer> notPosted(long round) {
        List<Integer> m = new ArrayList<>();
        for (int q = 0; q < p; q++) {
            long posted = stampedPosts() ? (long) STAMP.getAcquire(stageArray, (int) (q * rankStride / 8)) : postedBy.get(q);
            if (posted < round) {
                m.add(q);
            }
        }
        return m;
    }

    /** True when rank {@code rank}'s result of round {@code round} is complete (acquire). */
    boolean done(int rank, long round) {
        if (staged) {
            // acquire: pairs with the release of partDone in part()
            return partDone.getAcquire(rank) >= round;
        }
        if (owned) {
            for (int q = 0; q < p; q++) {
                // acquire: pairs with the release of partDone in ownedItem()
                if (partDone.getAcquire(q * partStride) < round) {
                    return false;
                }
            }
            return true;
        }
        return counters.complete(round);
    }

    /**
     * Does one piece of round {@code round}'s work if there is one: the part of rank {@code rank} (staged;
     * {@code rank < 0}: any rank's), or the next unclaimed item (sliced). Returns true when it did work.
     */
    boolean progress(ItemWorker w, int rank, long round) {
        if (!allPosted(round)) {
            return false;
        }
        if (staged) {
            if (rank >= 0) {
                return part(w, rank, round);
            }
            boolean any = false;
            for (int q = 0; q < p; q++) {
                any |= part(w, q, round);
            }
            return any;
        }
        if (owned) {
            if (rank >= 0 && ownedItem(w, rank, round)) {
                return true;
            }
            for (int q = 0; q < p; q++) {
                if (q != rank && ownedItem(w, q, round)) {
                    return true;
                }
            }
            return false;
        }
        long i = counters.claim(round);
        if (i < 0) {
            return false;
        }
        try {
            items.item(w, i, send, recv);
        } finally {
            w.forget();
        }
        if (counters.finish(round)) {
            signal();
        }
        return true;
    }

    /** Called by the poster that completed a round's posting: a barrier has no items, so it is complete now. */
    void posted(long round) {
        if (!staged && counters.items() == 0) {
            signal();
        }
    }

    /**
     * Per-rank item {@code q} of round {@code round}, if nobody has claimed it: claimed with a CAS from the previous
     * round's value (a stale helper of an earlier round fails it), read first so that a peer's line is not taken
     * for a CAS bound to fail.
     */
    private boolean ownedItem(ItemWorker w, int q, long round) {
        int at = q * partStride;
        if (partClaim.get(at) != round - 1 || !partClaim.compareAndSet(at, round - 1, round)) {
            return false;
        }
        try {
            items.item(w, q, send, recv);
        } finally {
            w.forget();
        }
        // release: item q's outputs are written; pairs with done()'s acquire
        partDone.setRelease(at, round);
        signal();
        return true;
    }

    private boolean part(ItemWorker w, int q, long round) {
        if (claimParts ? !partClaim.compareAndSet(q, round - 1, round) : partDone.getPlain(q) >= round) {
            return false;
        }
        try {
            parts.part(w, q, new Steps.Staged(staging, 8 + ((round - 1) & 1) * stageHalf, rankStride), recv);
        } finally {
            w.forget();
        }
        // release: rank q's output is written; pairs with done()'s acquire
        partDone.setRelease(q, round);
        signal();
        return true;
    }

    private long stageOffset(long round, int rank) {
        return rank * rankStride + 8 + ((round - 1) & 1) * stageHalf;
    }

    // ------------------------------------------------------------------ futures

    /** Adds a future completed when rank {@code rank}'s round {@code round} is done (or the team fails). */
    void addWaiter(Waiter w) {
        waiters.add(w);
        signal();
    }

    boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    /**
     * Completes every waiter whose round is done. Idempotent; called after every completion event.
     *
     * <p>A completion and a new waiter race as in Dekker's protocol: the completer stores "done" (a release
     * store of {@code partDone}, or the finished counter) and then reads {@code waiters}; the waiter's
     * {@link #addWaiter} stores itself into {@code waiters} (a CAS) and then reads "done" here. Release and
     * acquire do not order a store before a later load (x86 lets the load pass the store in the store buffer),
     * so without the fence both could read the old value — the completer no waiter, the waiter not done — and
     * a future would never complete. The full fence orders this thread's store before its read of
     * {@code waiters}; it pairs with the CAS in {@code waiters.add} (itself a full fence), so at least one
     * side sees the other.
     */
    void signal() {
        VarHandle.fullFence();
        if (waiters.isEmpty()) {
            return;
        }
        for (Waiter w : waiters) {
            if (done(w.rank(), w.round())) {
                w.future().complete(null);
                waiters.remove(w);
            }
        }
    }

    /**
     * Completes every waiter (team aborted or closed): exceptionally with its request's failure — {@code cause}'s
     * for its rank unless the request had failed already — or normally when its round was complete after all.
     */
    void fail(java.util.function.IntFunction<RuntimeException> cause) {
        for (Waiter w : waiters) {
            if (done(w.rank(), w.round())) {
                w.future().complete(null);
            } else {
                w.future().completeExceptionally(w.request().record(cause.apply(w.rank())));
            }
            waiters.remove(w);
        }
    }

    /**
     * The first rank, over every rank, whose registered send or receive buffer's arena is closed, or -1. Read by a
     * thread whose request of this exchange failed: the references were published to it with the round's posts.
     */
    int deadBufferOwner() {
        for (int q = 0; q < p; q++) {
            if (dead(send[q]) || dead(recv[q])) {
                return q;
            }
        }
        return -1;
    }

    /** Which buffer of rank {@code q} is dead, as the blocking collectives name it: "send of rank 1". */
    String deadBuffer(int q) {
        String name = collective == Collective.BCAST ? "buf" : dead(send[q]) ? "send" : "recv";
        return name + " of rank " + q;
    }

    private static boolean dead(MemorySegment b) {
        return b != null && !b.scope().isAlive();
    }

    CollectiveTimeoutException timeout(int rank, long round, long waitedNanos) {
        List<Integer> missing = notPosted(round);
        return new CollectiveTimeoutException("non-blocking " + describe() + " (issue #" + id() + ", round " + round
                + ") timed out on rank " + rank + " after " + waitedNanos / 1_000_000 + " ms; ranks that have not posted it: "
                + missing, missing);
    }
}
