package io.coll4j.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The benchmark's wait for the JIT to go quiet between the warm-up and the timed batches. */
final class JitQuiet {
    /** 50 ms: a 250 ms window changed nothing measurable (first 8 B rows, 4 + 4 alternated sweeps). */
    static final long QUIET_NANOS = 50_000_000L;
    private static final Path TASKS = Path.of("/proc/self/task");

    /**
     * Waits, at most 2 s, until the JIT has compiled nothing for 50 ms. The warm-up queues compilations that
     * C2 finishes in the background; on a 2-CPU machine a compiler thread still at work takes a rank's CPU,
     * and the first timed rows (8 B: 0.2 µs per call) measured it — 1 to 16 µs instead of 0.2. The other
     * ranks wait for this one at the barrier that follows.
     *
     * <p>"Nothing" is two signals: the total compilation time ({@code CompilationMXBean}), which moves only when a
     * compilation ends, and, on Linux, the CPU time of the JVM's compiler threads ({@code /proc/self/task}, threads
     * named "C1/C2 CompilerThread"), which moves while one is under way: a C2 compilation longer than the window
     * looked quiet to the first alone, and the first 8-byte latency round after it read 0.10–0.19 µs against 0.06–0.07
     * settled (with -XX:-BackgroundCompilation 0.065–0.073: docs/measurements.md, 2026-11-30).
     */
    static void await() {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long quietSince = start;
        long last = jit.getTotalCompilationTime();
        long lastTicks = compilerTicks();
        while (System.nanoTime() - start < 2_000_000_000L && System.nanoTime() - quietSince < QUIET_NANOS) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            long now = jit.getTotalCompilationTime();
            long ticks = compilerTicks();
            if (now != last || ticks != lastTicks) {
                last = now;
                lastTicks = ticks;
                quietSince = System.nanoTime();
            }
        }
    }

    /** The compiler threads' CPU time in clock ticks (utime + stime), or 0 where /proc does not tell. */
    static long compilerTicks() {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path t : tasks) {
                try {
                    if (!Files.readString(t.resolve("comm")).contains("CompilerThre")) {
                        continue;
                    }
                    String stat = Files.readString(t.resolve("stat"));
                    // after the ")" that ends the name: state is field 3, utime 14 and stime 15
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                } catch (IOException | RuntimeException e) {
                    // a thread that ended between the listing and the read
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return sum;
    }

    /** Warm-ups shorter than this skip {@link #await} (latency-bound rows warm up with 100 000 calls). */
    static final long MIN_WARMUP = 1000;

    private JitQuiet() {
    }
}
