package io.coll4j.kernel.nb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A request's failure: the first one wins and stays, the answer to every later question (await, isDone,
 * start, the future). Any thread may record one (an abort or close failing the future, a thread timing out on
 * the future), so it is a compare-and-set read back with an acquire load: the CAS's release pairs with
 * {@link #get}'s acquire, so the exception is seen whole. One class for the one-process requests, chains and
 * the requests of teams across processes. The field is its own (a VarHandle), not an {@code AtomicReference}'s: a
 * one-shot request allocates one object fewer per call.
 */
public final class FirstFailure {
    private static final VarHandle FIRST;

    static {
        try {
            FIRST = MethodHandles.lookup().findVarHandle(FirstFailure.class, "first", RuntimeException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private RuntimeException first;

    /** The failure, or null while healthy (acquire: pairs with the CAS in {@link #record}, which releases it). */
    public RuntimeException get() {
        return (RuntimeException) FIRST.getAcquire(this);
    }

    /** Records {@code e} unless a failure stands already; returns the one that stands. */
    public RuntimeException record(RuntimeException e) {
        return FIRST.compareAndSet(this, null, e) ? e : get();
    }

    /** Throws the failure that stands, if any. */
    public void throwIfFailed() {
        RuntimeException f = get();
        if (f != null) {
            throw f;
        }
    }
}
