package io.coll4j.cli;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** collbench --nonblocking, --persistent, --overlap, chain and split: exit codes, rows, columns (not speed). */
class NonBlockingCliTest {

    @Test
    void nonblockingAndPersistentRowsAreValidated() {
        for (String c : List.of("allreduce", "reduce-scatter", "allgather", "bcast", "reduce", "barrier",
                "gather", "scatter", "alltoall", "scan", "exscan",
                "gatherv", "scatterv", "allgatherv", "reduce-scatter-v", "alltoallv")) {
            // a barrier refuses -m (it has no sizes)
            CliRun r = c.equals("barrier")
                    ? CliRun.of(c, "-t", "3", "-i", "20", "-x", "5", "--nonblocking", "--persistent", "-c", "--format", "csv")
                    : CliRun.of(c, "-t", "3", "-m", "8:64K", "-i", "20", "-x", "5", "--nonblocking",
                    "--persistent", "-c", "--format", "csv");
            assertEquals(0, r.code(), c + ": " + r.err());
            List<String> lines = r.out().lines().toList();
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(c + ",nonblocking,3,")), c + ": " + r.out());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith(c + ",persistent,3,")), c + ": " + r.out());
            assertTrue(lines.stream().skip(1).noneMatch(l -> CliRun.wrongCsv(l)), c + ": " + r.out());
        }
    }

    @Test
    void overlapAddsItsColumns() {
        CliRun r = CliRun.of("allreduce", "-t", "2", "-m", "64K:64K", "-i", "20", "-x", "5",
                "--overlap", "auto", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).endsWith(",compute_us,blocking_us,overlap_us"), lines.get(0));
        String[] row = lines.get(1).split(",");
        assertEquals(lines.get(0).split(",").length, row.length);
        assertEquals("overlap", row[1]);
        double c = Double.parseDouble(row[row.length - 3]);
        double a = Double.parseDouble(row[row.length - 2]);
        assertTrue(c > 0 && a > 0 && c >= 0.9 * a, "auto computes for about A: " + Arrays.toString(row));
        CliRun v = CliRun.of("alltoallv", "-t", "3", "-m", "64K:64K", "-i", "20", "-x", "5", "--overlap", "2", "--format", "csv");
        assertEquals(0, v.code(), v.err());
        assertTrue(v.out().lines().skip(1).anyMatch(l -> l.startsWith("alltoallv,overlap,3,")), v.out());
        CliRun bad = CliRun.of("allreduce", "-t", "1", "-m", "8:8", "--overlap", "5");
        assertEquals(Errors.USAGE, bad.code(), bad.err());
        CliRun worse = CliRun.of("allreduce", "-t", "2", "-m", "8:8", "--overlap", "soon");
        assertTrue(worse.code() != 0 && worse.err().contains("--overlap"), worse.err());
    }

    @Test
    void chainAndSplitRunAndValidate() {
        CliRun chain = CliRun.of("chain", "-t", "2", "-m", "1M", "-n", "2");
        assertEquals(0, chain.code(), chain.err());
        assertTrue(chain.out().contains("wrong: 0"), chain.out());
        CliRun split = CliRun.of("split", "-t", "4", "-i", "500", "-n", "2");
        assertEquals(0, split.code(), split.err());
        assertTrue(split.out().contains("wrong: 0"), split.out());
        assertEquals(Errors.USAGE, CliRun.of("split", "-t", "3").code());
        // --uneven needs --mpi and two ranks per process at least (checked before any team is built)
        CliRun unevenAlone = CliRun.of("split", "-t", "4", "--uneven");
        assertTrue(unevenAlone.code() == Errors.USAGE && unevenAlone.err().contains("--uneven needs --mpi"), unevenAlone.err());
        assertEquals(Errors.USAGE, CliRun.of("split", "-t", "1", "--mpi", "--uneven").code());
        // --mpi outside mpirun: the team build says what is missing (the suite has no mpirun job for collbench)
        CliRun noMpi = CliRun.of("split", "-t", "2", "--mpi", "-i", "10", "-n", "1");
        assertTrue(noMpi.code() != 0 && noMpi.err().contains("mpirun"), noMpi.code() + ": " + noMpi.err());
    }
}
