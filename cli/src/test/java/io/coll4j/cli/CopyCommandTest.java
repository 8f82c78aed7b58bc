package io.coll4j.cli;

import io.coll4j.bindings.copy.Copy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code collbench copy} in-process: every format, the adaptive choice, threads, and bad input. */
class CopyCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void csvHasTheExactHeaderAndARowPerImplAndSize() {
        CliRun r = run("copy", "-m", "4K:8K", "-i", "3", "-x", "1", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals("impl,threads,bytes,iterations,avg_us,min_us,max_us,GBps", lines.getFirst());
        assertEquals(1 + 2 * CopyCommand.IMPLS.size(), lines.size(), r.out());
        int i = 1;
        for (long bytes : new long[]{4096, 8192}) {
            for (String impl : CopyCommand.IMPLS) {
                String[] f = lines.get(i++).split(",");
                assertEquals(8, f.length, lines.get(i - 1));
                assertEquals(impl, f[0]);
                assertEquals("1", f[1]);
                assertEquals(Long.toString(bytes), f[2]);
                assertEquals("3", f[3]);
                double avg = Double.parseDouble(f[4]), min = Double.parseDouble(f[5]), max = Double.parseDouble(f[6]);
                double gbps = Double.parseDouble(f[7]);
                assertTrue(min <= avg && avg <= max && min > 0, lines.get(i - 1));
                // GBps = bytes x threads / avg time
                assertEquals(bytes / (avg * 1e3), gbps, gbps * 0.01 + 0.002, lines.get(i - 1));
            }
        }
    }

    @Test
    void adaptivePicksTemporalWhenTheWorkingSetFitsAndStreamsWhenItDoesNot() {
        CliRun small = run("copy", "-m", "64K:64K", "--impl", "adaptive", "-i", "2", "-x", "0", "--cache", "1M");
        assertEquals(0, small.code(), small.err());
        assertTrue(small.out().contains("temporal, W 128K <= C 1M"), small.out());

        CliRun big = run("copy", "-m", "64K:64K", "--impl", "adaptive,nontemporal", "-i", "2", "-x", "0", "--cache", "64K");
        assertEquals(0, big.code(), big.err());
        String expected = Copy.nativeAvailable() ? "stream " + Copy.ntIsa() + ", W 128K > C 64K" : "W 128K > C 64K";
        assertTrue(big.out().contains(expected), big.out());
        assertTrue(big.out().contains("# adaptive: stream iff W = 2 x bytes x threads > C = 64K (--cache)"), big.out());
    }

    @Test
    void tableSaysWhatEachPathDid() {
        CliRun r = run("copy", "-m", "1K:4K", "-i", "2", "-x", "0");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("# collbench copy: 1 thread(s), "), r.out());
        assertTrue(r.out().contains("# nt copy: " + Copy.nativeStatus()), r.out());
        assertTrue(r.out().contains("MemorySegment.copy"), r.out());
        assertTrue(r.out().contains("System.arraycopy byte[]"), r.out());
        if (Copy.nativeAvailable()) {
            assertTrue(r.out().contains("temporal (< NT floor 4K)"), r.out());   // nontemporal at 1K and 2K
            assertTrue(r.out().contains("stream " + Copy.ntIsa()), r.out());     // nontemporal at 4K
        }
        assertEquals("", r.err());
    }

    @Test
    void threadsCopyConcurrentlyAndJsonRowsCarryThePath(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("copy.json");
        CliRun r = run("copy", "-m", "16K:16K", "-t", "3", "--impl", "segment,arraycopy", "-i", "4", "--format", "json",
                "--output", file.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.out());
        List<String> lines = Files.readAllLines(file);
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).startsWith("{\"type\":\"header\",\"command\":\"copy\""), lines.get(0));
        assertTrue(lines.get(0).contains("\"threads\":3"), lines.get(0));
        assertTrue(lines.get(1).matches("\\{\"type\":\"row\",\"impl\":\"segment\",\"threads\":3,\"bytes\":16384,\"iterations\":4,.*\"path\":\"MemorySegment.copy\"}"),
                lines.get(1));
        assertTrue(lines.get(2).contains("\"impl\":\"arraycopy\""), lines.get(2));
    }

    @Test
    void defaultIterationsAreScaledByTime() {
        CliRun r = run("copy", "-m", "4K:4K", "--impl", "segment", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] f = r.out().lines().toList().get(1).split(",");
        long iterations = Long.parseLong(f[3]);
        double avgUs = Double.parseDouble(f[4]);
        // a 4 KiB copy takes well under 30 us, so ~0.3 s of them is thousands
        assertTrue(iterations >= 1000, r.out());
        assertTrue(iterations <= CopyCommand.MAX_ITERATIONS, r.out());
        assertTrue(avgUs < 1000, r.out());
    }

    private static void usageError(String expectedMessage, String... args) {
        CliRun r = run(args);
        assertEquals(2, r.code(), r.out() + r.err());
        String first = r.err().lines().findFirst().orElse("");
        assertTrue(first.startsWith("collbench copy: ") && first.contains(expectedMessage), r.err());
        assertTrue(r.err().contains("Usage: collbench copy"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void badInputExitsTwoWithOneLineAndUsage() {
        usageError("malformed size '4Q'", "copy", "-m", "4Q");
        usageError("size range MIN > MAX", "copy", "-m", "8K:4K");
        usageError("unknown copy impl 'memcpy'", "copy", "--impl", "segment,memcpy");
        usageError("--threads must be >= 1", "copy", "-t", "0");
        usageError("--iterations must be in 1..", "copy", "-i", "0");
        usageError("unknown format 'xml'", "copy", "--format", "xml");
        usageError("arraycopy copies byte[] arrays", "copy", "-m", "4G", "--impl", "arraycopy", "-t", "1");
        usageError("malformed size 'lots'", "copy", "--cache", "lots", "-m", "4K", "-i", "1");
    }

    @Test
    void aRunThatCannotFitInMemoryIsRefusedBeforeAllocating() {
        usageError("of native memory", "copy", "-m", "1024G", "--impl", "segment");
    }
}
