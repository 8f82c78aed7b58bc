package io.coll4j.mpi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The lock around every MPI call under MPI_THREAD_SERIALIZED. Nearly always uncontended (one leader per
 * process calls MPI), so it is one CAS to take and one release store (a plain move on x86) to give back —
 * a {@code ReentrantLock}'s unlock is a volatile write, a full fence on the 8-byte allreduce's path. A
 * waiter (two teams' leaders calling at once) spins briefly, then parks in short naps: the holder may be
 * inside a long MPI call.
 */
final class SerialLock {
    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(SerialLock.class, "held", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private int held;

    void lock() {
        // the CAS has acquire semantics: it pairs with the previous holder's release in unlock(), so its MPI call
        // happens-before ours
        for (int spins = 0; !HELD.compareAndSet(this, 0, 1); spins++) {
            if (spins < 1000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(20_000);
            }
        }
    }

    void unlock() {
        HELD.setRelease(this, 0);   // pairs with the next taker's CAS
    }
}
