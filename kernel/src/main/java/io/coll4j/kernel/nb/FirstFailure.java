package io.coll4j.kernel.nb;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A request's failure: the first one wins and stays, the answer to every later question (await, isDone,
 * start, the future). Any thread may record one (an abort or close failing the future, a thread timing out on
 * the future), so it is a compare-and-set read back with a volatile read: the CAS's release pairs with
 * {@link #get}'s acquire, so the exception is seen whole. One class for the one-process requests, chains and
 * the requests of teams across processes.
 */
public final class FirstFailure {
    private final AtomicReference<RuntimeException> first = new AtomicReference<>();

    /** The failure, or null while healthy. */
    public RuntimeException get() {
        return first.get();
    }

    /** Records {@code e} unless a failure stands already; returns the one that stands. */
    public RuntimeException record(RuntimeException e) {
        return first.compareAndSet(null, e) ? e : first.get();
    }

    /** Throws the failure that stands, if any. */
    public void throwIfFailed() {
        RuntimeException f = first.get();
        if (f != null) {
            throw f;
        }
    }
}
