package io.coll4j.mpi;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Teams across JVM processes of this host without MPI ({@code Team.builder().processes(n, i).name(job)}, the shared
 * mapping): launches {@link CrossProcessDriver} in 2 and 3 child JVMs with {@code -Dcoll4j.test.shm=N:I:JOB} and
 * checks every blocking collective against the scalar reference (the core dtypes and ops, user ops, plans), the
 * reproducible mode (the ascending global-rank fold, bitwise), the requests (non-blocking and persistent), sub-teams, a mismatch (an exception, not a hang) and a kill -9 of one
 * process during a loop (the survivors end within seconds with a TeamAbortedException naming its rank). After every
 * case no file of the job may be left in /dev/shm. Needs no MPI: the driver never touches it in this mode.
 */
class SharedMappingJobTest {
    private static final long JOB_SECONDS = 120;
    private static final Path SHM = Path.of("/dev/shm");
    private static final AtomicInteger JOBS = new AtomicInteger();

    record Job(int[] exits, String[] outputs, long millis) {
        String all() {
            return String.join("\n----\n", outputs);
        }
    }

    /** A job name no other run shares: this JVM's pid and a counter. */
    private static String jobName(String what) {
        return "test-" + what + "-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
    }

    private static final class Launch {
        final Process[] processes;
        final Path[] logs;
        final long started = System.nanoTime();

        Launch(int n, String job, String... args) throws IOException {
            assumeTrue(Files.isDirectory(SHM), "no /dev/shm: the shared-mapping suite is skipped");
            processes = new Process[n];
            logs = new Path[n];
            for (int i = 0; i < n; i++) {
                List<String> cmd = new ArrayList<>();
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.addAll(List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xss1m",
                        "-XX:ErrorFile=" + Path.of(System.getProperty("java.io.tmpdir"), "coll4j-shm-hs_err_%p.log"),
                        "-Dcoll4j.test.shm=" + n + ":" + i + ":" + job));
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), CrossProcessDriver.class.getName()));
                cmd.addAll(List.of(args));
                logs[i] = Files.createTempFile("coll4j-shm-job", ".log");
                processes[i] = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logs[i].toFile()).start();
            }
        }

        String output(int i) throws IOException {
            return Files.readString(logs[i], StandardCharsets.UTF_8);
        }

        /** Waits for every process (killing all of them after {@link #JOB_SECONDS}: a hang fails the test). */
        Job finish() throws IOException, InterruptedException {
            try {
                boolean hung = false;
                for (Process p : processes) {
                    long left = TimeUnit.SECONDS.toNanos(JOB_SECONDS) - (System.nanoTime() - started);
                    hung |= !p.waitFor(Math.max(left, 0), TimeUnit.NANOSECONDS);
                }
                String[] out = new String[processes.length];
                int[] exits = new int[processes.length];
                for (int i = 0; i < processes.length; i++) {
                    if (hung) {
                        processes[i].destroyForcibly().waitFor();
                    }
                    out[i] = output(i);
                    exits[i] = processes[i].exitValue();
                }
                Job job = new Job(exits, out, (System.nanoTime() - started) / 1_000_000);
                assertTrue(!hung, "the job hung for " + JOB_SECONDS + " s:\n" + job.all());
                return job;
            } finally {
                for (Path l : logs) {
                    Files.deleteIfExists(l);
                }
            }
        }
    }

    /** No file of the job is left in /dev/shm (the mapping is unlinked once every process has mapped it). */
    private static void assertNothingLeft(String job) throws IOException {
        try (Stream<Path> files = Files.list(SHM)) {
            List<String> left = files.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("coll4j-" + job + "-")).toList();
            assertTrue(left.isEmpty(), "left in /dev/shm: " + left);
        }
    }

    @Test
    void everyCollectiveAgreesWithTheReferenceOnTwoProcessesOfTwoRanks() throws Exception {
        String job = jobName("check");
        Job j = new Launch(2, job, "check-core", "2").finish();
        assertEquals(0, j.exits()[0], j.all());
        assertEquals(0, j.exits()[1], j.all());
        assertTrue(j.outputs()[0].contains("cross-process OK: 2 processes x 2 ranks"), j.all());
        assertTrue(j.outputs()[0].contains("shared mapping"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void buffersFromRankAllocateAreWorkedOnInPlaceOnThreeProcesses() throws Exception {
        String job = jobName("mapped");
        Job j = new Launch(3, job, "mapped", "1").finish();
        for (int i = 0; i < 3; i++) {
            assertEquals(0, j.exits()[i], j.all());
        }
        assertTrue(j.outputs()[0].contains("cross-process mapped buffers OK: 3 processes x 1 ranks, 48 checks"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void buffersInTheMappingInSomeProcessesAndOnTheHeapInOthersAgree() throws Exception {
        String job = jobName("mixed");
        Job j = new Launch(2, job, "mixed", "1").finish();
        assertEquals(0, j.exits()[0], j.all());
        assertEquals(0, j.exits()[1], j.all());
        assertTrue(j.outputs()[0].contains("cross-process mixed buffers OK: 2 processes x 1 ranks, 48 checks"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void requestsAndPersistentCollectivesOnThreeProcesses() throws Exception {
        String job = jobName("requests");
        Job j = new Launch(3, job, "requests", "1").finish();
        for (int i = 0; i < 3; i++) {
            assertEquals(0, j.exits()[i], j.all());
        }
        assertTrue(j.outputs()[0].contains("cross-process requests OK: 3 processes x 1 ranks"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void reproducibleIsTheAscendingGlobalRankFoldBitwiseOnThreeProcesses() throws Exception {
        String job = jobName("reproducible");
        Job j = new Launch(3, job, "reproducible", "2").finish();
        for (int i = 0; i < 3; i++) {
            assertEquals(0, j.exits()[i], j.all());
        }
        assertTrue(j.outputs()[0].contains("cross-process reproducible OK: 3 processes x 2 ranks"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void subTeamsSplitAcrossAndWithinProcesses() throws Exception {
        String job = jobName("split");
        Job j = new Launch(2, job, "split", "3").finish();
        assertEquals(0, j.exits()[0], j.all());
        assertEquals(0, j.exits()[1], j.all());
        assertTrue(j.outputs()[0].contains("cross-process split OK: 2 processes x 3 ranks"), j.all());
        assertNothingLeft(job);
    }

    @Test
    void differentCollectivesInTwoProcessesThrowAMismatchInsteadOfHanging() throws Exception {
        String job = jobName("mismatch");
        Job j = new Launch(2, job, "mismatch-kind", "1").finish();
        for (int i = 0; i < 2; i++) {
            assertNotEquals(0, j.exits()[i], j.all());
            assertTrue(j.outputs()[i].contains("CollectiveMismatchException") && j.outputs()[i].contains("barrier")
                    && j.outputs()[i].contains("bcast"), j.all());
        }
        assertTrue(j.millis() < 60_000, "took " + j.millis() + " ms");
        assertNothingLeft(job);
    }

    @Test
    void killNineOfOneProcessEndsTheOthersNamingItsRankAndReplacesAStaleFile() throws Exception {
        String job = jobName("kill");
        // a file left by a crashed job of the same name: another magic, so process 0 must replace it
        Path stale = Files.writeString(SHM.resolve("coll4j-" + job + "-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid")),
                "left by a crashed job");
        Launch l = new Launch(3, job, "loop", "1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!l.output(0).contains("looping in process 0")) {
            assertTrue(System.nanoTime() < deadline && l.processes[0].isAlive(), "the loop never started:\n" + l.output(0));
            Thread.sleep(50);
        }
        assertNothingLeft(job);   // every process mapped it: unlinked already, the stale file with it
        l.processes[1].destroyForcibly();   // SIGKILL
        long killed = System.nanoTime();
        assertTrue(l.processes[0].waitFor(10, TimeUnit.SECONDS) && l.processes[2].waitFor(10, TimeUnit.SECONDS),
                "the survivors still run 10 s after the kill");
        long millis = (System.nanoTime() - killed) / 1_000_000;
        Job j = l.finish();
        for (int i : new int[]{0, 2}) {
            assertNotEquals(0, j.exits()[i], j.all());
            assertTrue(j.outputs()[i].contains("TeamAbortedException") && j.outputs()[i].contains("process 1")
                    && j.outputs()[i].contains("global rank 1") && j.outputs()[i].contains("died"), j.all());
        }
        assertTrue(j.outputs()[0].contains("replacing " + stale), j.all());
        assertTrue(millis < 5_000, "the survivors ended " + millis + " ms after the kill");
        assertNothingLeft(job);
    }
}
