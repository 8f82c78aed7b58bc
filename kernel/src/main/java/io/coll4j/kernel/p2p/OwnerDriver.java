package io.coll4j.kernel.p2p;

import io.coll4j.CollectiveTimeoutException;
import io.coll4j.kernel.nb.RequestFuture;

import java.time.Duration;
import java.util.List;

/**
 * The {@link RequestFuture.Driver} of a request of one rank's messages: only that rank's thread can move them (the
 * endpoint is single-threaded), so it drives; any other thread that waits the team timeout fails the request and
 * aborts the team with a {@link CollectiveTimeoutException} naming the ranks the request still waits for.
 */
abstract class OwnerDriver implements RequestFuture.Driver {
    private final Endpoint ep;

    OwnerDriver(Endpoint ep) {
        this.ep = ep;
    }

    /** "recv(source 0, tag 7, 64 bytes)": what the request is, for the timeout's message. */
    abstract String describe();

    /** The ranks whose action the request still waits for. */
    abstract List<Integer> waitsFor();

    /** Records {@code e} as the request's failure unless one stands; returns the one that stands. */
    abstract RuntimeException record(RuntimeException e);

    @Override
    public abstract void await();

    @Override
    public abstract boolean await(Duration timeout);

    @Override
    public boolean drivable() {
        return ep.isOwnerThread();
    }

    @Override
    public long timeoutNanos() {
        return ep.timeoutNanos();
    }

    @Override
    public RuntimeException foreignTimeout(long waitedNanos) {
        CollectiveTimeoutException e = new CollectiveTimeoutException("the future of " + describe() + " of rank " + ep.rank
                + " was waited on by thread " + Thread.currentThread().getName() + ", which is not that rank's and cannot"
                + " progress it, for " + waitedNanos / 1_000_000 + " ms (the team timeout) without completing", waitsFor());
        RuntimeException first = record(e);
        ep.abort(e);
        return first;
    }
}
