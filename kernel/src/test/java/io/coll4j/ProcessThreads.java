package io.coll4j;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The processes of one shared-mapping job, simulated by threads of this JVM (each opens the job's mapping as a
 * process would): the tests of spanning teams that need no second JVM.
 */
public final class ProcessThreads {
    private static final AtomicInteger JOBS = new AtomicInteger();

    /** What one simulated process does; {@code index} is its process index. */
    public interface ProcessBody {
        void run(int index) throws Exception;
    }

    private ProcessThreads() {
    }

    /** A job name no other test of this JVM or of a concurrent test JVM uses. */
    public static String jobName(String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    }

    /**
     * Runs {@code body} for process indices 0..processes−1, each on a thread of its own, and waits for all; the first
     * failure is rethrown as an AssertionError with the others suppressed. Skipped where there is no /dev/shm.
     */
    public static void run(int processes, ProcessBody body) throws InterruptedException {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm");
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int q = 0; q < processes; q++) {
            int index = q;
            Thread t = new Thread(() -> {
                try {
                    body.run(index);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "process-" + q);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!failures.isEmpty()) {
            AssertionError e = new AssertionError(failures.peek());
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }
}
