package io.coll4j.kernel.nb;

import io.coll4j.kernel.events.RequestEvent;
import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.PersistentRequest;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.TeamContext;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One rank's handle on an {@link Exchange}: a one-shot request (a single round, started when issued) or
 * a persistent one (a round per {@link #start()}). Waiting is the progress loop: take a ready piece of
 * the work, else check abort, close and timeout, else (not interrupted) idle with the team's wait strategy.
 *
 * <p><b>Failure is sticky.</b> The first failure of a round — abort, mismatch, timeout, interrupt, a work
 * item that threw (which aborts the team: {@link NonBlockingEngine#itemFailed}), the team closed — is recorded
 * in {@code failure} and is from then on the answer to every question: {@code await}, {@code await(Duration)},
 * {@code isDone} and a persistent {@code start()} throw that same instance, and the future completes
 * exceptionally with it. A failed request never looks complete. The failure may be recorded by another thread
 * (an abort or close failing this request's future, a thread timing out on the future), so it is a
 * compare-and-set (the first one wins) read with acquire.
 */
public final class CollectiveRequest implements PersistentRequest {
    private final NonBlockingEngine engine;
    private final TeamContext context;
    private final Exchange x;
    private final int rank;
    private final boolean persistent;
    /** The exchange's round this request's first (a one-shot request's only) round is. */
    private final long firstRound;
    private long round;
    private boolean active;
    private boolean closed;
    /** When this round was first found not fully posted (0: not yet): the team timeout runs from here. */
    private long waitingSince;
    private CompletableFuture<Void> future;
    private long futureRound = -1;
    /**
     * The request's first failure, for good: {@link FirstFailure}'s protocol (a CAS to record it, which releases the
     * exception; acquire loads to read it) on a field of the request itself, so a one-shot call allocates one object.
     */
    @SuppressWarnings("unused")
    private RuntimeException failure;
    private static final java.lang.invoke.VarHandle FAILURE;

    static {
        try {
            FAILURE = java.lang.invoke.MethodHandles.lookup().findVarHandle(CollectiveRequest.class, "failure", RuntimeException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /**
     * The issue number of this one-shot call when the engine may publish the next call ahead
     * ({@link NonBlockingEngine#prepareNext}) once this rank has nothing else to do for it, else 0. Owner's thread only.
     */
    private long prepareAfter;
    /** The JFR event of the round in flight, or null (no recording enables it). Owner's thread only. */
    private RequestEvent event;

    private CollectiveRequest(NonBlockingEngine engine, Exchange x, int rank, boolean persistent) {
        this.engine = engine;
        this.context = engine.context();
        this.x = x;
        this.rank = rank;
        this.persistent = persistent;
        // a one-shot request is its exchange's current use, one round of it (a pooled exchange's rounds go on
        // from its last call's: ExchangePool); a persistent request's rounds are its starts
        this.firstRound = persistent ? 1 : engine.joinedUse(rank);
        this.round = firstRound - 1;
    }

    /** Issues a one-shot collective: posts its single round at once. */
    public static CollectiveRequest oneShot(NonBlockingEngine engine, Exchange x, int rank) {
        CollectiveRequest r = new CollectiveRequest(engine, x, rank, false);
        r.begin();
        return r;
    }

    /** A persistent request bound to {@code x}; inactive until {@link #start()}. */
    public static CollectiveRequest persistent(NonBlockingEngine engine, Exchange x, int rank) {
        return new CollectiveRequest(engine, x, rank, true);
    }

    /** A chain stage: joined (issue number taken, buffers registered) but posted only by {@link #post()}. */
    public static CollectiveRequest unposted(NonBlockingEngine engine, Exchange x, int rank) {
        return new CollectiveRequest(engine, x, rank, false);
    }

    /**
     * Has the engine publish the call after issue {@code id} (this one-shot request's) ahead when this rank first
     * waits with nothing to work on, or at the latest when it sees the request complete: in the time a rank waits for
     * its peers' items, not between its post and its own item, where the peers would wait for it.
     */
    public void prepareNext(long id) {
        if (!persistent && engine.preparesNext(rank, x)) {
            prepareAfter = id;
        }
    }

    private void prepare() {
        if (prepareAfter != 0) {
            long id = prepareAfter;
            prepareAfter = 0;
            engine.prepareNext(id, rank, x);
        }
    }

    /** Posts a chain stage's single round (its inputs are ready). */
    public void post() {
        if (posted()) {
            throw new IllegalStateException("already posted");
        }
        throwIfFailed();
        begin();
    }

    /** True once posted (a one-shot request or a posted chain stage). */
    public boolean posted() {
        return round >= firstRound;
    }

    /**
     * One step of a chain's progress loop: false with nothing done when not posted; otherwise takes one
     * ready piece of the work (true) or checks abort and timeout (false).
     */
    boolean step() {
        throwIfFailed();
        if (!active) {
            return false;
        }
        try {
            if (work(engine.worker())) {
                return true;
            }
            if (x.done(rank, round)) {
                complete();
                return false;
            }
            check();
            return false;
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    /** True when the posted round is complete (observing it, as {@link #isDone} does, without progressing). */
    boolean completed() {
        throwIfFailed();
        if (!posted()) {
            return false;
        }
        if (active && x.done(rank, round)) {
            complete();
        }
        return !active;
    }

    /** The exchange this request drives (tests, diagnostics). */
    public Exchange exchange() {
        return x;
    }

    @Override
    public void start() {
        throwIfFailed();                       // a failed request stays failed: its failure, not a new round
        checkStart(persistent, active, closed);
        begin();
    }

    /** The misuses of {@code start()} every persistent request refuses (also a spanning team's, SpanRequest). */
    public static void checkStart(boolean persistent, boolean active, boolean closed) {
        if (!persistent) {
            throw new IllegalStateException("start() is for persistent requests; this one was started when issued");
        }
        if (active) {
            throw new IllegalStateException("start() while the previous round is still active: await it first");
        }
        if (closed) {
            throw new IllegalStateException("the persistent request is closed");
        }
    }

    private void begin() {
        if (engine.isClosed()) {
            throw new IllegalStateException("the team is closed");
        }
        if (context.isAborted()) {
            throw fail(engine.abortFailure(x, rank));
        }
        round++;
        active = true;
        waitingSince = 0;
        event = RequestEvent.started();
        try {
            engine.post(x, rank, round);
        } catch (RuntimeException e) {
            // a staged post copies the send buffer: closed under a persistent request, it fails here
            throw fail(engine.itemFailed(x, e, rank));
        }
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public boolean isDone() {
        throwIfFailed();
        if (!active) {
            return true;
        }
        try {
            if (x.done(rank, round)) {
                return complete();
            }
            closedCheck();
            work(engine.worker());
            if (x.done(rank, round)) {
                return complete();
            }
            check();
            return false;
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    @Override
    public void await() {
        awaitUntil(0, false);
    }

    @Override
    public boolean await(Duration timeout) {
        long n = timeout.toNanos();
        return awaitUntil(System.nanoTime() + n, true);
    }

    private boolean awaitUntil(long deadline, boolean bounded) {
        throwIfFailed();
        if (!active) {
            return true;
        }
        try {
            ItemWorker w = engine.worker();
            Thread self = Thread.currentThread();
            for (int idle = 0; ; idle++) {
                if (x.done(rank, round)) {
                    return complete();
                }
                closedCheck();
                if (work(w)) {
                    idle = -1;
                    continue;
                }
                prepare();
                check();
                if (bounded && System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (self.isInterrupted()) {
                    // checked before idling: with the flag set a parking strategy returns at once and the loop spins
                    throw interrupted(self);
                }
                context.waitStrategy().idle(idle);
            }
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    /** One piece of this round's work; a piece that throws fails the request and aborts the team. */
    private boolean work(ItemWorker w) {
        try {
            return x.progress(w, rank, round);
        } catch (RuntimeException | Error e) {
            throw engine.itemFailed(x, e, rank);
        }
    }

    /** Before any work: the buffers of a closed team's ranks are freed (the request can no longer complete). */
    private void closedCheck() {
        if (engine.isClosed()) {
            throw engine.closedFailure(x, rank);
        }
    }

    /** Close, abort and timeout: the team timeout runs while some rank has not posted this round. */
    private void check() {
        closedCheck();
        if (context.isAborted()) {
            throw engine.abortFailure(x, rank);
        }
        if (!x.allPosted(round)) {
            long now = System.nanoTime();
            if (waitingSince == 0) {
                waitingSince = now;
            } else if (now - waitingSince > context.timeoutNanos()) {
                throw failAndAbort(x.timeout(rank, round, now - waitingSince));
            }
        }
    }

    /** The wait of this rank's thread was interrupted: the team aborts, naming this rank (as a blocking collective's). */
    private RuntimeException interrupted(Thread self) {
        CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + rank + " (thread " + self.getName()
                + ") was interrupted while waiting for " + x.describe() + " (issue #" + x.id() + ", round " + round
                + "); the team is aborted", rank);
        return failAndAbort(e);
    }

    /**
     * This rank's own failure {@code e} (timeout, interrupt): recorded first, then the team aborted with it — the
     * abort fails this request's future through {@link NonBlockingEngine#abortFailure}, which must find {@code e}
     * already standing. Returns the failure that stands (an earlier one if the request had already failed).
     */
    private RuntimeException failAndAbort(RuntimeException e) {
        RuntimeException f = record(e);
        context.abort(e, rank);
        return f;
    }

    private boolean complete() {
        active = false;
        prepare();
        finishEvent(null);
        if (future != null) {
            engine.settle(x);
        }
        return true;
    }

    /** The failure, or null while healthy (acquire: pairs with the CAS in {@link #record}). */
    private RuntimeException failure() {
        return (RuntimeException) FAILURE.getAcquire(this);
    }

    private void throwIfFailed() {
        RuntimeException f = failure();
        if (f != null) {
            active = false;
            throw f;
        }
    }

    /** Records {@code e} as this request's failure unless it already has one; returns the failure that stands. Any thread. */
    RuntimeException record(RuntimeException e) {
        return FAILURE.compareAndSet(this, null, e) ? e : failure();
    }

    /** On the owner's thread: the request failed with {@code e} (or its earlier failure); its future fails with it. */
    private RuntimeException fail(RuntimeException e) {
        active = false;
        RuntimeException f = record(e);
        finishEvent(f);
        if (future != null) {
            future.completeExceptionally(f);
        }
        return f;
    }

    /** The bytes per rank this request moves (its count times its dtype's size; 0 for a barrier). */
    long bytes() {
        return x.dtype == null ? 0 : x.count * x.dtype.size();
    }

    private void finishEvent(RuntimeException failed) {
        if (event != null) {
            RequestEvent.finish(event, x.collective.cliName(), persistent ? "persistent" : "one-shot",
                    bytes(), context.size(), rank, failed);
            event = null;
        }
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        RuntimeException f = failure();
        if (f != null) {
            if (future == null || !future.isCompletedExceptionally()) {
                future = new RequestFuture(driver(round));
                futureRound = round;
            }
            future.completeExceptionally(f);
            return future;
        }
        if (future != null && futureRound == round) {
            return future;
        }
        RequestFuture nf = new RequestFuture(driver(round));
        future = nf;
        futureRound = round;
        if (!active) {
            nf.complete(null);
        } else {
            engine.watch(x, new Exchange.Waiter(this, rank, round, nf));
        }
        return nf;
    }

    /** What the future of round {@code r} drives: this request on its rank's thread, a bounded wait elsewhere. */
    private RequestFuture.Driver driver(long r) {
        return RequestFuture.Driver.of(() -> context.thread(rank) == Thread.currentThread(),
                this::await, this::await, context::timeoutNanos,
                waitedNanos -> {
                    List<Integer> missing = x.notPosted(r);
                    CollectiveTimeoutException e = new CollectiveTimeoutException("the future of " + x.describe() + " (issue #"
                            + x.id() + ", round " + r + ") of rank " + rank + " was waited on by thread "
                            + Thread.currentThread().getName() + ", which is not that rank's and cannot progress it, for "
                            + waitedNanos / 1_000_000 + " ms (the team timeout) without completing; ranks that have not posted"
                            + " it: " + missing, missing);
                    return failAndAbort(e);
                });
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return (persistent ? "PersistentRequest[" : "Request[") + x.describe() + ", rank " + rank + ", round " + round
                + (active ? ", active]" : "]");
    }
}
