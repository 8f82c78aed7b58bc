package io.coll4j.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The steady-state warm-up judges a batch clean by the CPU time of the JVM's compiler and collector threads: the
 * reader must find them on Linux and see their time grow while they work.
 */
class ServiceThreadsTest {
    @Test
    void compilerAndCollectorTimeIsReadAndGrows() throws Exception {
        try (ServiceThreads service = new ServiceThreads()) {
            long before = service.nanos();
            assertTrue(before > 0, "no compiler or collector thread found under /proc/self/task");
            // garbage for the collector and fresh code for the JIT, then a collection the JVM must run
            long sink = 0;
            for (int i = 0; i < 200; i++) {
                sink += new byte[1 << 20].length;
            }
            System.gc();
            long after = service.nanos();
            assertTrue(after > before, "service threads' time did not grow: " + before + " -> " + after + " (" + sink + ")");
        }
    }
}
