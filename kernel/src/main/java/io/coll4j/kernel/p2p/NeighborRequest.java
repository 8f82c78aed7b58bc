package io.coll4j.kernel.p2p;

import io.coll4j.CollectiveMismatchException;
import io.coll4j.Request;
import io.coll4j.kernel.nb.FirstFailure;
import io.coll4j.kernel.nb.RequestFuture;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One rank's part of a neighborhood collective ({@code io.coll4j.Neighborhood}): a receive per in-edge and a send per
 * out-edge, posted at once, receives first (so a peer's eager message finds its receive posted and is copied once).
 * It is a {@link Request} over those messages: it moves when its rank polls or waits, like every message request of
 * that rank, and it completes when all of them have. A block that arrives shorter than the caller said fails it with
 * a {@link CollectiveMismatchException} naming the block and its source (a longer one is the receive's
 * {@link io.coll4j.MessageTruncatedException}); either failure is this rank's alone, as a message's is.
 */
public final class NeighborRequest implements Request {
    private final Endpoint ep;
    private final String what;
    /** Receives first (block i of the caller's receive buffer is {@code parts[i]}), then the sends. */
    private final P2pRequest[] parts;
    private final int receives;
    /** Bytes each receive must bring. */
    private final long[] expected;
    /** The block of the caller's receive buffer each receive fills (PROC_NULL blocks have no receive). */
    private final int[] block;
    private final FirstFailure failure = new FirstFailure();
    private boolean done;
    private RequestFuture future;

    private NeighborRequest(Endpoint ep, String what, P2pRequest[] parts, int receives, long[] expected, int[] block) {
        this.ep = ep;
        this.what = what;
        this.parts = parts;
        this.receives = receives;
        this.expected = expected;
        this.block = block;
    }

    /** A neighborhood exchange being put together by the caller: receives, then sends, then {@link #start}. */
    public static final class Builder {
        private final Endpoint ep;
        private final String what;
        private final List<P2pRequest> parts = new ArrayList<>();
        private final List<long[]> receives = new ArrayList<>();
        private boolean sending;

        public Builder(Endpoint ep, String what) {
            this.ep = ep;
            this.what = what;
        }

        /** Posts the receive of block {@code index} ({@code bytes} bytes into {@code buf}) from {@code source}. */
        public Builder receive(int index, MemorySegment buf, long bytes, int source, int tag) {
            if (sending) {
                throw new IllegalStateException("receives are posted before sends");
            }
            parts.add(ep.irecv(buf, bytes, source, tag));
            receives.add(new long[]{bytes, index});
            return this;
        }

        /** Starts the send of {@code bytes} bytes of {@code buf} to {@code dest}. */
        public Builder send(MemorySegment buf, long bytes, int dest, int tag) {
            sending = true;
            parts.add(ep.isend(buf, bytes, dest, tag));
            return this;
        }

        public NeighborRequest start() {
            int n = receives.size();
            long[] expected = new long[n];
            int[] block = new int[n];
            for (int i = 0; i < n; i++) {
                expected[i] = receives.get(i)[0];
                block[i] = (int) receives.get(i)[1];
            }
            return new NeighborRequest(ep, what, parts.toArray(new P2pRequest[0]), n, expected, block);
        }
    }

    @Override
    public boolean isDone() {
        ep.checkThread();
        failure.throwIfFailed();
        if (done) {
            return true;
        }
        for (P2pRequest r : parts) {
            if (!r.done && !poll(r)) {
                return false;
            }
        }
        return settle();
    }

    private boolean poll(P2pRequest r) {
        try {
            return r.isDone();
        } catch (RuntimeException e) {
            throw fail(e);
        }
    }

    @Override
    public void await() {
        ep.checkThread();
        failure.throwIfFailed();
        for (P2pRequest r : parts) {
            try {
                r.await();
            } catch (RuntimeException e) {
                throw fail(e);
            }
        }
        settle();
    }

    @Override
    public boolean await(Duration timeout) {
        ep.checkThread();
        failure.throwIfFailed();
        long deadline = System.nanoTime() + timeout.toNanos();
        for (P2pRequest r : parts) {
            try {
                if (!r.await(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                    return false;
                }
            } catch (RuntimeException e) {
                throw fail(e);
            }
        }
        return settle();
    }

    /** Every message is complete: checks the received sizes, then reports completion (or the mismatch). */
    private boolean settle() {
        if (done) {
            failure.throwIfFailed();
            return true;
        }
        for (int i = 0; i < receives; i++) {
            long got = parts[i].matchedBytes();
            if (got != expected[i]) {
                throw fail(new CollectiveMismatchException("rank " + ep.rank + ": " + what + ": block " + block[i]
                        + " from rank " + parts[i].matchedSource() + " brought " + got + " bytes, the receive expected "
                        + expected[i] + " (the ranks disagree on the counts)"));
            }
        }
        done = true;
        if (future != null) {
            future.complete(null);
        }
        return true;
    }

    private RuntimeException fail(RuntimeException e) {
        done = true;
        RuntimeException f = failure.record(e);
        if (future != null) {
            future.completeExceptionally(f);
        }
        return f;
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        if (future == null) {
            future = new RequestFuture(driver());
            // completed by whoever completes the last message (the rank's own progress in any point-to-point call),
            // so callbacks run without this request being polled
            CompletableFuture<?>[] each = new CompletableFuture<?>[parts.length];
            for (int i = 0; i < parts.length; i++) {
                each[i] = parts[i].toFuture();
            }
            CompletableFuture.allOf(each).whenComplete((v, e) -> {
                if (e != null) {
                    future.completeExceptionally(failure.record(unwrap(e)));
                } else {
                    try {
                        settle();
                    } catch (RuntimeException ignored) {
                        // settle failed the future with the mismatch
                    }
                }
            });
        }
        RuntimeException f = failure.get();
        if (f != null) {
            future.completeExceptionally(f);
        } else if (done) {
            future.complete(null);
        }
        return future;
    }

    private static RuntimeException unwrap(Throwable e) {
        Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return c instanceof RuntimeException r ? r : new IllegalStateException(c);
    }

    private RequestFuture.Driver driver() {
        return new OwnerDriver(ep) {
            @Override
            public void await() {
                NeighborRequest.this.await();
            }

            @Override
            public boolean await(Duration timeout) {
                return NeighborRequest.this.await(timeout);
            }

            @Override
            String describe() {
                return what;
            }

            @Override
            List<Integer> waitsFor() {
                List<Integer> missing = new ArrayList<>();
                for (P2pRequest r : parts) {
                    if (!r.done) {
                        missing.addAll(r.waitsFor());
                    }
                }
                return missing;
            }

            @Override
            RuntimeException record(RuntimeException e) {
                return failure.record(e);
            }
        };
    }

    @Override
    public String toString() {
        return "Request[" + what + " of rank " + ep.rank + (done ? ", done]" : "]");
    }
}
