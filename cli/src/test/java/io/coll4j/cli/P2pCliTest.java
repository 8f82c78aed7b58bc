package io.coll4j.cli;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code collbench latency | bw | bibw | multi-lat | neighbor | p2p-soak}: rows, formats, validation and the bounded message soak. */
class P2pCliTest {

    private static List<String> rows(CliRun r) {
        return Arrays.stream(r.out().split("\n")).filter(l -> !l.isBlank()).toList();
    }

    @Test
    void latencyCsvSweepsOsuSizes() {
        CliRun r = CliRun.of("latency", "-m", "0:8K", "-i", "200", "-x", "50", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        List<String> lines = rows(r);
        assertEquals(P2pCommands.CSV_HEADER, lines.get(0));
        assertEquals(15, lines.size() - 1, r.out());                    // 0, 1, 2, 4, … 8192
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",");
            assertEquals("latency", f[0]);
            assertEquals("2", f[1]);
            assertEquals("true", f[8], l);
            assertTrue(Double.parseDouble(f[6]) > 0, l);
        }
        assertTrue(lines.get(1).startsWith("latency,2,0,200,1,1,"), lines.get(1));
    }

    @Test
    void bandwidthJsonAndRounds() {
        for (String test : new String[]{"bw", "bibw"}) {
            CliRun r = CliRun.of(test, "-m", "64K:1M", "-f", "16", "-i", "3", "-x", "1", "--rounds", "2", "--format", "json");
            assertEquals(0, r.code(), r.err());
            List<String> lines = rows(r);
            assertTrue(lines.get(0).startsWith("{\"test\":\"" + test + "\",\"ranks\":2,\"window\":64"), lines.get(0));
            assertEquals(4, lines.size() - 1, r.out());                 // 2 sizes x 2 rounds
            assertTrue(lines.get(4).contains("\"bytes\":1048576") && lines.get(4).contains("\"round\":2")
                    && lines.get(4).contains("\"valid\":true"), lines.get(4));
        }
    }

    @Test
    void multiLatencyAndEagerLimit() {
        CliRun r = CliRun.of("multi-lat", "-t", "4", "-m", "8:16K", "-f", "2048", "-i", "100", "-x", "10", "--eager-limit", "64");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("multi-lat: 4 ranks"), r.out());
        assertEquals(2, rows(r).stream().filter(l -> l.trim().startsWith("1 ")).count(), r.out());
        CliRun c = CliRun.of("latency", "-m", "100:100", "-i", "10", "-x", "10", "--eager-limit", "64", "--format", "csv");
        assertTrue(rows(c).get(1).endsWith(",true,64"), c.out());            // 100 bytes went by rendezvous
    }

    @Test
    void neighborhoodAlltoallOnARing() {
        // 3 ranks: the two neighbours differ; 2: both neighbours are the same rank (told apart by direction)
        for (String t : new String[]{"3", "2"}) {
            CliRun r = CliRun.of("neighbor", "-t", t, "-m", "8:64K", "-f", "8192", "-i", "20", "-x", "10", "--format", "csv");
            assertEquals(0, r.code(), r.err());
            List<String> rows = rows(r);
            assertEquals(3, rows.size(), r.out());                           // header, 8 B, 64 KiB
            assertTrue(rows.get(1).startsWith("neighbor," + t + ",8,20,1,1,"), r.out());
            assertTrue(rows.get(2).contains(",true,"), r.out());
        }
        assertEquals(2, CliRun.of("neighbor", "-t", "1").code());
    }

    @Test
    void badOptionsAreOneLineUsageErrors() {
        assertEquals(2, CliRun.of("multi-lat", "-t", "3").code());
        assertEquals(2, CliRun.of("latency", "-m", "2G").code());
        assertEquals(2, CliRun.of("bw", "-W", "0").code());
        assertEquals(2, CliRun.of("bibw", "--rounds", "0").code());
        assertEquals(2, CliRun.of("latency", "--eager-limit", "8").code());
        // --mpi outside mpirun says so (the runs under mpirun are the mpi module's and measurements.md's)
        CliRun m = CliRun.of("latency", "--mpi");
        assertEquals(2, m.code());
        assertTrue(m.err().contains("not started by mpirun"), m.err());
        CliRun r = CliRun.of("p2p-soak", "-n", "0");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--messages must be"), r.err());
    }

    /**
     * The message soak, bounded for the suite: every message of ~8 s of traffic checked with a fixed seed, then 2,000
     * with a fresh one (bounded by count, not time: under load a 4 s bound once ended before the first round).
     */
    @Test
    void messageSoak() {
        CliRun r = CliRun.of("p2p-soak", "-n", "60000", "--seed", "33", "--max-time", "8");
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("lost 0, reordered 0, corrupted 0"), r.out());
        MessageSoak.Result fresh = MessageSoak.run(2_000, System.nanoTime(), java.time.Duration.ofSeconds(60), l -> {
        });
        assertTrue(fresh.clean(), fresh.toString());
        assertTrue(fresh.messages() >= 2_000, fresh.toString());
    }
}
