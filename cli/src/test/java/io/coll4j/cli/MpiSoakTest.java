package io.coll4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code collbench soak --mpi} under {@code mpirun -np 2} (as {@link MpiSweepTest} runs collbench): the random calls of
 * the misuse soak across processes without faults and with the faults a rank survives (bad arguments, closed buffers)
 * must end with exit 0 and a clean summary; each fatal fault must end the whole job (MPI_Abort, naming the failed
 * rank) within the bound — never a hang, never a JVM crash. Skipped, saying so, when mpirun is not installed.
 */
class MpiSoakTest {
    static final long JOB_SECONDS = 180;

    record Job(boolean done, int exit, String out) {
    }

    private static boolean haveMpirun() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "mpirun"))) {
                return true;
            }
        }
        return false;
    }

    static Job collbench(String... args) throws Exception {
        assumeTrue(haveMpirun(), "mpirun not found (apt-get install openmpi-bin libopenmpi-dev): skipped");
        // MPI as the transport (a one-host job would otherwise run over the shared mapping: MpiProvider)
        List<String> cmd = new ArrayList<>(List.of("mpirun", "-x", "COLL4J_MPI_SHARED_MAPPING=0", "--oversubscribe", "--bind-to", "none", "-np", "2"));
        if ("root".equals(System.getProperty("user.name"))) {
            cmd.add(1, "--allow-run-as-root");
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), CollBench.class.getName()));
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile("coll4j-mpi-soak", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(JOB_SECONDS, TimeUnit.SECONDS);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String out = Files.readString(log);
        Files.deleteIfExists(log);
        System.out.println("mpirun -np 2 collbench " + String.join(" ", args) + (done ? " (exit " + p.exitValue() + ")" : " (hung)")
                + ":\n" + out);
        return new Job(done, done ? p.exitValue() : -1, out);
    }

    static void noCrash(Job j) {
        assertFalse(j.out().contains("A fatal error has been detected by the Java Runtime Environment")
                || j.out().contains("SIGSEGV") || j.out().contains("hs_err_pid") || j.out().contains("Process received signal")
                || j.out().contains("exited on signal"), "a JVM crashed:\n" + j.out());
    }

    @Test
    void withoutFaultsEveryCallAgreesWithTheReference() throws Exception {
        Job j = collbench("soak", "--mpi", "-t", "2", "-n", "300", "--seed", "41", "--max-time", "90");
        assertTrue(j.done(), "the job did not end within " + JOB_SECONDS + " s:\n" + j.out());
        noCrash(j);
        assertEquals(0, j.exit(), j.out());
        assertTrue(j.out().contains("wrong results: 0"), j.out());
    }

    @Test
    void survivableFaultsLeaveTheTeamWorking() throws Exception {
        Job j = collbench("soak", "--mpi", "--chaos", "--faults", "bad-args,close-before", "-n", "300", "--seed", "42", "--max-time", "90");
        assertTrue(j.done(), "the job did not end within " + JOB_SECONDS + " s:\n" + j.out());
        noCrash(j);
        assertEquals(0, j.exit(), j.out());
    }

    @ParameterizedTest(name = "{0}")
    // interrupt-blocking is not among them: a rank interrupted inside a blocking MPI call cannot leave it; the call
    // completes and the interrupt is reported at the rank's next collective across processes
    // (HierarchicalCollectives.checkInterrupted), which this oracle, expecting it from the interrupted call, does not model
    @CsvSource({"throw-body,43", "stall,44", "mismatch,46", "throw-userop,48", "interrupt-await,49"})
    void aFatalFaultEndsTheJobNamingIt(String fault, long seed) throws Exception {
        Job j = collbench("soak", "--mpi", "--chaos", "--faults", fault, "-n", "100000", "--seed", String.valueOf(seed), "--max-time", "90");
        assertTrue(j.done(), "the job did not end within " + JOB_SECONDS + " s:\n" + j.out());
        noCrash(j);
        assertTrue(j.out().contains("# chaos: fatal fault " + fault), "no fatal fault was injected:\n" + j.out());
        assertFalse(j.out().contains("FAIL "), j.out());
        assertNotEquals(0, j.exit(), "the job went on after the fault:\n" + j.out());
        assertTrue(j.out().contains("aborting every process of the job"), "the job did not end through MPI_Abort naming the rank:\n" + j.out());
    }

    /**
     * An arena closed under a request in MPI: the request may have done its work already (the job goes on, every
     * result right) or fail (the job ends through MPI_Abort), but never crash the JVM or hang.
     */
    @ParameterizedTest(name = "seed {0}")
    @CsvSource({"47", "53"})   // 53: on the unfixed code MPI's libnbc found the heap corrupted (malloc abort, signal 6)
    void anArenaClosedUnderARequestNeverCrashes(long seed) throws Exception {
        Job j = collbench("soak", "--mpi", "--chaos", "--faults", "close-during", "-n", "400", "--seed", String.valueOf(seed), "--max-time", "90");
        assertTrue(j.done(), "the job did not end within " + JOB_SECONDS + " s:\n" + j.out());
        noCrash(j);
        assertTrue(j.out().contains("# chaos: fatal fault close-during"), "no close was injected:\n" + j.out());
        assertFalse(j.out().contains("FAIL "), j.out());
        if (j.exit() == 0) {
            assertTrue(j.out().contains("wrong results: 0"), j.out());
        } else {
            assertTrue(j.out().contains("aborting every process of the job"), j.out());
        }
    }
}
