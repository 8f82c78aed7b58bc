package io.coll4j.kernel.nb;

import io.coll4j.PersistentRequest;
import io.coll4j.kernel.algo.TeamContext;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One rank's handle on an {@link Exchange}: a one-shot request (a single round, started when issued) or
 * a persistent one (a round per {@link #start()}). Waiting is the progress loop: take a ready piece of
 * the work, else check abort and timeout, else idle with the team's wait strategy.
 */
public final class CollectiveRequest implements PersistentRequest {
    private final NonBlockingEngine engine;
    private final TeamContext context;
    private final Exchange x;
    private final int rank;
    private final boolean persistent;
    private long round;
    private boolean active;
    private boolean closed;
    /** When this round was first found not fully posted (0: not yet): the team timeout runs from here. */
    private long waitingSince;
    private CompletableFuture<Void> future;
    private long futureRound = -1;

    private CollectiveRequest(NonBlockingEngine engine, Exchange x, int rank, boolean persistent) {
        this.engine = engine;
        this.context = engine.context();
        this.x = x;
        this.rank = rank;
        this.persistent = persistent;
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

    /** Posts a chain stage's single round (its inputs are ready). */
    public void post() {
        if (round != 0) {
            throw new IllegalStateException("already posted");
        }
        begin();
    }

    /** True once posted (a one-shot request or a posted chain stage). */
    public boolean posted() {
        return round > 0;
    }

    /**
     * One step of a chain's progress loop: false with nothing done when not posted; otherwise takes one
     * ready piece of the work (true) or checks abort and timeout (false).
     */
    boolean step() {
        if (!active) {
            return false;
        }
        if (x.progress(engine.worker(), rank, round)) {
            return true;
        }
        if (x.done(rank, round)) {
            complete();
            return false;
        }
        check();
        return false;
    }

    /** True when the posted round is complete (observing it, as {@link #isDone} does, without progressing). */
    boolean completed() {
        if (round == 0) {
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
        if (context.isAborted()) {
            throw context.abortedException(rank);
        }
        if (engine.isClosed()) {
            throw new IllegalStateException("the team is closed");
        }
        round++;
        active = true;
        waitingSince = 0;
        engine.post(x, rank, round);
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public boolean isDone() {
        if (!active) {
            return true;
        }
        if (x.done(rank, round)) {
            return complete();
        }
        x.progress(engine.worker(), rank, round);
        if (x.done(rank, round)) {
            return complete();
        }
        check();
        return false;
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
        if (!active) {
            return true;
        }
        ItemWorker w = engine.worker();
        for (int idle = 0; ; idle++) {
            if (x.done(rank, round)) {
                return complete();
            }
            if (x.progress(w, rank, round)) {
                idle = -1;
                continue;
            }
            check();
            if (bounded && System.nanoTime() - deadline >= 0) {
                return false;
            }
            context.waitStrategy().idle(idle);
        }
    }

    /** Abort and timeout: the team timeout runs while some rank has not posted this round. */
    private void check() {
        if (context.isAborted()) {
            active = false;
            throw context.abortedException(rank);
        }
        if (!x.allPosted(round)) {
            long now = System.nanoTime();
            if (waitingSince == 0) {
                waitingSince = now;
            } else if (now - waitingSince > context.timeoutNanos()) {
                RuntimeException e = x.timeout(rank, round, now - waitingSince);
                active = false;
                if (context.abort(e, rank)) {
                    throw e;
                }
                throw context.abortedException(rank);
            }
        }
    }

    private boolean complete() {
        active = false;
        if (future != null) {
            engine.settle(x);
        }
        return true;
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        if (future != null && futureRound == round) {
            return future;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        future = f;
        futureRound = round;
        if (!active) {
            f.complete(null);
        } else {
            engine.watch(x, new Exchange.Waiter(rank, round, f));
        }
        return f;
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
