package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.Signature;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.internal.Reducers;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One non-blocking (or persistent) collective of a team, shared by its ranks: a resumable state machine
 * in the sense of [PAMI §3]. It is created by the first rank that issues it, found by the others under
 * the same issue number (ranks issue non-blocking collectives in the same order, as in MPI), and then
 * driven by whoever has time: a rank that waits or polls, or the team's progress thread. No step belongs
 * to a particular rank, so a rank that posts and goes off to compute finds its result done when it
 * comes back if a peer was waiting meanwhile.
 *
 * <h2>Two schedules</h2>
 * <b>Sliced</b> (messages beyond {@link #STAGE_MAX_BYTES} per rank, and barrier): the work is cut into
 * items of whole cache lines, claimed through {@link RoundCounters}; each item reads its inputs in
 * place from the ranks' send buffers and writes its output into every receive buffer that needs it:
 * <pre>
 * allreduce  item j        fold slice j of send_0..send_{p−1} → slice j of every recv   (push, [YHCCL §4.1])
 * reduce     item j        fold slice j of every send → slice j of recv_root
 * bcast      item j        copy slice j of buf_root → every other buf
 * reduce-scatter (q, j)    fold slice j of block q of every send → recv_q
 * allgather  (q, j)        copy slice j of send_q → block q of every recv
 * gather     (q, j)        copy slice j of send_q → block q of recv_root
 * scatter    (q, j)        copy slice j of block q of send_root → recv_q
 * alltoall   (a ≤ b, j)    slice j of block b of send_a → block a of recv_b, and of block a of send_b →
 *                          block b of recv_a, both read before either is written (one item per pair)
 * scan, exscan  item j     slice j through a private accumulator, ranks in order: read send_q, then
 *                          write recv_q (scan: acc op send_q; exscan: acc before folding send_q)
 * v-variants               the items of their uniform forms over each rank's counts and displacements,
 *                          always sliced ({@link VectorBlocks})
 * </pre>
 * Every output element is written by exactly one item, after that item read all of its inputs that the
 * output may alias (a rank's own buffer in place), so in place is safe; stores are non-temporal iff W = 2·p·s exceeds the cache [YHCCL §4.2]. A round is
 * complete for every rank at once, when the last item is finished: no rank's buffers are read or
 * written after any rank's request completes.
 *
 * <p><b>Staged</b> (small messages): each rank copies its contribution into its own region of this
 * exchange's staging array and publishes the round number in a stamp on the same cache line (release),
 * like the inline payloads of the blocking collectives: one line transfer carries flag and data, and there
 * is no shared counter to contend on. Each rank's output ("part") is then computed from the staged copies
 * once every stamp has reached the round — one hand-over per round instead of the sliced schedule's two,
 * and a rank's send buffer is free again as soon as it posted. A part is done by its own rank (or, in a
 * team with a progress thread, claimed with a CAS by whichever thread gets it). Each region has two
 * payload halves, used by rounds of alternating parity; round r + 2 may overwrite half r mod 2 because a
 * rank posts r + 2 only after its request of r + 1 completed, which needed every rank to post r + 1, which
 * each did only after its part of round r — the last reader of that half — was done.
 *
 * <h2>Happens-before</h2>
 * <ol>
 *   <li>Sliced: a rank's writes before its post (send buffer, buffer references) → every worker of round
 *       r ({@link RoundCounters#post()} → {@link RoundCounters#allPosted}); an item's outputs → the
 *       request's completion ({@link RoundCounters#finish} → {@link RoundCounters#complete}).</li>
 *   <li>Staged: the staged copy → every reader of round r (release store of the rank's stamp → acquire
 *       load in {@code stagedPosted}); a part's output → its rank's completion (release store of
 *       {@code partDone[q]} → its acquire load in {@link #done}).</li>
 *   <li>Buffer references are written by their rank before its post in program order, so (1) and (2)
 *       publish them too.</li>
 * </ol>
 */
public final class Exchange {
    /** Largest per-rank contribution carried through the staging area (one or two cache lines per rank). */
    public static final long STAGE_MAX_BYTES = 256;
    /** Smallest sliced item: below this the claim traffic costs more than the parallel work saves. */
    static final long MIN_ITEM_BYTES = 4096;

    final long id;
    final Collective collective;
    final long count;
    final DType dtype;
    final Op op;
    final int root;
    final boolean persistent;
    final int creator;
    private final int p;
    private final int es;
    private final Reducer reducer;
    final MemorySegment[] send;
    final MemorySegment[] recv;
    private final AtomicInteger joined = new AtomicInteger();
    private final AtomicLongArray joinedBy;
    final RoundCounters counters;
    private final boolean staged;
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
    private final long sliceElements;
    private final long itemsPerBlock;
    private final boolean nonTemporal;
    private final Copy copy;
    /** The v-collectives' per-rank layouts and items (null for the others). */
    private final VectorBlocks vector;
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

    /** A future of rank {@code rank}'s request for round {@code round}; a failure goes through the request (sticky). */
    record Waiter(CollectiveRequest request, int rank, long round, CompletableFuture<Void> future) {
    }

    private static final java.lang.invoke.VarHandle STAMP = java.lang.invoke.MethodHandles.arrayElementVarHandle(long[].class);

    Exchange(long id, int creator, int p, Collective collective, long count, DType dtype, Op op, int root,
             boolean persistent, long maxSliceBytes, Copy copy, boolean claimParts, VectorCall call, Reducer user) {
        this.claimParts = claimParts;
        this.id = id;
        this.creator = creator;
        this.p = p;
        this.collective = collective;
        this.count = count;
        this.dtype = dtype;
        this.op = op;
        this.root = root;
        this.persistent = persistent;
        this.copy = copy;
        this.es = dtype == null ? 1 : dtype.size();
        // AVG folds as SUM and is divided per output range (Averaging); USER folds with the creator's UserOp
        this.reducer = !collective.reduces() ? null : op == Op.USER ? requireUser(user) : Reducers.of(dtype, op.foldOp());
        this.send = new MemorySegment[p];
        this.recv = new MemorySegment[p];
        this.joinedBy = new AtomicLongArray(p);
        this.postedBy = new AtomicLongArray(p);
        // a v-collective is always sliced: its creator may not know the other ranks' counts, so neither the
        // staging regions' sizes
        this.vector = collective.vector() ? new VectorBlocks(collective, p, root, dtype, call, maxSliceBytes, copy) : null;
        long contribution = switch (collective) {
            case BARRIER -> 0;
            case REDUCE_SCATTER, SCATTER, ALLTOALL -> count * es * p;
            default -> count * es;
        };
        this.staged = vector == null && collective != Collective.BARRIER && contribution <= STAGE_MAX_BYTES;
        long total = blocked(collective) || collective == Collective.ALLTOALL ? count * es * p : count * es;
        this.nonTemporal = copy.useNonTemporal(2L * p * total, false);
        if (staged) {
            this.stageBytes = contribution;
            // the stamp and a small payload share one cache line: one transfer carries flag and data
            this.stageHalf = (contribution + 7) / 8 * 8;
            this.rankStride = (8 + 2 * stageHalf + 127) / 128 * 128;
            this.stageArray = new long[(int) (p * rankStride / 8)];
            this.staging = MemorySegment.ofArray(stageArray);
            this.partClaim = new AtomicLongArray(p);
            this.partDone = new AtomicLongArray(p);
            this.sliceElements = 0;
            this.itemsPerBlock = 0;
            this.counters = new RoundCounters(p, 0);
        } else {
            this.stageBytes = 0;
            this.stageHalf = 0;
            this.rankStride = 0;
            this.stageArray = null;
            this.staging = null;
            this.partClaim = null;
            this.partDone = null;
            // per block (reduce-scatter, allgather) or per vector: count elements, cut into slices
            long sliceBytes = sliceBytes(total, p, maxSliceBytes);
            this.sliceElements = Math.max(1, sliceBytes / es);
            this.itemsPerBlock = collective == Collective.BARRIER ? 0 : (count + sliceElements - 1) / sliceElements;
            long items = vector != null ? vector.items() : blocked(collective) ? itemsPerBlock * p
                    : collective == Collective.ALLTOALL ? itemsPerBlock * pairs(p) : itemsPerBlock;
            this.counters = new RoundCounters(p, items);
        }
    }

    private static Reducer requireUser(Reducer user) {
        if (user == null) {
            throw new IllegalArgumentException("op user stands for a UserOp: call the overload that takes the UserOp");
        }
        return user;
    }

    /** AVG's division of rank {@code q}'s {@code n} result elements at byte {@code off} of {@code dst}, once folded. */
    private void average(int q, MemorySegment dst, long off, long n) {
        Averaging.divide(collective, op, dtype, q, p, dst, off, n);
    }

    /** Collectives whose sliced items are (block q, slice j): one block per rank, cut into slices. */
    private static boolean blocked(Collective c) {
        return c == Collective.REDUCE_SCATTER || c == Collective.ALLGATHER || c == Collective.GATHER || c == Collective.SCATTER;
    }

    /** Unordered pairs (q, s), q ≤ s, of p ranks: the alltoall's items per slice. */
    static long pairs(int p) {
        return (long) p * (p + 1) / 2;
    }

    /** The first rank of pair {@code k} in the order (0,0), (0,1) … (0,p−1), (1,1), (1,2) …. */
    static int pairFirst(int p, long k) {
        int q = 0;
        for (long row = p; k >= row; row--) {
            k -= row;
            q++;
        }
        return q;
    }

    /** The second rank of pair {@code k} (no allocation on the item path). */
    static int pairSecond(int p, long k) {
        int q = pairFirst(p, k);
        return (int) (k - ((long) q * p - (long) q * (q - 1) / 2) + q);
    }

    /**
     * Item size: about four items per rank so that a waiting rank can take over a late peer's share
     * (work stealing needs more items than workers), at least {@link #MIN_ITEM_BYTES}, at most the
     * team's I_max [YHCCL §5.1], in whole cache lines.
     */
    static long sliceBytes(long bytes, int p, long maxSliceBytes) {
        long s = Math.min(maxSliceBytes, Math.max(MIN_ITEM_BYTES, bytes / (4L * p)));
        return Math.max(64, s / 64 * 64);
    }

    public boolean staged() {
        return staged;
    }

    /** Work items per round of the sliced schedule (0 when staged). */
    public long items() {
        return counters.items();
    }

    // ------------------------------------------------------------------ matching

    boolean sameCall(Collective c, long n, DType t, Op o, int r, boolean pers) {
        return collective == c && count == n && dtype == t && op == o && root == r && persistent == pers;
    }

    String describe() {
        return (persistent ? "persistent " : "") + Signature.describe(Signature.descriptor(collective, dtype, op, root), count);
    }

    /** Records rank {@code rank}'s buffers (and a v-collective's counts); true for the last rank to join. */
    boolean register(int rank, MemorySegment s, MemorySegment r, VectorCall call) {
        send[rank] = s;
        recv[rank] = r;
        if (vector != null) {
            vector.register(rank, call);
        }
        joinedBy.set(rank, 1);
        return joined.incrementAndGet() == p;
    }

    /**
     * A v-collective's counts that do not agree across the ranks (null if they do, or for the others).
     * Only the last rank to join may ask: its {@code joined} increment read every other rank's, each made
     * after that rank's {@link #register}, so it sees every rank's counts.
     */
    String vectorMismatch() {
        return vector == null ? null : vector.mismatch();
    }

    /** Every rank has found this exchange: its slot in the issue window may be reused. */
    boolean allJoined() {
        return joined.get() == p;
    }

    List<Integer> notJoined() {
        List<Integer> m = new ArrayList<>();
        for (int q = 0; q < p; q++) {
            if (joinedBy.get(q) == 0) {
                m.add(q);
            }
        }
        return m;
    }

    // ------------------------------------------------------------------ rounds

    /** Rank {@code rank} publishes its inputs for round {@code round}; true when this post completed the round's posting. */
    boolean post(int rank, long round) {
        if (staged) {
            MemorySegment s = (collective == Collective.BCAST || collective == Collective.SCATTER) && rank != root ? null : send[rank];
            if (s != null) {
                MemorySegment.copy(s, 0, staging, stageOffset(round, rank), stageBytes);
            }
            // release: the staged copy → every reader whose acquire of my stamp sees this round (stagedPosted)
            STAMP.setRelease(stageArray, (int) (rank * rankStride / 8), round);
            return false;
        }
        postedBy.lazySet(rank, round);
        // release: my send buffer and buffer references → every reader of this round
        return counters.post();
    }

    boolean allPosted(long round) {
        return staged ? stagedPosted(round) : counters.allPosted(round);
    }

    /** Staged: every rank's stamp has reached {@code round} (acquire loads; each pairs with that rank's post). */
    private boolean stagedPosted(long round) {
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
            long posted = staged ? (long) STAMP.getAcquire(stageArray, (int) (q * rankStride / 8)) : postedBy.get(q);
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
        long i = counters.claim(round);
        if (i < 0) {
            return false;
        }
        try {
            item(w, i);
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

    private boolean part(ItemWorker w, int q, long round) {
        if (claimParts ? !partClaim.compareAndSet(q, round - 1, round) : partDone.getPlain(q) >= round) {
            return false;
        }
        long half = 8 + ((round - 1) & 1) * stageHalf;
        long stageStride = rankStride;
        long n = count;
        switch (collective) {
            case ALLREDUCE, REDUCE -> {
                if (collective == Collective.ALLREDUCE || q == root) {
                    for (int s = 0; s < p; s++) {
                        w.source(s, staging, half + s * stageStride);
                    }
                    foldStaged(w, recv[q], 0, n);
                    average(q, recv[q], 0, n);
                }
            }
            case BCAST -> {
                if (q != root) {
                    MemorySegment.copy(staging, half + root * stageStride, recv[q], 0, n * es);
                }
            }
            case ALLGATHER -> {
                for (int s = 0; s < p; s++) {
                    MemorySegment.copy(staging, half + s * stageStride, recv[q], s * n * es, n * es);
                }
            }
            case REDUCE_SCATTER -> {
                for (int s = 0; s < p; s++) {
                    w.source(s, staging, half + s * stageStride + q * n * es);
                }
                foldStaged(w, recv[q], 0, n);
                average(q, recv[q], 0, n);
            }
            case GATHER -> {
                if (q == root) {
                    for (int s = 0; s < p; s++) {
                        ItemWorker.copy(copy, staging, half + s * stageStride, recv[q], s * n * es, n * es, false);
                    }
                }
            }
            case SCATTER -> MemorySegment.copy(staging, half + root * stageStride + q * n * es, recv[q], 0, n * es);
            case ALLTOALL -> {
                for (int s = 0; s < p; s++) {
                    MemorySegment.copy(staging, half + s * stageStride + q * n * es, recv[q], s * n * es, n * es);
                }
            }
            case SCAN, EXSCAN -> {
                int k = collective == Collective.SCAN ? q + 1 : q;   // exscan: rank 0's recv is not written
                if (k > 0) {
                    for (int s = 0; s < k; s++) {
                        w.source(s, staging, half + s * stageStride);
                    }
                    w.fold(reducer, dtype, recv[q], 0, k, n);
                    average(q, recv[q], 0, n);
                }
            }
            case BARRIER -> { }
            default -> throw new IllegalStateException("no non-blocking schedule for " + collective);
        }
        // release: rank q's output is written; pairs with done()'s acquire
        partDone.setRelease(q, round);
        signal();
        return true;
    }

    /** Folds the staged sources into {@code dst}, which is never one of them (the sources are copies). */
    private void foldStaged(ItemWorker w, MemorySegment dst, long off, long n) {
        w.fold(reducer, dtype, dst, off, p, n);
    }

    private long stageOffset(long round, int rank) {
        return rank * rankStride + 8 + ((round - 1) & 1) * stageHalf;
    }

    /** Executes sliced item {@code i} (see the class comment for what each collective's item does). */
    private void item(ItemWorker w, long i) {
        if (vector != null) {
            vector.item(w, i, send, recv, reducer, dtype, op, copy);   // VectorBlocks divides its reduce-scatter-v blocks
            return;
        }
        long q = 0;
        long j = i;
        if (blocked(collective) || collective == Collective.ALLTOALL) {
            q = i / itemsPerBlock;
            j = i % itemsPerBlock;
        }
        long first = j * sliceElements;
        long n = Math.min(sliceElements, count - first);
        long bytes = n * es;
        switch (collective) {
            case ALLREDUCE, REDUCE -> {
                for (int s = 0; s < p; s++) {
                    w.source(s, send[s], first * es);
                }
                if (collective == Collective.REDUCE) {
                    w.dest(0, recv[root], first * es);
                    w.foldToAll(reducer, dtype, op, 1, p, n, nonTemporal, copy);
                    average(root, recv[root], first * es, n);
                } else {
                    for (int d = 0; d < p; d++) {
                        w.dest(d, recv[d], first * es);
                    }
                    w.foldToAll(reducer, dtype, op, p, p, n, nonTemporal, copy);
                    for (int d = 0; d < p; d++) {
                        average(d, recv[d], first * es, n);
                    }
                }
            }
            case REDUCE_SCATTER -> {
                long src = (q * count + first) * es;
                for (int s = 0; s < p; s++) {
                    w.source(s, send[s], src);
                }
                w.dest(0, recv[(int) q], first * es);
                w.foldToAll(reducer, dtype, op, 1, p, n, nonTemporal, copy);
                average((int) q, recv[(int) q], first * es, n);
            }
            case BCAST -> {
                for (int s = 0; s < p; s++) {
                    if (s != root) {
                        ItemWorker.copy(copy, send[root], first * es, recv[s], first * es, bytes, nonTemporal);
                    }
                }
            }
            case ALLGATHER -> {
                long dst = (q * count + first) * es;
                for (int s = 0; s < p; s++) {
                    ItemWorker.copy(copy, send[(int) q], first * es, recv[s], dst, bytes, nonTemporal);
                }
            }
            // in place at the root its own block is the same range: copy() skips it
            case GATHER -> ItemWorker.copy(copy, send[(int) q], first * es, recv[root], (q * count + first) * es, bytes, nonTemporal);
            case SCATTER -> ItemWorker.copy(copy, send[root], (q * count + first) * es, recv[(int) q], first * es, bytes, nonTemporal);
            case ALLTOALL -> {
                // pair (a, b): block b of send_a → block a of recv_b and block a of send_b → block b of recv_a, both
                // read before either is written, so a rank in place (recv == send) loses nothing
                int a = pairFirst(p, q);
                int b = pairSecond(p, q);
                long inA = (b * count + first) * es;
                long inB = (a * count + first) * es;
                w.exchange(copy, send[a], inA, recv[b], inB, send[b], inB, recv[a], inA, bytes, bytes, nonTemporal);
            }
            case SCAN, EXSCAN -> {
                w.prefix(reducer, send, recv, p, first * es, n, es, collective == Collective.EXSCAN);
                for (int r = 0; r < p; r++) {
                    average(r, recv[r], first * es, n);
                }
            }
            case BARRIER -> { }
            default -> throw new IllegalStateException("no non-blocking schedule for " + collective);
        }
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
        return new CollectiveTimeoutException("non-blocking " + describe() + " (issue #" + id + ", round " + round
                + ") timed out on rank " + rank + " after " + waitedNanos / 1_000_000 + " ms; ranks that have not posted it: "
                + missing, missing);
    }
}
