package io.coll4j.kernel.nb;

import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.Request;
import io.coll4j.kernel.algo.TeamContext;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A schedule of collectives and local steps run as one request [PAMI §4.1–4.2]. The collective stages
 * were joined (issue numbers taken, buffers registered) when the chain started; stage k is posted when
 * the chain reaches it — its input may be the output of stage k − 1 or of a local step — unless it was
 * posted early (independent chunks of a pipeline, which peers may then work on while this rank runs the
 * local step of an earlier chunk). Local steps run on the rank's own thread, in {@link #isDone()} or
 * {@link #await()}; so a chain moves on a rank only while that rank polls or waits, and its future
 * completes there.
 *
 * <p>Failure is sticky, as a {@link CollectiveRequest}'s: the first failure — a stage's (that stage's own
 * failure instance), a local step that threw (which aborts the team, charged to this rank, as a rank whose body
 * throws does), an abort, an interrupt of the waiting thread — is the answer to every later question and the
 * future's exceptional result.
 */
public final class ChainRequest implements Request {
    /** One stage: a collective, or (request null) a local step. */
    public record Stage(CollectiveRequest request, Runnable local, boolean early) {
    }

    private final Stage[] stages;
    private final NonBlockingEngine engine;
    private final TeamContext context;
    private final int rank;
    private final Thread owner;
    private int next;
    private RequestFuture future;
    /** The first failure, for good. */
    private final FirstFailure failure = new FirstFailure();
    /** The chain's JFR event from its start to its end (null: not recorded); each stage has its own. */
    private io.coll4j.kernel.events.RequestEvent event = io.coll4j.kernel.events.RequestEvent.started();

    public ChainRequest(NonBlockingEngine engine, int rank, List<Stage> stages) {
        this.stages = stages.toArray(Stage[]::new);
        this.engine = engine;
        this.context = engine.context();
        this.rank = rank;
        this.owner = Thread.currentThread();
        try {
            for (Stage s : this.stages) {
                if (s.request() != null && s.early()) {
                    s.request().post();
                }
            }
            advance();
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    /**
     * Runs the chain as far as it goes without waiting; true when it did some work. Posts the current
     * collective stage when reached, takes one piece of its work, and otherwise one piece of a later stage
     * posted early.
     */
    private boolean advance() {
        boolean worked = false;
        while (next < stages.length) {
            Stage s = stages[next];
            if (s.request() == null) {
                runStep(s.local());
                next++;
                worked = true;
                continue;
            }
            CollectiveRequest r = s.request();
            if (!r.posted()) {
                r.post();
            }
            if (r.completed()) {
                next++;
                continue;
            }
            if (r.step()) {
                return true;
            }
            if (r.completed()) {
                next++;
                continue;
            }
            for (int k = next + 1; k < stages.length; k++) {
                CollectiveRequest later = stages[k].request();
                if (later != null && later.posted() && later.step()) {
                    return true;
                }
            }
            return worked;
        }
        finishEvent(null);
        if (future != null) {
            future.complete(null);
        }
        return worked;
    }

    /**
     * A local step; one that throws ends the chain and aborts the team, charged to this rank (its peers' chains
     * would otherwise wait for the next stage until the timeout).
     */
    private void runStep(Runnable step) {
        try {
            step.run();
        } catch (Error e) {
            context.abort(e, rank);
            throw e;
        } catch (RuntimeException e) {
            throw failAndAbort(e);
        }
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a chain runs its local steps on its rank's thread " + owner.getName()
                    + "; it cannot be driven from " + Thread.currentThread().getName());
        }
    }

    @Override
    public boolean isDone() {
        throwIfFailed();
        if (next == stages.length) {
            return true;
        }
        checkOwner();
        try {
            failIfAborted();
            advance();
            return next == stages.length;
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
        return awaitUntil(System.nanoTime() + timeout.toNanos(), true);
    }

    private boolean awaitUntil(long deadline, boolean bounded) {
        throwIfFailed();
        if (next == stages.length) {
            return true;
        }
        checkOwner();
        try {
            for (int idle = 0; ; idle++) {
                failIfAborted();
                if (advance()) {
                    idle = -1;
                }
                if (next == stages.length) {
                    return true;
                }
                if (bounded && System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (idle >= 0) {
                    if (owner.isInterrupted()) {
                        // checked before idling: with the flag set a parking strategy returns at once and the loop spins
                        throw interrupted();
                    }
                    context.waitStrategy().idle(idle);
                }
            }
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    private void failIfAborted() {
        if (context.isAborted()) {
            throw engine.abortFailure(null, rank);
        }
    }

    private RuntimeException interrupted() {
        CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + rank + " (thread " + owner.getName()
                + ") was interrupted while waiting for a chain (stage " + (next + 1) + " of " + stages.length
                + "); the team is aborted", rank);
        return failAndAbort(e);
    }

    /**
     * This rank's own failure {@code e} (a local step, an interrupt, a timeout of the future): recorded first, then
     * the team aborted with it — the abort fails the future through the {@code onAbort} listener, which must find
     * {@code e} already standing. Returns the failure that stands.
     */
    private RuntimeException failAndAbort(RuntimeException e) {
        RuntimeException f = record(e);
        context.abort(e, rank);
        return f;
    }

    private RuntimeException failure() {
        return failure.get();
    }

    private void finishEvent(RuntimeException failed) {
        if (event != null) {
            long bytes = 0;
            for (Stage s : stages) {
                bytes += s.request() == null ? 0 : s.request().bytes();
            }
            io.coll4j.kernel.events.RequestEvent.finish(event, "chain", "chain", bytes, context.size(), rank, failed);
            event = null;
        }
    }

    private void throwIfFailed() {
        failure.throwIfFailed();
    }

    /** Records {@code e} unless the chain failed already; returns the failure that stands. */
    private RuntimeException record(RuntimeException e) {
        return failure.record(e);
    }

    private RuntimeException fail(RuntimeException e) {
        RuntimeException f = record(e);
        finishEvent(f);
        if (future != null) {
            future.completeExceptionally(f);
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        if (future == null) {
            RequestFuture f = new RequestFuture(driver());
            future = f;
            RuntimeException failed = failure();
            if (failed != null) {
                f.completeExceptionally(failed);
            } else if (next == stages.length) {
                f.complete(null);
            } else {
                // an abort fails the future at once (the chain records it: the same failure for every question)
                context.onAbort(() -> {
                    if (!f.isDone()) {             // a chain complete before the abort stays complete
                        f.completeExceptionally(record(engine.abortFailure(null, rank)));
                    }
                });
            }
        }
        return future;
    }

    /** What the chain's future drives: the chain on its rank's thread, a bounded wait elsewhere. */
    private RequestFuture.Driver driver() {
        return RequestFuture.Driver.of(() -> Thread.currentThread() == owner,
                this::await, this::await, context::timeoutNanos,
                waitedNanos -> {
                    CollectiveTimeoutException e = new CollectiveTimeoutException("the future of a chain of rank " + rank
                            + " was waited on by thread " + Thread.currentThread().getName() + ", which is not that rank's "
                            + "and cannot run the chain, for " + waitedNanos / 1_000_000 + " ms (the team timeout) without "
                            + "completing", List.of());
                    return failAndAbort(e);
                });
    }

    @Override
    public String toString() {
        return "ChainRequest[" + stages.length + " stages, next " + next + "]";
    }
}
