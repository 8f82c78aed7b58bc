package io.coll4j.kernel.p2p;

import io.coll4j.MessageRequest;
import io.coll4j.kernel.nb.FirstFailure;
import io.coll4j.kernel.nb.RequestFuture;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A send or a receive of one rank. Only that rank's thread progresses it ({@link Endpoint} is single-threaded), so
 * its state is plain fields; the one field another thread writes — a rendezvous send's completion by the receiver
 * — is {@link SendRequest#received()}'s release. The failure follows the {@code Request} family: the first one is
 * recorded in a {@link FirstFailure} and is the answer to every later question.
 */
public abstract sealed class P2pRequest implements MessageRequest permits SendRequest, RecvRequest {
    final Endpoint ep;
    /** The peer named by the call (a rank, or -1 for any source). */
    int peer;
    int tag;
    /** The message's or the buffer's size in bytes. */
    long bytes;
    /** Observed complete by the owner (the operation's completion, then this flag, in that order). */
    boolean done;
    /** When a wait on it first found it incomplete (0: not yet): the team timeout runs from here. */
    long since;
    /** isDone calls that found it incomplete: the clock is read at the first and every 64th (Endpoint.checkSometimes). */
    int polls;
    /** The status of the matched message (a receive) or of the sent one. */
    int statusSource = -1;
    int statusTag = -1;
    long statusBytes;
    /** Intrusive link: the posted queue (receives) or a destination's pending queue (sends). */
    P2pRequest next;
    private FirstFailure failure;
    private CompletableFuture<Void> future;

    P2pRequest(Endpoint ep) {
        this.ep = ep;
    }

    /** True when the operation itself is complete (a receive matched and copied, a send delivered or received). */
    abstract boolean complete();

    /** "recv(source 0, tag 7, 64 bytes)": for messages. */
    abstract String describe();

    /** Ranks whose action this request waits for (for the timeout's missing ranks). */
    abstract List<Integer> waitsFor();

    final RuntimeException failure() {
        return failure == null ? null : failure.get();
    }

    /** Records {@code e} as this request's failure unless one stands; returns the one that stands. */
    final RuntimeException record(RuntimeException e) {
        if (failure == null) {
            failure = new FirstFailure();
        }
        return failure.record(e);
    }

    final void throwIfFailed() {
        RuntimeException f = failure();
        if (f != null) {
            done = true;
            throw f;
        }
    }

    /** On the owner's thread: the operation is complete; throws its failure (a truncation) if it has one. */
    final boolean finish() {
        done = true;
        RuntimeException f = failure();
        if (f != null) {
            if (future != null) {
                future.completeExceptionally(f);
            }
            throw f;
        }
        if (future != null) {
            future.complete(null);
        }
        return true;
    }

    /** On the owner's thread: fails the request with {@code e} (or its earlier failure), which it returns. */
    final RuntimeException fail(RuntimeException e) {
        done = true;
        RuntimeException f = record(e);
        if (future != null) {
            future.completeExceptionally(f);
        }
        return f;
    }

    @Override
    public boolean isDone() {
        ep.checkThread();
        throwIfFailed();
        if (done) {
            return true;
        }
        try {
            if (complete() || (ep.progress() && complete())) {
                return finish();
            }
            ep.checkSometimes(this, polls++);
            return false;
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    @Override
    public void await() {
        ep.checkThread();
        ep.await(this, 0, false);
    }

    @Override
    public boolean await(Duration timeout) {
        ep.checkThread();
        return ep.await(this, System.nanoTime() + timeout.toNanos(), true);
    }

    @Override
    public io.coll4j.MessageStatus status() {
        throwIfFailed();
        if (!done) {
            throw new IllegalStateException("the request is not complete: " + describe());
        }
        return ep.status(statusSource, statusTag, statusBytes);
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        RuntimeException f = failure();
        if (future == null) {
            future = new RequestFuture(driver());
        }
        if (f != null) {
            future.completeExceptionally(f);
        } else if (done) {
            future.complete(null);
        }
        return future;
    }

    private RequestFuture.Driver driver() {
        return new OwnerDriver(ep) {
            @Override
            public void await() {
                P2pRequest.this.await();
            }

            @Override
            public boolean await(Duration timeout) {
                return P2pRequest.this.await(timeout);
            }

            @Override
            String describe() {
                return P2pRequest.this.describe();
            }

            @Override
            List<Integer> waitsFor() {
                return P2pRequest.this.waitsFor();
            }

            @Override
            RuntimeException record(RuntimeException e) {
                return P2pRequest.this.record(e);
            }
        };
    }

    /** The matched message's source (a receive; the destination for a send), once complete. */
    public int matchedSource() {
        return statusSource;
    }

    /** The matched message's tag, once complete. */
    public int matchedTag() {
        return statusTag;
    }

    /** The matched message's size in bytes, once complete. */
    public long matchedBytes() {
        return statusBytes;
    }

    @Override
    public String toString() {
        return "MessageRequest[" + describe() + " of rank " + ep.rank + (done ? ", done]" : "]");
    }
}
