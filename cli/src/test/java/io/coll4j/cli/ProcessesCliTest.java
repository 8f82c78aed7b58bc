package io.coll4j.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --processes N}: collbench starts the other JVMs itself (the test JVM's java and class path), they join
 * through the shared mapping, only process 0 prints, the results are checked, and nothing is left in /dev/shm.
 */
class ProcessesCliTest {

    private static List<String> leftovers() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.map(p -> p.getFileName().toString()).filter(f -> f.startsWith("coll4j-collbench-")).toList();
        }
    }

    @Test
    void allreduceOverTwoProcessesPrintsOneCheckedTable() throws IOException {
        List<String> before = leftovers();
        CliRun r = CliRun.of("allreduce", "--processes", "2", "-t", "1", "-m", "8:4K", "-f", "512", "-i", "100", "-x", "10");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("shared mapping /dev/shm/coll4j-collbench-") && r.out().contains("2 processes"), r.out());
        // two sizes, one row each, every element right
        assertEquals(2, r.out().lines().filter(l -> l.matches("\\s+(8|4096)\\s+.*")).count(), r.out());
        assertTrue((r.out() + r.err()).contains("#wrong: 0 elements wrong"), r.out() + r.err());
        assertEquals(before, leftovers());
    }

    @Test
    void latencyOverTwoProcessesRunsEveryProtocolBetweenThem() throws IOException {
        List<String> before = leftovers();
        // 0 B, inline (1, 16), eager (256) and rendezvous (4K, 64K) (read in place from the mapping) between one rank in each JVM
        CliRun r = CliRun.of("latency", "--processes", "2", "-t", "1", "-m", "0:64K", "-f", "16", "-i", "50", "-x", "50");
        assertEquals(0, r.code(), r.out() + r.err());
        assertEquals(6, r.out().lines().filter(l -> l.matches("\\s+1\\s+(0|1|16|256|4096|65536)\\s+.*OK")).count(), r.out());
        assertEquals(before, leftovers());
    }

    @Test
    void topoNamesTheProcessLevelPath() throws IOException {
        CliRun r = CliRun.of("topo", "--processes", "2", "-t", "1");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("process level: shared mapping /dev/shm/coll4j-collbench-"), r.out());
        CliRun one = CliRun.of("topo", "-t", "1");
        assertTrue(one.out().contains("process level: one process"), one.out());
    }
}
