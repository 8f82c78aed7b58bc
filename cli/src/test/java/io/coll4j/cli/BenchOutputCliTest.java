package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Team;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Issue 34's collbench parts: aliases, auto's label, one row per (size, algorithm), in-place, default check, summary, plot. */
class BenchOutputCliTest {

    /** The settings a command line parses to: the sweep, iterations and warm-up. */
    private static List<Object> settings(String... args) {
        CollectiveCommands.Allreduce cmd = new CollectiveCommands.Allreduce();
        new CommandLine(cmd).parseArgs(args);
        RunOptions.Setup s = cmd.run.resolve(Collective.ALLREDUCE, Map.of());
        return List.of(s.range().sizes(), String.valueOf(cmd.run.iterations), String.valueOf(cmd.run.warmup), s.threads());
    }

    @Test
    void ncclTestsAndOsuAliasesParseToTheSameSettings() {
        List<Object> longNames = settings("-t", "2", "--minbytes", "1K", "--maxbytes", "64K", "--step-factor", "4",
                "--iterations", "50", "--warmup", "5");
        assertEquals(longNames, settings("-t", "2", "-b", "1K", "-e", "64K", "-f", "4", "-n", "50", "-w", "5"));
        assertEquals(longNames, settings("-t", "2", "-m", "1K:64K", "-f", "4", "-i", "50", "-x", "5"));
        assertEquals(List.of(1024L, 4096L, 16384L, 65536L), longNames.getFirst());
        // OSU's -m MAX: from the default MIN (8) up to MAX; the same as -e MAX and -m 8:MAX
        assertEquals(settings("-t", "2", "-m", "8:64K"), settings("-t", "2", "-m", "64K"));
        assertEquals(settings("-t", "2", "-m", "8:64K"), settings("-t", "2", "-e", "64K"));
        // -b alone keeps the default MAX; a MAX below the default MIN is one size
        assertEquals(new SizeRange(1 << 20, 64 << 20), SizeRange.of(null, "1M", null, null, "8:64M"));
        assertEquals(List.of(4L), SizeRange.of("4", null, null, null, "8:64M").sizes());
        assertEquals(List.of(8L, 64L, 512L, 1000L), SizeRange.of("8:1000", null, null, 8L, "8:64M").sizes());
    }

    @Test
    void theCliTimesOutAsTheTeamDoes() {
        assertEquals(Team.DEFAULT_TIMEOUT, new RunOptions().timeout());
    }

    private static List<Map<String, String>> csv(String out) {
        List<String> lines = out.lines().filter(l -> !l.startsWith("#")).toList();
        String[] head = lines.getFirst().split(",", -1);
        return lines.subList(1, lines.size()).stream().map(l -> {
            String[] v = l.split(",", -1);
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < head.length; i++) {
                m.put(head[i], v[i]);
            }
            return m;
        }).toList();
    }

    /** {@code -a auto,push,direct}: per size one row per algorithm; the one auto ran says so, and is not printed twice. */
    @Test
    void autoIsLabelledByWhatItRanAndEverySizeHasOneRowPerAlgorithm() {
        CliRun r = CliRun.of("allreduce", "-t", "2", "-m", "8:2M", "-f", "16", "-a", "auto,push,direct", "-i", "20", "-x", "2",
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        Map<String, List<Map<String, String>>> bySize = csv(r.out()).stream()
                .collect(Collectors.groupingBy(m -> m.get("bytes"), java.util.LinkedHashMap::new, Collectors.toList()));
        assertEquals(6, bySize.size(), r.out());
        for (List<Map<String, String>> rows : bySize.values()) {
            List<String> algs = rows.stream().map(m -> m.get("algorithm")).toList();
            assertEquals(algs.stream().distinct().count(), algs.size(), "one row per algorithm: " + r.out());
            List<Map<String, String>> auto = rows.stream().filter(m -> m.get("label").startsWith("auto→")).toList();
            assertEquals(1, auto.size(), r.out());
            String ran = auto.getFirst().get("algorithm");
            assertEquals("auto→" + ran, auto.getFirst().get("label"));
            assertTrue(algs.containsAll(List.of("push", "direct")), r.out());
            assertEquals(List.of(ran, "push", "direct").stream().distinct().count(), rows.size(), r.out());
        }
    }

    /** The table has nccl-tests' two column groups; collectives without an in-place form say N/A there. */
    @Test
    void inPlaceColumnsBesideOutOfPlace() {
        CliRun r = CliRun.of("allreduce", "-t", "2", "-m", "1K:4K", "-a", "push", "-i", "20", "-x", "2");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("#") && l.contains("out-of-place") && l.contains("in-place")), r.out());
        List<String> rows = r.out().lines().filter(l -> !l.startsWith("#")).toList();
        assertEquals(3, rows.size(), r.out());
        for (String row : rows) {
            String[] f = row.trim().split("\\s+");
            // ... algbw busbw #wrong | ip time, algbw, busbw, #wrong
            assertEquals("0", f[f.length - 1], row);
            assertTrue(Double.parseDouble(f[f.length - 4]) > 0, row);
        }
        CliRun csv = CliRun.of("allgather", "-t", "2", "-m", "4K:4K", "-a", "direct", "-i", "20", "-x", "2", "--format", "csv");
        assertEquals(0, csv.code(), csv.err());
        Map<String, String> row = csv(csv.out()).getFirst();
        assertTrue(Double.parseDouble(row.get("ip_avg_us")) > 0, csv.out());
        assertEquals("true", row.get("ip_valid"), csv.out());
        CliRun b = CliRun.of("bcast", "-t", "2", "-m", "1K:1K", "-i", "20", "-x", "2");
        assertEquals(0, b.code(), b.err());
        assertTrue(b.out().lines().filter(l -> !l.startsWith("#")).allMatch(l -> l.trim().endsWith("N/A")), b.out());
    }

    /** Checking is on without -c, off with -c 0 or --no-check, and a wrong result is counted: exit 1, #wrong, FAILED. */
    @Test
    void checkingIsOnByDefaultAndCountsAWrongResult() {
        CliRun on = CliRun.of("allreduce", "-t", "2", "-m", "64:64", "-i", "20", "-x", "2", "--format", "csv");
        assertEquals(0, on.code(), on.err());
        assertTrue(csv(on.out()).stream().allMatch(m -> m.get("valid").equals("true") && m.get("ip_valid").equals("true")), on.out());
        assertTrue(on.err().contains("# #wrong: 0 elements wrong") && on.err().contains(": OK"), on.err());
        for (String[] off : new String[][]{{"-c", "0"}, {"--no-check"}}) {
            List<String> args = new java.util.ArrayList<>(List.of("allreduce", "-t", "2", "-m", "64:64", "-i", "20", "-x", "2",
                    "--format", "csv"));
            args.addAll(List.of(off));
            CliRun r = CliRun.of(args.toArray(String[]::new));
            assertEquals(0, r.code(), r.err());
            assertTrue(csv(r.out()).stream().allMatch(m -> m.get("valid").equals("-")), r.out());
            assertTrue(r.err().contains("not checked"), r.err());
        }
        CollectiveBenchmark.corruptCheckedResultForTest = true;
        try {
            CliRun bad = CliRun.of("allreduce", "-t", "2", "-m", "64:64", "-a", "push", "-i", "20", "-x", "2");
            assertEquals(Errors.VALIDATION_FAILED, bad.code(), bad.out() + bad.err());
            String row = bad.out().lines().filter(l -> !l.startsWith("#")).findFirst().orElseThrow();
            String[] f = row.trim().split("\\s+");
            assertEquals("1", f[f.length - 5], "out-of-place #wrong: " + row);
            assertEquals("1", f[f.length - 1], "in-place #wrong: " + row);
            assertTrue(bad.out().contains("# #wrong: 2 elements wrong, in 1 of the 1 rows checked") && bad.out().contains("FAILED"),
                    bad.out());
            assertTrue(bad.err().contains("validation failed: 2 wrong elements"), bad.err());
        } finally {
            CollectiveBenchmark.corruptCheckedResultForTest = false;
        }
    }

    @Test
    void theTableClosesWithTheSummaryAndItsHeaderShowsTheLoad() {
        CliRun r = CliRun.of("allreduce", "-t", "2", "-m", "1K:2K", "-a", "auto,push", "-i", "20", "-x", "2");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getLast().startsWith("# Avg bus bandwidth: ") && lines.getLast().contains("GB/s"), r.out());
        assertTrue(lines.get(lines.size() - 2).startsWith("# #wrong: 0 elements wrong"), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# load average ")), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("# warm-up: 2 calls (-x)")), r.out());
    }

    @Test
    void aMistypedCommandGetsTheNearestOne() {
        CliRun r = CliRun.of("allredcue", "-t", "2");
        assertEquals(Errors.USAGE, r.code());
        assertTrue(r.err().startsWith("collbench: unknown collective or command 'allredcue': did you mean allreduce?"), r.err());
        assertEquals("reduce-scatter", CollBench.nearest("reduce-scater", new CommandLine(new CollBench()).getSubcommands().keySet()));
        assertEquals("bcast", CollBench.nearest("bcst", new CommandLine(new CollBench()).getSubcommands().keySet()));
        assertNull(CollBench.nearest("xyzzy", new CommandLine(new CollBench()).getSubcommands().keySet()));
        assertFalse(CliRun.of("xyzzy").err().contains("did you mean"));
    }

    /** Flags a barrier would ignore are refused; tune has no -o (the op everywhere else); chain takes one size. */
    @Test
    void flagsThatWouldBeIgnoredAreRefused() {
        for (String[] flag : new String[][]{{"-d", "f32"}, {"-o", "max"}, {"-m", "8:64"}, {"-e", "1K"}, {"-r", "1"}}) {
            CliRun r = CliRun.of("barrier", "-t", "2", "-i", "10", "-x", "1", flag[0], flag[1]);
            assertEquals(Errors.USAGE, r.code(), String.join(" ", flag));
            assertTrue(r.err().startsWith("collbench barrier: barrier moves no data: "), r.err());
        }
        assertEquals(0, CliRun.of("barrier", "-t", "2", "-i", "10", "-x", "1").code());
        CliRun tune = CliRun.of("tune", "-o", "x.json");
        assertEquals(Errors.USAGE, tune.code());
        assertTrue(tune.err().contains("Unknown option") && tune.err().contains("'-o'"), tune.err());
        CliRun chain = CliRun.of("chain", "-t", "2", "-m", "8:1M");
        assertEquals(Errors.USAGE, chain.code());
        assertTrue(chain.err().contains("chain measures one size"), chain.err());
    }

    @Test
    void listAndExplainHelpNameTheWholeCatalogue() {
        for (String cmd : new String[]{"list", "explain"}) {
            String help = CliRun.of(cmd, "-h").out().replaceAll("\\s+", " ");
            for (Collective c : Collective.values()) {
                assertTrue(help.contains(c.cliName()), cmd + " -h lacks " + c.cliName() + ": " + help);
            }
        }
    }

    /** {@code collbench plot} overlays CSV files: collbench's and scripts/ompi's (same header, algorithm openmpi). */
    @Test
    void plotOverlaysCsvFilesIntoAPng(@TempDir Path dir) throws IOException {
        CliRun r = CliRun.of("allreduce", "-t", "2", "-m", "8:4K", "-a", "auto,push", "-i", "10", "-x", "1", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        Path ours = Files.writeString(dir.resolve("coll4j.csv"), r.out());
        Path ompi = Files.writeString(dir.resolve("ompi.csv"), RowWriter.CSV_HEADER + "\n"
                + "allreduce,openmpi,2,8,1,f64,sum,1000,1.500,1.400,1.600,0.005,0.005,-\n"
                + "allreduce,openmpi,2,4096,512,f64,sum,1000,3.000,2.900,3.100,1.365,1.365,-\n");
        Path png = dir.resolve("both.png");
        CliRun p = CliRun.of("plot", ours.toString(), ompi.toString(), "--output", png.toString());
        assertEquals(0, p.code(), p.err());
        byte[] b = Files.readAllBytes(png);
        assertTrue(b.length > 5000 && b[0] == (byte) 0x89 && b[1] == 'P', "png of " + b.length + " bytes");
        Map<String, Plot.Series> series = Plot.readCsv(List.of(ours, ompi));
        assertTrue(series.containsKey("coll4j: auto") && series.containsKey("coll4j: push") && series.containsKey("ompi: openmpi"),
                series.keySet().toString());
        assertEquals(2, series.get("ompi: openmpi").points.size());
        assertNotEquals(0, series.get("coll4j: auto").ran.size());
        CliRun bad = CliRun.of("plot", ours.toString(), "--output", dir.resolve("x.txt").toString());
        assertEquals(Errors.USAGE, bad.code());
    }
}
