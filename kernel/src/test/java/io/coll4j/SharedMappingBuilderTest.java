package io.coll4j;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code processes(n, index).name(job)} in one JVM: the builder's refusals, one process as an ordinary team, and
 * process 0 alone — its mapping file exists with mode 0600 while it waits, and is gone after the team timeout ends
 * the wait (the multi-process cases are SharedMappingJobTest's, in coll4j-mpi's tests).
 */
class SharedMappingBuilderTest {

    private static Path file(String job) throws IOException {
        return Path.of("/dev/shm", "coll4j-" + job + "-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    @Test
    void refusesWhatCannotWork() {
        assertThrows(IllegalArgumentException.class, () -> Team.builder().processes(2, 2));
        assertThrows(IllegalArgumentException.class, () -> Team.builder().processes(0, 0));
        IllegalArgumentException noName = assertThrows(IllegalArgumentException.class,
                () -> Team.builder().ranks(1).processes(2, 0).build());
        assertTrue(noName.getMessage().contains("name(job)"), noName.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Team.builder().ranks(1).mpi().processes(2, 0).name("x").build());
        IllegalArgumentException badName = assertThrows(IllegalArgumentException.class,
                () -> Team.builder().ranks(1).processes(2, 0).name("../etc").build());
        assertTrue(badName.getMessage().contains("job name"), badName.getMessage());
    }

    @Test
    void rankAllocateTakesTheProcessRegionOfTheMappingAndSaysWhenItIsFull() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm");
        assertThrows(IllegalArgumentException.class, () -> Team.builder().sharedMemory(-1));
        String job = "builder-alloc-" + ProcessHandle.current().pid();
        // the two processes of the job as two threads of this JVM: each builds its own team over the same mapping
        AtomicReference<Throwable> failure = new AtomicReference<>();
        double[][] results = new double[2][];
        String[] full = new String[2];
        Thread[] procs = new Thread[2];
        for (int i = 0; i < 2; i++) {
            int index = i;
            procs[i] = new Thread(() -> {
                try (Team team = Team.builder().ranks(1).processes(2, index).name(job).sharedMemory(1 << 20)
                        .timeout(Duration.ofSeconds(30)).build()) {
                    team.run(rank -> {
                        java.lang.foreign.MemorySegment send = rank.allocate(7 * 8);
                        java.lang.foreign.MemorySegment recv = rank.allocate(7 * 8);
                        assertEquals(0, send.address() % 4096);
                        for (int k = 0; k < 7; k++) {
                            assertEquals(0.0, recv.getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, k));
                            send.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE, k, k + 10.0 * index);
                        }
                        rank.allreduce(send, recv, 7, io.coll4j.reductions.DType.F64, io.coll4j.reductions.Op.SUM);
                        results[index] = recv.toArray(java.lang.foreign.ValueLayout.JAVA_DOUBLE);
                        full[index] = assertThrows(IllegalArgumentException.class, () -> rank.allocate(1 << 20)).getMessage();
                    });
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            procs[i].start();
        }
        for (Thread t : procs) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        for (int i = 0; i < 2; i++) {
            assertEquals(java.util.Arrays.toString(new double[]{10, 12, 14, 16, 18, 20, 22}), java.util.Arrays.toString(results[i]));
            assertTrue(full[i].contains("sharedMemory"), full[i]);
        }
        assertFalse(Files.exists(file(job)));
    }

    @Test
    void oneProcessIsAnOrdinaryTeam() {
        try (Team team = Team.builder().ranks(2).processes(1, 0).name("solo").build()) {
            assertEquals(1, team.processes());
            assertEquals("none (one process)", team.transport());
        }
    }

    @Test
    void processZeroAloneCreatesTheFile0600AndRemovesItWhenNobodyJoins() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm");
        String job = "builder-test-" + ProcessHandle.current().pid();
        Path f = file(job);
        AtomicReference<String> seen = new AtomicReference<>();
        Thread watcher = new Thread(() -> {
            long end = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < end && seen.get() == null) {
                try {
                    if (Files.exists(f)) {
                        seen.set(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
                    }
                    Thread.sleep(5);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        });
        watcher.start();
        long t0 = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Team.builder().ranks(1).processes(2, 0).name(job).timeout(Duration.ofSeconds(1)).build());
        long ms = (System.nanoTime() - t0) / 1_000_000;
        watcher.join();
        assertTrue(e.getMessage().contains("missing indices [1]"), e.getMessage());
        assertTrue(ms < 10_000, "took " + ms + " ms");
        assertEquals("rw-------", seen.get());
        assertFalse(Files.exists(f), "left behind: " + f);
    }

    @Test
    void aJoinerWithoutProcessZeroEndsAtTheTimeout() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/dev/shm")), "no /dev/shm");
        String job = "builder-join-" + ProcessHandle.current().pid();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Team.builder().ranks(1).processes(2, 1).name(job).timeout(Duration.ofSeconds(1)).build());
        assertTrue(e.getMessage().contains("found no mapping made by process 0"), e.getMessage());
        assertFalse(Files.exists(file(job)));
    }
}
