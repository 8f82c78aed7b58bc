package io.coll4j.reductions.internal;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;

/**
 * Drives code until it runs as C2-compiled Vector API code. The Vector API's Java fallback (interpreter,
 * C1) allocates a payload array per vector operation; intrinsified C2 code allocates nothing. So "a
 * batch of calls allocated zero bytes" is the observable sign that the kernels under test are compiled —
 * and, once they are, the check that their loops do not allocate.
 */
final class HotLoop {

    private static final long TIMEOUT_NANOS = 60_000_000_000L;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private HotLoop() {
    }

    /** Bytes this thread has allocated so far. */
    static long allocated() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** Runs {@code batch} until one run of it allocates nothing; fails after a minute. */
    static void untilCompiled(String what, Runnable batch) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (true) {
            long before = allocated();
            batch.run();
            if (allocated() == before) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail(what + " still allocates after " + TIMEOUT_NANOS / 1_000_000_000 + " s: not compiled by C2, or its loops allocate");
            }
        }
    }
}
