package io.coll4j.kernel.nb;

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
 */
public final class ChainRequest implements Request {
    /** One stage: a collective, or (request null) a local step. */
    public record Stage(CollectiveRequest request, Runnable local, boolean early) {
    }

    private final Stage[] stages;
    private final TeamContext context;
    private final Thread owner;
    private int next;
    private CompletableFuture<Void> future;

    public ChainRequest(NonBlockingEngine engine, List<Stage> stages) {
        this.stages = stages.toArray(Stage[]::new);
        this.context = engine.context();
        this.owner = Thread.currentThread();
        for (Stage s : this.stages) {
            if (s.request() != null && s.early()) {
                s.request().post();
            }
        }
        advance();
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
                s.local().run();
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
        if (future != null) {
            future.complete(null);
        }
        return worked;
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a chain runs its local steps on its rank's thread " + owner.getName()
                    + "; it cannot be driven from " + Thread.currentThread().getName());
        }
    }

    @Override
    public boolean isDone() {
        if (next == stages.length) {
            return true;
        }
        checkOwner();
        failIfAborted();
        advance();
        return next == stages.length;
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
        if (next == stages.length) {
            return true;
        }
        checkOwner();
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
                context.waitStrategy().idle(idle);
            }
        }
    }

    private void failIfAborted() {
        if (context.isAborted()) {
            RuntimeException e = context.abortedException(-1);
            if (future != null) {
                future.completeExceptionally(e);
            }
            throw e;
        }
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        if (future == null) {
            future = new CompletableFuture<>();
            if (next == stages.length) {
                future.complete(null);
            } else {
                context.onAbort(() -> future.completeExceptionally(context.abortedException(-1)));
            }
        }
        return future;
    }

    @Override
    public String toString() {
        return "ChainRequest[" + stages.length + " stages, next " + next + "]";
    }
}
