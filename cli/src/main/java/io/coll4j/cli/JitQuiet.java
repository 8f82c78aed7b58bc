package io.coll4j.cli;

/** The benchmark's wait for the JIT to go quiet between the warm-up and the timed batches. */
final class JitQuiet {
    /** 50 ms: a 250 ms window changed nothing measurable (first 8 B rows, 4 + 4 alternated sweeps). */
    static final long QUIET_NANOS = 50_000_000L;

    /**
     * Waits, at most 2 s, until the JIT has compiled nothing for 50 ms. The warm-up queues compilations that
     * C2 finishes in the background; on a 2-CPU machine a compiler thread still at work takes a rank's CPU,
     * and the first timed rows (8 B: 0.2 µs per call) measured it — 1 to 16 µs instead of 0.2. The other
     * ranks wait for this one at the barrier that follows.
     */
    static void await() {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long quietSince = start;
        long last = jit.getTotalCompilationTime();
        while (System.nanoTime() - start < 2_000_000_000L && System.nanoTime() - quietSince < QUIET_NANOS) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /** Warm-ups shorter than this skip {@link #await} (latency-bound rows warm up with 100 000 calls). */
    static final long MIN_WARMUP = 1000;

    private JitQuiet() {
    }
}
