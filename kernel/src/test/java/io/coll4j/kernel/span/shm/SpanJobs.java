package io.coll4j.kernel.span.shm;

import io.coll4j.ProcessThreads;

import java.time.Duration;

/** A shared-mapping job of {@link ProcessThreads}: each simulated process opens its {@link SharedMemorySpan} and closes it after. */
final class SpanJobs {
    private SpanJobs() {
    }

    interface Body {
        void run(SharedMemorySpan span, int index) throws Exception;
    }

    /** Runs {@code body} in {@code processes} processes of a new job, each with {@code regionBytes} of allocation region. */
    static void run(String prefix, int processes, long regionBytes, Body body) throws InterruptedException {
        String job = ProcessThreads.jobName(prefix);
        ProcessThreads.run(processes, index -> {
            SharedMemorySpan span = SharedMemorySpan.open(job, processes, index, 1, Duration.ofSeconds(30), regionBytes);
            try {
                body.run(span, index);
            } finally {
                span.close();
            }
        });
    }
}
