package io.coll4j.kernel.span.shm;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that dies during the join (before every process mapped the job's file): the one waiting for it fails
 * within a second or two, naming it, instead of waiting for the team timeout, and the file is gone. The dead
 * process is a real one ({@code sleep}, killed), written into the file where the dead process would have written.
 */
class JoinFaultTest {
    private static final AtomicInteger JOBS = new AtomicInteger();

    private static String job() {
        return "joinfault-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    }

    private static Process deadLater() throws Exception {
        return new ProcessBuilder("sleep", "600").start();
    }

    @Test
    void processZeroFailsWhenARegisteredJoinerDies() throws Exception {
        String job = job();
        Path path = Mapping.pathOf(job);
        Process joiner = deadLater();
        long started = System.nanoTime();
        CompletableFuture<Throwable> zero = CompletableFuture.supplyAsync(() -> {
            try {
                SharedMemorySpan.open(job, 2, 0, 1, Duration.ofMinutes(10), 4L << 20).close();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        try {
            for (int i = 0; i < 2000 && !Files.exists(path); i++) {
                Thread.sleep(5);
            }
            // the joiner's registration (its pid in process 1's line), then its death before the count
            try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
                 Arena a = Arena.ofConfined()) {
                MemorySegment h = fc.map(FileChannel.MapMode.READ_WRITE, 0, Mapping.CHANNELS_AT, a);
                h.set(ValueLayout.JAVA_LONG, Mapping.PROC_LINES + 64, joiner.pid());
            }
            joiner.destroyForcibly().waitFor();
            Throwable t = zero.get(30, TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException, "process 0 failed with " + t);
            assertTrue(t.getMessage().contains("process 1 (pid " + joiner.pid() + ") died during the join"), t.getMessage());
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(20).toNanos(), "not bounded by the team timeout");
            assertFalse(Files.exists(path), "the file is left in " + path.getParent());
        } finally {
            joiner.destroyForcibly();
            Files.deleteIfExists(path);
        }
    }

    @Test
    void aJoinerFailsWhenProcessZeroDiesDuringTheJoin() throws Exception {
        String job = job();
        Path path = Mapping.pathOf(job);
        Process creator = deadLater();
        try {
            // process 0's file, initialised, its creator alive; this process's own pid in index 1's line makes the
            // joiner take it for its earlier team's file and wait, as it waits for a file not yet joinable
            try (FileChannel fc = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE); Arena a = Arena.ofConfined()) {
                MemorySegment h = fc.map(FileChannel.MapMode.READ_WRITE, 0, Mapping.CHANNELS_AT, a);
                h.set(ValueLayout.JAVA_INT, 8, 2);
                h.set(ValueLayout.JAVA_LONG, Mapping.PROC_LINES, creator.pid());
                h.set(ValueLayout.JAVA_LONG, Mapping.PROC_LINES + 64, ProcessHandle.current().pid());
                h.set(ValueLayout.JAVA_LONG, 0, Mapping.MAGIC);
            }
            CompletableFuture<Throwable> one = CompletableFuture.supplyAsync(() -> {
                try {
                    SharedMemorySpan.open(job, 2, 1, 1, Duration.ofMinutes(10), 4L << 20).close();
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(300);   // the joiner has seen the creator alive
            long killed = System.nanoTime();
            creator.destroyForcibly().waitFor();
            Throwable t = one.get(30, TimeUnit.SECONDS);
            assertTrue(t instanceof IllegalStateException, "the joiner failed with " + t);
            assertTrue(t.getMessage().contains("process 0 (pid " + creator.pid() + ") died during the join"), t.getMessage());
            assertTrue(System.nanoTime() - killed < Duration.ofSeconds(10).toNanos(), "not bounded by the team timeout");
            assertFalse(Files.exists(path), "the file is left in " + path.getParent());
        } finally {
            creator.destroyForcibly();
            Files.deleteIfExists(path);
        }
    }

    @Test
    void theJoinIsBoundedByItsOwnTimeout() {
        String job = job();
        String before = System.getProperty("coll4j.shm.joinSeconds");
        System.setProperty("coll4j.shm.joinSeconds", "1");
        try {
            long started = System.nanoTime();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> SharedMemorySpan.open(job, 2, 1, 1, Duration.ofMinutes(10), 4L << 20));
            assertTrue(e.getMessage().contains("join timeout"), e.getMessage());
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(10).toNanos());
        } finally {
            if (before == null) {
                System.clearProperty("coll4j.shm.joinSeconds");
            } else {
                System.setProperty("coll4j.shm.joinSeconds", before);
            }
        }
    }
}
