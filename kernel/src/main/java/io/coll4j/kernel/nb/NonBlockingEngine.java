package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A team's non-blocking collectives: the issue window where ranks find each other's {@link Exchange}s,
 * the registry of futures an abort must fail, and the optional progress thread.
 *
 * <h2>Matching by issue order</h2>
 * Every rank numbers the non-blocking and persistent-init calls it makes 1, 2, 3, … (the same sequence
 * on every rank, as MPI requires). Call n lives in slot {@code n mod WINDOW} of the {@link IssueWindow}: the first
 * rank to issue n claims the slot (a CAS of its stamp), makes or takes n's exchange and publishes it; the others find
 * it there and compare their call with it (a difference is a {@link CollectiveMismatchException} for the whole team).
 * Each rank records the last call it found on a line of its own, and the slot is free for n + WINDOW once every rank
 * has found n — not once n is complete: requests hold their exchange directly, so the window bounds how far ranks
 * may drift apart in issuing, not how many requests may be outstanding. A one-shot call's exchange comes from the
 * {@link ExchangePool}, which only the slot's claimer touches; the last rank to find an exchange that is not pooled
 * drops the slot's reference to it (nor may the slot keep its buffers alive). So an awaited-at-once one-shot call
 * writes no line that every rank writes: the slot (its claimer's CAS, then the exchange and its use published with
 * the stamp), the exchange's record of its call (its claimer, on lines no other rank reads on this path), and each
 * rank's own found line. Blocking collectives use the control block and are not ordered against these.
 *
 * <h2>Progress</h2>
 * By default no thread runs in the background: an exchange moves when a rank of the team polls
 * ({@code isDone}), waits ({@code await}) or calls {@code progress()}. With a progress thread
 * ({@code Team.Builder.progressThread(true)}), the rank whose post completes a round's posting queues the
 * exchange and unparks the thread, which then works through it like a waiting rank would.
 */
public final class NonBlockingEngine implements AutoCloseable {
    /** Issue numbers a rank may be ahead of the slowest rank to find its calls. */
    public static final int WINDOW = IssueWindow.SIZE;
    private static final long PROGRESS_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long STAGED_RECHECK_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /**
     * How long (the wait strategy's idles: spins first) a rank other than 0 that finds a call's slot free leaves the
     * claim to rank 0 before it claims the call itself. Why: ranks that issue together (a loop awaited at once) both
     * found the slot free and both claimed it — the loser's CAS took the slot's line from the winner between its claim
     * and its publication, which the loser then waits for; and the claimers alternated, so the exchange's record of
     * its call moved between the cores with them. With one rank claiming, the slot's line goes from the claimer to the
     * others once per call. The grace bounds what a rank that issues well before rank 0 pays: it claims after it.
     */
    static final int CLAIM_GRACE_IDLES = 64;

    private final TeamContext context;
    private final int size;
    private final IssueWindow<Exchange> window;
    private final Set<Exchange> withFutures = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Ready> ready = new ConcurrentLinkedQueue<>();
    private final Thread progressThread;
    private final ThreadLocal<ItemWorker> workers;
    private final RequestSchedules schedules;
    private final ExchangePool pool = new ExchangePool();
    /**
     * Per rank, on lines of its own from index (rank + 1)·{@link #LINE}: the use of the exchange the rank last joined,
     * as its issue slot said ({@link IssueWindow#use}). Written and read by that rank's thread alone, between its
     * {@link #join} and the request it makes of the exchange ({@link CollectiveRequest}): the request's round, which
     * the rank so learns from the slot's line rather than from the exchange's, which the claimer wrote.
     */
    private final long[] joinedUse;
    private static final int LINE = 16;
    /** Rank 0's last one-shot pooled call's exchange, for its shape ({@link #prepareNext}); rank 0's thread only. */
    private Exchange lastOfRankZero;
    private volatile boolean closed;

    private record Ready(Exchange exchange, long round) {
    }

    /** The engine of a team whose requests run the steps {@code selector} names for them. */
    public NonBlockingEngine(TeamContext context, Selector selector, boolean progressThread) {
        this.context = context;
        this.size = context.size();
        this.window = new IssueWindow<>(size);
        this.joinedUse = new long[(size + 2) * LINE];
        this.schedules = new RequestSchedules(selector, context);
        this.workers = ThreadLocal.withInitial(() -> new ItemWorker(size));
        context.onAbort(() -> failAll());
        if (progressThread) {
            this.progressThread = Thread.ofPlatform().daemon(true).name("coll4j-progress").unstarted(this::progressLoop);
            this.progressThread.start();
        } else {
            this.progressThread = null;
        }
    }

    public TeamContext context() {
        return context;
    }

    public int size() {
        return size;
    }

    /** The calling thread's item worker for this team. */
    ItemWorker worker() {
        return workers.get();
    }

    /**
     * The algorithm a request of this shape on this team runs: a catalogue algorithm's name (the selector's pick
     * among those with resumable steps, or the forced one), or the engine's own schedule ({@code engine-staged},
     * {@code engine-sliced}) where the collective has no algorithm with steps.
     */
    public String requestAlgorithm(Collective c, long count, DType dtype, Op op) {
        return schedules.name(c, count, dtype, op);
    }

    public boolean hasProgressThread() {
        return progressThread != null;
    }

    /**
     * Rank {@code rank}'s part of issuing call {@code id}: finds or creates its exchange, checks that it is
     * the same call, and registers the rank's buffers. Waits (progressing nothing, bounded by the team
     * timeout) only when the slot still holds call {@code id − WINDOW} that some rank has not found yet, or
     * while another rank that claimed the slot publishes the call.
     */
    public Exchange join(long id, int rank, Collective c, long count, DType dtype, Op op, int root, boolean persistent,
                         MemorySegment send, MemorySegment recv) {
        return join(id, rank, c, count, dtype, op, root, persistent, send, recv, null, null);
    }

    /**
     * {@link #join(long, int, Collective, long, DType, Op, int, boolean, MemorySegment, MemorySegment)} of a
     * v-collective ({@code count} 0), with this rank's counts and displacements; the last rank to join
     * checks every rank's against the others' (a {@link CollectiveMismatchException} for the team when they
     * differ, before any rank can post). {@code user} is the call's UserOp's reducer when {@code op} is USER (the
     * creator's folds: every rank must pass the same op, as in MPI), else null.
     */
    public Exchange join(long id, int rank, Collective c, long count, DType dtype, Op op, int root, boolean persistent,
                         MemorySegment send, MemorySegment recv, VectorCall call, Reducer user) {
        long start = 0;
        Exchange e;
        long use;
        Exchange fresh = null;
        boolean pooled = ExchangePool.pooled(c, persistent);
        boolean taken = false;
        for (int idle = 0; ; idle++) {
            long at = window.stamp(id);
            if (at == id) {
                e = window.value(id);          // published before the stamp (release → the acquire above)
                use = window.use(id);
                if (!window.ahead(id)) {
                    break;
                }
                // published ahead by rank 0 for the shape of its last calls (prepareNext)
                if (pooled && e.sameCall(c, count, dtype, op, root, false) && e.user == user) {
                    if (!window.take(rank, id)) {
                        throw abortWith(new CollectiveMismatchException("collective mismatch in non-blocking call #" + id
                                + ": rank " + rank + " called " + e.describe() + " but another rank called something else"), rank);
                    }
                    taken = true;
                    break;
                }
                // my call is not the shape it was published for: claim the slot over it (built first, as below)
                if (fresh == null && !(pooled && pool.has(c, count, dtype, op, root, user))) {
                    fresh = exchange(id, rank, c, count, dtype, op, root, persistent, call, user);
                }
                if (window.claim(id, id)) {
                    if (!window.ahead(id)) {
                        window.unclaim(id, id);  // published again by a claimer over it since I read it: not mine to replace
                        continue;
                    }
                    if (window.foundByOther(rank, id)) {
                        // a rank took it (its call #id is e's shape) before my claim: a mismatch
                        window.unclaim(id, id);
                        Exchange probe = exchange(id, rank, c, count, dtype, op, root, persistent, call, user);
                        throw abortWith(new CollectiveMismatchException("collective mismatch in non-blocking call #" + id
                                + ": rank " + rank + " called " + probe.describe() + " but another rank called " + e.describe()), rank);
                    }
                    Exchange ahead = e;
                    long aheadUse = use;
                    e = create(id, rank, c, count, dtype, op, root, call, user, id, fresh);
                    use = e.use();
                    // nobody took it, nor will (the slot is mine now): its exchange serves the next call of its shape
                    // (create did not take it: the pool gives a call only an exchange of its shape and reducer)
                    ahead.revoke(aheadUse);
                    break;
                }
                continue;                          // another rank is claiming it over
            }
            long last = id - IssueWindow.SIZE;
            if (at == Math.max(last, 0) && window.allFound(rank, last)) {
                if (rank == 0 || idle >= CLAIM_GRACE_IDLES) {
                    // a new exchange is built before the claim (the pool's answer here is a hint: only the claimer may
                    // take), so that the ranks that find the slot claimed wait only for a pool look-up, not a build
                    if (fresh == null && !(pooled && pool.has(c, count, dtype, op, root, user))) {
                        fresh = exchange(id, rank, c, count, dtype, op, root, persistent, call, user);
                    }
                    if (window.claim(id, at)) {
                        e = create(id, rank, c, count, dtype, op, root, call, user, at, fresh);
                        use = e.use();         // this thread's own write in create
                        break;
                    }
                    continue;                  // another rank claimed it first: it is publishing
                }
                // the slot is free, and rank 0 claims it if it comes within the grace (CLAIM_GRACE_IDLES)
            } else if (at != -id && at != last && at != -last) {
                throw new IllegalStateException("non-blocking call #" + id + " of rank " + rank + " found call #" + Math.abs(at)
                        + " in its slot: more than " + WINDOW + " calls between the ranks' issue points");
            }
            // the slot still holds call id − WINDOW that some rank has not found, a claimer is publishing, or rank 0
            // has the grace to claim it
            if (context.isAborted()) {
                throw context.abortedException(rank);
            }
            long now = System.nanoTime();
            if (start == 0) {
                start = now;
            } else if (now - start > context.timeoutNanos()) {
                List<Integer> missing = window.notFound(last);
                throw abortWith(new io.coll4j.CollectiveTimeoutException("non-blocking call #" + id + " on rank " + rank
                        + " waited " + (now - start) / 1_000_000 + " ms for ranks " + missing + " to issue call #" + last,
                        missing), rank);
            }
            context.waitStrategy().idle(idle);
        }
        if (!taken) {
            window.found(rank, id);
        }
        joinedUse[(rank + 1) * LINE] = use;
        if (!e.sameCall(c, count, dtype, op, root, persistent)) {
            Exchange probe = exchange(id, rank, c, count, dtype, op, root, persistent, call, user);
            throw abortWith(new CollectiveMismatchException("collective mismatch in non-blocking call #" + id + ": rank "
                    + rank + " called " + probe.describe() + " but rank " + e.creator() + " called " + e.describe()), rank);
        }
        if (e.register(rank, send, recv, call)) {
            // every rank has found it (not pooled): the slot's reference is no longer needed (nor may it keep the
            // exchange's buffers alive)
            window.forget(id, e);
            String mismatch = e.vectorMismatch();
            if (mismatch != null) {
                throw abortWith(new CollectiveMismatchException("collective mismatch in non-blocking call #" + id + " ("
                        + e.describe() + "): " + mismatch), rank);
            }
        }
        return e;
    }

    /** Whether {@link #prepareNext} would consider a call of {@code rank} on {@code x}: rank 0's pooled calls. */
    boolean preparesNext(int rank, Exchange x) {
        return rank == 0 && x.pooled;
    }

    /**
     * Rank 0, after posting one-shot call {@code id} on {@code x}: when {@code id} repeats the shape of its last
     * one-shot call, publishes call {@code id + 1} ahead ({@link IssueWindow#publishAhead}) on a pooled exchange of that
     * shape whose use is done (a new one if none is), so that the ranks of a loop find their next call's exchange in
     * its slot when they issue it and post at once, instead of waiting for a claimer to publish it (docs/design.md,
     * "Matching by issue order"). A rank whose call {@code id + 1} is another shape claims the slot over it. Nothing
     * is published when the slot is not free, or another rank claimed it (it issued {@code id + 1} first).
     */
    public void prepareNext(long id, int rank, Exchange x) {
        if (!preparesNext(rank, x) || closed || context.isAborted()) {
            return;
        }
        Exchange last = lastOfRankZero;
        lastOfRankZero = x;
        if (last == null || !(last == x || last.sameCall(x.collective, x.count, x.dtype, x.op, x.root, false) && last.user == x.user)) {
            return;
        }
        long next = id + 1;
        long before = next - IssueWindow.SIZE;
        long at = window.stamp(next);
        if (at != Math.max(before, 0) || !window.allFound(rank, before)) {
            return;                             // claimed already, or some rank has not found call next − SIZE yet
        }
        Exchange fresh = pool.has(x.collective, x.count, x.dtype, x.op, x.root, x.user) ? null
                : exchange(next, rank, x.collective, x.count, x.dtype, x.op, x.root, false, null, x.user);
        if (!window.claim(next, at)) {
            return;
        }
        Exchange n = fresh == null ? pool.take(x.collective, x.count, x.dtype, x.op, x.root, x.user) : null;
        long use = 1;
        if (n != null) {
            use = n.reuse(next, rank);
        } else if (fresh != null) {
            n = fresh;
            pool.add(n);
        } else {
            window.unclaim(next, at);           // the pool's hint went stale (not reached: only claimers take)
            return;
        }
        window.publishAhead(next, n, use);
    }

    /** A new exchange for call {@code id} of this shape, with the schedule the catalogue gives it. */
    private Exchange exchange(long id, int rank, Collective c, long count, DType dtype, Op op, int root, boolean persistent,
                              VectorCall call, Reducer user) {
        return new Exchange(id, rank, size, c, count, dtype, op, root, persistent, progressThread != null,
                schedules.schedule(c, count, dtype, op, root, call, user), user);
    }

    /**
     * Call {@code id}'s exchange, published with its use by the rank that claimed its slot (which held {@code seen}):
     * a pooled one whose last use is done, serving the call as its next use, else {@code fresh} (built before the
     * claim) or a new one.
     */
    private Exchange create(long id, int rank, Collective c, long count, DType dtype, Op op, int root, VectorCall call,
                            Reducer user, long seen, Exchange fresh) {
        boolean pooled = fresh == null || fresh.pooled;  // no fresh one: the pool had one (so the call is pooled)
        Exchange n = pooled ? pool.take(c, count, dtype, op, root, user) : null;
        long use = 1;
        if (n != null) {
            use = n.reuse(id, rank);
        } else {
            n = fresh;
            if (n == null) {
                // the pool had one when looked at before the claim, its use done then: not taken
                // since (only claimers take), so this is not reached; built here all the same rather than assumed
                try {
                    n = exchange(id, rank, c, count, dtype, op, root, false, call, user);
                } catch (RuntimeException | Error t) {
                    window.unclaim(id, seen);  // the others may claim it and fail the same way
                    throw t;
                }
            }
            if (pooled) {
                pool.add(n);
            }
        }
        window.publish(id, n, use);
        return n;
    }

    private RuntimeException abortWith(RuntimeException e, int rank) {
        if (context.abort(e, rank)) {
            return e;
        }
        return context.abortedException(rank);
    }

    /** The use of the exchange {@code rank} last joined (see {@link #joinedUse}); on that rank's thread. */
    long joinedUse(int rank) {
        return joinedUse[(rank + 1) * LINE];
    }

    /** Posts round {@code round} of {@code x} for {@code rank}; wakes the progress thread when the round is fully posted. */
    public void post(Exchange x, int rank, long round) {
        boolean complete = x.post(rank, round);
        if (complete) {
            x.posted(round);
        }
        // a stamped post cannot tell whether it was the last (no shared counter): the thread checks
        if (progressThread != null && (complete || x.stampedPosts())) {
            ready.add(new Ready(x, round));
            LockSupport.unpark(progressThread);
        }
    }

    /** Registers a future on {@code x} so that an abort or close completes it exceptionally. */
    void watch(Exchange x, Exchange.Waiter w) {
        withFutures.add(x);
        x.addWaiter(w);
        if (!x.hasWaiters()) {
            withFutures.remove(x);
        }
        if (context.isAborted() || closed) {
            failAll();
        }
    }

    /** Signals the exchange's waiters and forgets it when none is left. */
    void settle(Exchange x) {
        x.signal();
        if (!x.hasWaiters()) {
            withFutures.remove(x);
        }
    }

    private void failAll() {
        for (Exchange x : withFutures) {
            x.fail(r -> context.isAborted() ? abortFailure(x, r) : closedFailure(x, r));
            withFutures.remove(x);
        }
    }

    /**
     * The failure rank {@code rank}'s request of {@code x} reports for the team's abort: the team's own failure
     * when it was charged to this rank as an {@link IllegalArgumentException} (a buffer of this rank closed under
     * a request, {@link #itemFailed}), the team closed when {@code close()} stopped it, and otherwise the
     * blocking collectives' exception ({@link TeamContext#abortedException}: a mismatch or timeout as such, else
     * a {@link io.coll4j.TeamAbortedException} naming the rank that failed and this one).
     */
    RuntimeException abortFailure(Exchange x, int rank) {
        TeamContext.Abort a = context.abortState();
        if (a != null && rank >= 0 && a.rank() == rank && a.cause() instanceof IllegalArgumentException own) {
            return own;
        }
        if (a != null && a.rank() < 0 && a.cause() instanceof IllegalStateException) {
            return closedFailure(x, rank);        // Team.close aborts with IllegalStateException("the team was closed"), rank -1
        }
        return context.abortedException(rank);
    }

    /** The failure of a request of {@code x} found unfinished when the team was closed. */
    IllegalStateException closedFailure(Exchange x, int rank) {
        return new IllegalStateException("the team is closed: " + (x == null ? "the request" : x.describe() + " (issue #" + x.id() + ")")
                + (rank >= 0 ? " of rank " + rank : "") + " did not complete before the team was closed");
    }

    /**
     * A work item, staged part or post of {@code x} threw {@code t} on the thread acting for {@code rank} (-1: the
     * progress thread). The request fails and the team aborts, as for a blocking collective (docs/design.md,
     * "Error contract"): a buffer whose arena was closed is an {@link IllegalArgumentException} naming it, charged
     * to the rank that passed it (that rank's requests report it, the others a TeamAbortedException naming the
     * rank); on a closed team an {@link IllegalStateException} saying so; anything else is this rank's failure.
     * Without the abort the item, claimed and never finished, would leave its round incomplete for ever and the
     * ranks waiting on it would spin without a timeout (the team timeout only runs while a rank has not posted).
     * Returns what {@code rank} throws.
     */
    RuntimeException itemFailed(Exchange x, Throwable t, int rank) {
        if (closed) {
            return closedFailure(x, rank);
        }
        int owner = x.deadBufferOwner();
        if (owner >= 0) {
            IllegalArgumentException bad = new IllegalArgumentException(x.deadBuffer(owner) + " is not alive: its arena was "
                    + "closed during " + x.describe() + " (issue #" + x.id() + ")", t);
            context.abort(bad, owner);
            return abortFailure(x, rank);
        }
        if (context.isAborted()) {
            return abortFailure(x, rank);           // the item failed because the team stopped under it
        }
        if (t instanceof Error e) {
            context.abort(e, rank);
            throw e;
        }
        RuntimeException e = (RuntimeException) t;
        return context.abort(e, rank) ? e : abortFailure(x, rank);
    }

    private void progressLoop() {
        ItemWorker w = new ItemWorker(size);
        while (!closed) {
            Ready r = ready.poll();
            if (r == null) {
                LockSupport.parkNanos(PROGRESS_PARK_NANOS);
                continue;
            }
            if (r.exchange().stampedPosts() && !r.exchange().allPosted(r.round())) {
                ready.add(r);                    // not every rank has posted yet: look again shortly
                LockSupport.parkNanos(STAGED_RECHECK_NANOS);
                continue;
            }
            try {
                while (!closed && !context.isAborted() && r.exchange().progress(w, -1, r.round())) {
                    // keep taking items of this round until none is left
                }
                settle(r.exchange());
            } catch (RuntimeException | Error t) {
                if (!closed) {
                    try {
                        itemFailed(r.exchange(), t, -1);    // aborts the team, blaming the rank whose buffer died
                    } catch (Error e) {
                        // aborted with it: the ranks report it
                    }
                }
            }
        }
    }

    /**
     * Stops the progress thread (waiting for it to leave the item it is in, so nothing touches the team's
     * memory afterwards) and fails every future still registered. Requests nobody awaited hold nothing
     * of the team's but their exchange, which the garbage collector frees with them.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (progressThread != null) {
            LockSupport.unpark(progressThread);
            try {
                progressThread.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        failAll();
        pool.clear();
        window.clear();
        lastOfRankZero = null;
    }

    public boolean isClosed() {
        return closed;
    }
}
