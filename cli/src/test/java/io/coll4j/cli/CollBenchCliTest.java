package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * collbench in-process: list, help on every subcommand, every kind of bad input (exit 2, one line naming
 * the problem, then usage), profiles, the JSON header, --cold, --check-placement and --plot.
 */
class CollBenchCliTest {

    static CliRun run(String... args) {
        return CliRun.of(args);
    }

    /** Exit 2, the first stderr line names the problem ({@code expect}), usage follows on the next line. */
    static void usageError(String expect, String... args) {
        CliRun r = run(args);
        assertEquals(2, r.code(), String.join(" ", args) + "\n" + r.out() + r.err());
        List<String> lines = r.err().lines().toList();
        assertTrue(lines.size() >= 2, r.err());
        assertTrue(lines.get(0).contains(expect), "expected '" + expect + "' in: " + lines.get(0));
        assertTrue(lines.get(1).startsWith("Usage: collbench"), r.err());
    }

    @Test
    void listShowsEveryAlgorithmWithSummaryAndSeedAndMarksBaselines() {
        CliRun r = run("list");
        assertEquals(0, r.code(), r.err());
        for (CollectiveAlgorithm a : AlgorithmCatalog.all()) {
            String line = r.out().lines().filter(l -> l.startsWith("  " + a.name() + " ") && l.contains(a.summary()))
                    .findFirst().orElseThrow(() -> new AssertionError("no line for " + a.collective() + "/" + a.name()));
            assertTrue(line.contains(a.seed()), line);
            assertEquals(AlgorithmCatalog.isBaseline(a), line.contains("(baseline, never auto)"), line);
        }
        CliRun one = run("list", "bcast");
        assertEquals(0, one.code(), one.err());
        assertEquals(1 + AlgorithmCatalog.of(Collective.BCAST).size(), one.out().lines().count(), one.out());
        usageError("unknown collective 'bogus'", "list", "bogus");
    }

    @ParameterizedTest
    @ValueSource(strings = {"allreduce", "reduce-scatter", "reduce", "bcast", "allgather", "barrier", "copy", "topo",
            "tune", "explain", "list"})
    void helpWorksOnEverySubcommand(String sub) {
        for (String flag : new String[]{"-h", "--help"}) {
            CliRun r = run(sub, flag);
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().startsWith("Usage: collbench " + sub), r.out());
        }
    }

    /** The newer dtypes and ops through every algorithm of each reducing collective, validated (-c) against the reference. */
    @ParameterizedTest
    @ValueSource(strings = {"allreduce:f16:avg", "reduce:bf16:sum", "reduce-scatter:u32:max", "allreduce:f64_i64:minloc",
            "scan:u64:avg", "exscan:i32_i32:maxloc", "reduce-scatter-v:f32:avg"})
    void newDtypesAndOpsValidateOnEveryAlgorithm(String spec) {
        String[] f = spec.split(":");
        CliRun r = run(f[0], "-t", "3", "-m", "8:4K", "-a", "all", "-d", f[1], "-o", f[2], "-c", "-i", "10", "-x", "3",
                "-r", "1", "--format", "csv");
        assertEquals(0, r.code(), r.err() + "\n" + r.out());
        List<String> rows = r.out().lines().filter(l -> l.startsWith(f[0] + ",")).toList();
        assertTrue(rows.size() >= 3, r.out());
        assertTrue(rows.stream().allMatch(l -> CliRun.checkedCsv(l)), r.out());
    }

    @Test
    void badInputOfEveryKindIsExit2WithOneLineAndUsage(@TempDir Path dir) throws IOException {
        usageError("unknown allreduce algorithm 'nope'", "allreduce", "-t", "2", "-a", "nope");
        usageError("unknown allreduce algorithm 'nope'", "allreduce", "-t", "2", "-a", "direct,nope");
        usageError("empty algorithm name in 'direct,,push'", "allreduce", "-t", "2", "-a", "direct,,push");
        usageError("unknown dtype 'f17'", "allreduce", "-t", "2", "-d", "f17");
        usageError("unknown op 'mean'", "allreduce", "-t", "2", "-o", "mean");
        usageError("unknown op 'user'", "allreduce", "-t", "2", "-o", "user");
        usageError("op minloc is not defined for dtype f64", "allreduce", "-t", "2", "-o", "minloc");
        usageError("op sum is not defined for dtype f32_i32", "reduce", "-t", "2", "-d", "f32_i32");
        usageError("op band is not defined for dtype bf16", "scan", "-t", "2", "-d", "bf16", "-o", "band");
        usageError("op bxor is not defined for dtype f64", "allreduce", "-t", "2", "-o", "bxor");
        usageError("--root 2 is out of range for 2 ranks", "bcast", "-t", "2", "-r", "2");
        usageError("--root 5 is out of range for 2 ranks", "reduce", "-t", "2", "-r", "5");
        usageError("size range MIN > MAX: 1K > 8", "allgather", "-t", "2", "-m", "1K:8");
        usageError("malformed size '12Q'", "reduce-scatter", "-t", "2", "-m", "12Q");
        usageError("--threads must be >= 1, got 0", "allreduce", "-t", "0");
        usageError("--threads must be >= 1, got -3", "explain", "allreduce", "-t", "-3");
        usageError("unknown collective 'gathr'", "explain", "gathr", "-t", "2");
        usageError("unknown collective or command 'gathr'", "gathr", "-t", "2");
        usageError("Unknown option: '--frobnicate'", "barrier", "--frobnicate");
        usageError("Unmatched argument", "allreduce", "extra");
        usageError("--plot", "allreduce", "-t", "2", "--plot", dir.resolve("x.svg").toString());
        usageError("--repeat must be >= 1", "tune", "--repeat", "0");
        // unreadable profiles: missing file, bad JSON, missing field, negative field
        Path missing = dir.resolve("none.json");
        usageError("profile " + missing + ": cannot read", "allreduce", "-t", "2", "--profile", missing.toString());
        usageError("profile " + missing + ": cannot read", "explain", "bcast", "-t", "2", "--profile", missing.toString());
        Path json = dir.resolve("bad.json");
        Files.writeString(json, "{\"lineLatencySameL3\": 1e-7,");
        usageError("profile " + json + ": bad JSON", "bcast", "-t", "2", "--profile", json.toString());
        String good = MachineModel.defaults(Topology.host()).toProfileJson(Map.of());
        Files.writeString(json, good.replace("\"memoryBandwidth\"", "\"memBW\""));
        usageError("profile " + json + ": field 'memoryBandwidth' is missing", "barrier", "-t", "2", "--profile", json.toString());
        Files.writeString(json, good.replaceFirst("\"copyBandwidthCached\": [0-9.e+]+", "\"copyBandwidthCached\": -1"));
        usageError("profile " + json + ": field 'copyBandwidthCached' must be > 0", "allgather", "-t", "2", "--profile",
                json.toString());
    }

    @Test
    void profileIsUsedAndNamedInTheJsonHeaderWhichDescribesTheRun(@TempDir Path dir) throws IOException {
        Path prof = dir.resolve("p.json");
        Files.writeString(prof, MachineModel.defaults(Topology.host()).toProfileJson(Map.of()));
        CliRun r = run("allreduce", "-t", "2", "-m", "64:64", "-i", "5", "-x", "1", "--format", "json", "--profile", prof.toString());
        assertEquals(0, r.code(), r.err());
        String header = r.out().lines().findFirst().orElseThrow();
        for (String key : new String[]{"\"machine\":", "\"topology\":", "\"jdk\":\"JDK ", "\"version\":", "\"topologySummary\":"}) {
            assertTrue(header.contains(key), key + " missing in " + header);
        }
        assertTrue(header.contains("\"model\":\"profile " + prof + "\""), header);
        assertTrue(header.contains("\"commandLine\":\"collbench allreduce -t 2 -m 64"), header);
        CliRun e = run("explain", "allreduce", "-t", "2", "-m", "8:16", "--profile", prof.toString());
        assertEquals(0, e.code(), e.err());
        assertTrue(e.out().contains("model: profile " + prof), e.out());
    }

    @Test
    void explainListsEverySelectableAlgorithmPerSizeAndMarksOnePick() {
        CliRun r = run("explain", "allreduce", "-t", "3", "-m", "8:1M", "-d", "f32");
        assertEquals(0, r.code(), r.err());
        // table rows are "bytes algorithm predicted_us"; indented lines under a row name the cost's terms
        List<String> rows = r.out().lines().filter(l -> !l.startsWith("#") && l.trim().matches("\\d+\\s+\\S+\\s+[0-9.]+.*")).toList();
        int from = 0;
        for (int s = 0; s < 18; s++) {
            long bytes = 8L << s;
            // every non-baseline algorithm that supports the call (flat: only vectors that fit a flag line)
            long selectable = AlgorithmCatalog.of(Collective.ALLREDUCE).stream().filter(a -> !AlgorithmCatalog.isBaseline(a)
                    && a.supports(3, bytes / 4, DType.F32, Op.SUM)).count();
            List<String> size = rows.subList(from, (int) Math.min(rows.size(), from + selectable));
            from += (int) selectable;
            assertTrue(size.stream().allMatch(l -> l.trim().startsWith(bytes + " ")), String.join("\n", size));
            assertEquals(1, size.stream().filter(l -> l.contains("*")).count(), String.join("\n", size));
            for (String l : size) {
                assertTrue(Double.parseDouble(l.trim().split("\\s+")[2]) > 0, l);
            }
        }
        assertEquals(from, rows.size(), r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.contains("cyclicbarrier")), r.out());
    }

    @Test
    void explainMeasureEndsWithTheMedianErrorAndThePickShare() {
        CliRun r = run("explain", "bcast", "-t", "2", "-m", "8:1K", "-i", "20", "-x", "2", "--measure", "--no-calibrate");
        assertEquals(0, r.code(), r.err());
        // --no-calibrate: the check is of the defaults (no profile given), not of a model measured in this run
        assertTrue(r.out().contains("model: defaults for ") && !r.out().contains("# calibrated in this run"), r.out());
        List<String> lines = r.out().lines().toList();
        assertErrorReportConsistent(r.out(), "bcast 2 ranks, defaults for ");
        assertTrue(lines.get(lines.size() - 1).matches("pick within 10% of the measured best: \\d+/8 sizes \\(\\d+%\\)"), r.out());
        assertTrue(r.out().lines().filter(l -> l.matches(".*\\s-?[0-9.]+%$")).count() >= 8, r.out());
    }

    /**
     * The summary line of explain --measure (second to last) is the median and 90th percentile (nearest rank) of the
     * |error| column of its rows, over as many predictions as there are rows, and names the run (starting with
     * {@code what}).
     */
    static void assertErrorReportConsistent(String out, String what) {
        List<String> lines = out.lines().toList();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                "median model error: ([0-9.]+)%, 90th percentile ([0-9.]+)% \\((\\d+) predictions, (.*)\\)").matcher(lines.get(lines.size() - 2));
        assertTrue(m.matches(), out);
        assertTrue(m.group(4).startsWith(what), m.group(4));
        // rows: bytes, algorithm (with marks), predicted, measured, error%
        List<Double> errs = lines.stream().filter(l -> l.trim().matches("\\d+\\s+\\S+\\s+[0-9.]+\\s+[0-9.]+\\s+-?[0-9.]+%"))
                .map(l -> {
                    String[] f = l.trim().split("\\s+");
                    return Math.abs((Double.parseDouble(f[2]) - Double.parseDouble(f[3])) / Double.parseDouble(f[3])) * 100;
                }).sorted().toList();
        assertEquals(errs.size(), Integer.parseInt(m.group(3)), out);
        int n = errs.size();
        double median = n % 2 == 1 ? errs.get(n / 2) : (errs.get(n / 2 - 1) + errs.get(n / 2)) / 2;
        double p90 = errs.get((int) Math.ceil(0.9 * n) - 1);
        // from the printed (rounded) predicted and measured columns: within the rounding of three decimals
        assertEquals(median, Double.parseDouble(m.group(1)), 0.05 + 0.01 * median, out);
        assertEquals(p90, Double.parseDouble(m.group(2)), 0.05 + 0.01 * p90, out);
        assertTrue(Double.parseDouble(m.group(2)) >= Double.parseDouble(m.group(1)), out);
    }

    @Test
    void explainMeasureCalibratesTheModelInItsRunAndPricesTheConsumedResult() {
        CliRun r = run("explain", "allreduce", "-t", "2", "-m", "1K:2K", "-i", "20", "-x", "2", "--measure", "--consume");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        // the tune measurements, as comments, before the table that uses them
        assertTrue(lines.get(0).startsWith("# calibrated in this run ("), r.out());
        // the hand-over between the two cores the run measured: within one LLC where two cores share one, else
        // across LLCs (a guest whose every core has an L3 of its own prints '-' for the same-L3 row)
        String lat = lines.stream().filter(l -> l.matches("#\\s+lineLatency(SameL3|CrossL3)(\\s+[0-9.]+){4}\\s+ns.*")).findFirst()
                .orElseThrow(() -> new AssertionError(r.out()));
        assertTrue(Double.parseDouble(lat.split("\\s+")[2]) > 0, lat);
        assertTrue(r.out().contains("model: calibrated in this run"), r.out());
        // push writes half of each rank's result: its row names the consumed term, counted (--consume)
        assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith("consumed result:") && !l.contains("not counted")), r.out());
        // calibrated: C and the result's read rates from the read probe, the volatile parameters re-measured per row
        assertTrue(lines.stream().anyMatch(l -> l.matches("#\\s+cacheCapacity(\\s+\\d+){4}\\s+bytes.*")), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("#\\s+resultReadBandwidth\\.dram(\\s+[0-9.]+){4}\\s+GB/s.*")), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("#\\s+resultReadFixed(\\s+[0-9.]+){4}\\s+ns.*")), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("#\\s+resultReadBandwidth\\.\\d+MiB(\\s+[0-9.]+){4}\\s+GB/s.*")), r.out());
        // o of the explained collective's own reference call
        assertTrue(lines.stream().anyMatch(l -> l.matches("#\\s+callOverhead.*8-byte dissemination allreduce on .*")), r.out());
        assertEquals(2, lines.stream().filter(l -> l.matches("# re-measured per row \\(\\d+ ms each\\): a_alpha .*")).count(), r.out());
        // each size priced with what the other size's rows fit, and the calibration alone reported beside it
        assertEquals(2, lines.stream().filter(l -> l.startsWith("# fitted to the ") && l.contains(" rows of the other sizes: share of the hand-over ")).count(), r.out());
        assertTrue(lines.stream().anyMatch(l -> l.matches("# the same rows with the calibration alone .*: median [0-9.]+%, 90th percentile [0-9.]+%")), r.out());
        assertErrorReportConsistent(r.out(), "allreduce 2 ranks --consume, calibrated in this run");
        assertTrue(r.out().contains("hand-overs, line pulls and rates fitted to the other sizes' rows)"), r.out());
        assertTrue(lines.get(lines.size() - 1).matches("pick within 10% of the measured best: \\d+/2 sizes \\(\\d+%\\)"), r.out());
    }

    @Test
    void explainMeasureSavesItsCalibrationWithTheFittedValuesAsAProfile(@TempDir Path dir) throws java.io.IOException {
        Path f = dir.resolve("fitted.json");   // in an existing directory: a missing one is refused (BoundedInputTest)
        CliRun r = run("explain", "allreduce", "-t", "2", "-m", "4K:16K", "-i", "20", "-x", "2", "--measure", "--consume",
                "--save-profile", f.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("# wrote " + f + ": this run's calibration, fitted to all "), r.out());
        MachineModel m = MachineModel.load(f);
        String json = java.nio.file.Files.readString(f);
        // 4-16 KiB rows pull lines a peer wrote: the price is fitted and saved, not left at a_alpha/6
        assertTrue(json.contains("\"peerLinePull\"") && json.contains("\"fitted\""), json);
        assertEquals(m.peerLinePull(), m.peerLinePrice());
        assertTrue(m.peerLinePull() >= 0 && m.peerLinePull() <= 15e-9, json);
        // no row beyond a quarter of the L2 or the cache: those are not fitted, and the profile says nothing of them
        assertTrue(Double.isNaN(m.llcRateShare()), json);
        // a team with it prices its picks with it
        CliRun e = run("explain", "allreduce", "-t", "2", "-m", "16K:16K", "--profile", f.toString());
        assertEquals(0, e.code(), e.err());
        assertTrue(e.out().contains("model: profile " + f), e.out());
        usageError("--save-profile needs --measure with the calibration in this run (not --no-calibrate)", "explain", "allreduce",
                "-t", "2", "--measure", "--no-calibrate", "--save-profile", f.toString());
        usageError("--save-profile needs --measure with the calibration in this run (not without --measure)", "explain",
                "allreduce", "-t", "2", "--save-profile", f.toString());
    }

    @Test
    void tuneWritesAProfileThatLoadsAndPrintsSpreads(@TempDir Path dir) {
        Path out = dir.resolve("prof.json");   // in an existing directory: a missing one is refused (BoundedInputTest)
        CliRun r = run("tune", "--quick", "--output", out.toString());
        assertEquals(0, r.code(), r.err());
        MachineModel m = MachineModel.load(out);
        assertTrue(m.copyBandwidthCached() > 0 && m.lineLatencySameL3() > 0);
        // model, min, median, max: the model takes the best repetition (the highest bandwidth, the lowest latency)
        String[] bw = r.out().lines().filter(l -> l.matches("copyBandwidthStream(\\s+[0-9.]+){4}\\s+GB/s")).findFirst()
                .orElseThrow(() -> new AssertionError(r.out())).split("\\s+");
        assertEquals(bw[1], bw[4], r.out());
        assertEquals(Double.parseDouble(bw[1]), m.copyBandwidthStream() / 1e9, 0.01, r.out());
        String[] lat = r.out().lines().filter(l -> l.startsWith("lineLatencySameL3 ")).findFirst()
                .orElseThrow(() -> new AssertionError(r.out())).split("\\s+");
        assertTrue(lat[2].equals("-") || lat[1].equals(lat[2]), r.out());     // "-": one PU, the default
        assertTrue(r.out().contains("reduceBandwidth.i32.cached"), r.out());
        // this machine has one package: the cross-package latency is the default, and the output says so
        Topology host = Topology.host();
        if (host.packages().size() == 1) {
            assertTrue(r.out().contains("lineLatencyCrossPackage: one package on this machine: kept the default"), r.out());
            assertEquals(MachineModel.defaults(host).lineLatencyCrossPackage(), m.lineLatencyCrossPackage());
        }
        assertTrue(r.out().contains("# wrote " + out), r.out());
    }

    @Test
    void coldRotatesBuffersAndStillValidates() {
        CliRun r = run("allreduce", "-t", "2", "-m", "8:16", "-i", "30", "-x", "2", "-c", "--cold", "-a", "all", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().lines().skip(1).allMatch(l -> CliRun.checkedCsv(l)), r.out());
        CliRun b = run("bcast", "-t", "2", "-m", "4K:4K", "-i", "10", "-x", "1", "-c", "--cold", "-r", "1", "--format", "json");
        assertEquals(0, b.code(), b.err());
        assertTrue(b.out().lines().findFirst().orElseThrow().contains("\"cold\":true"), b.out());
    }

    /** {@code -a a,b,auto}: the named algorithms side by side, in the order given, each once. */
    @Test
    void algorithmListRunsEachNameInOrder() {
        CliRun r = run("allreduce", "-t", "2", "-m", "8:16", "-i", "20", "-x", "1", "-c", "-a", "push,DIRECT,auto,push", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        // the CSV names the algorithm auto chose (a latency algorithm at 8 and 16 bytes)
        List<String> algs = r.out().lines().skip(1).map(l -> l.split(",")[1]).toList();
        assertEquals(6, algs.size(), r.out());
        assertEquals(List.of("push", "direct"), algs.subList(0, 2), r.out());
        assertEquals(List.of("push", "direct"), algs.subList(3, 5), r.out());
        assertTrue(!algs.get(2).equals("auto") && !algs.get(2).equals("push"), r.out());
    }

    /**
     * {@code --alternate}: per size one row per contender in {@code -a} order, each with all its iterations;
     * {@code barrier} is the team's barrier beside the collective (a barrier row at that size, no bandwidth).
     */
    @Test
    void alternateMeasuresEveryContenderOfASizeWithTheBarrierBeside() {
        CliRun r = run("allreduce", "-t", "3", "-m", "8:1K", "-i", "40", "-x", "2", "-a", "push,barrier,direct", "--alternate",
                "--consume", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        List<String[]> rows = r.out().lines().skip(1).map(l -> l.split(",")).toList();
        assertEquals(3 * 8, rows.size(), r.out());
        for (int i = 0; i < rows.size(); i += 3) {
            assertEquals(List.of("push", "barrier", "direct"), List.of(rows.get(i)[1], rows.get(i + 1)[1], rows.get(i + 2)[1]), r.out());
            assertEquals("barrier", rows.get(i + 1)[0], r.out());
            assertEquals(rows.get(i)[3], rows.get(i + 1)[3], "the barrier row carries its size: " + r.out());
        }
        String header = r.out().lines().findFirst().orElseThrow();
        int iterations = List.of(header.split(",")).indexOf("iterations");
        int busbw = List.of(header.split(",")).indexOf("busbw_GBps");
        assertTrue(rows.stream().allMatch(x -> Long.parseLong(x[iterations]) == 40), r.out());
        assertTrue(rows.stream().filter(x -> x[1].equals("barrier")).allMatch(x -> Double.parseDouble(x[busbw]) == 0), r.out());
        CliRun j = run("reduce", "-t", "2", "-m", "64:64", "-i", "20", "-x", "1", "-a", "auto,barrier", "--alternate", "--format", "json");
        assertEquals(0, j.code(), j.err());
        assertTrue(j.out().lines().findFirst().orElseThrow().contains("\"alternate\":true"), j.out());
        assertEquals(2, j.out().lines().filter(l -> l.startsWith("{\"type\":\"row\"")).count(), j.out());
        // without --alternate the barrier is one more row, measured after the others
        CliRun seq = run("bcast", "-t", "2", "-m", "8", "-i", "20", "-x", "1", "-a", "barrier,auto", "-c", "--format", "csv");
        assertEquals(0, seq.code(), seq.err());
        assertTrue(seq.out().lines().skip(1).allMatch(l -> CliRun.checkedCsv(l) || l.startsWith("barrier,")), seq.out());
    }

    /** What {@code --alternate} cannot do is refused before anything runs. */
    @Test
    void alternateRefusesPerCallTimingAndTheBarrierBesideItself() {
        // checking is one call after the timed batches: --alternate checks too
        CliRun checked = run("allreduce", "-t", "2", "-m", "8:8", "-i", "20", "-x", "1", "-a", "auto,barrier", "--alternate", "-c",
                "--format", "csv");
        assertEquals(0, checked.code(), checked.err());
        assertTrue(checked.out().lines().skip(1).filter(l -> !l.startsWith("barrier,")).allMatch(CliRun::checkedCsv), checked.out());
        usageError("--alternate", "allreduce", "-t", "2", "-m", "8", "--alternate", "--percentiles", "50");
        usageError("--alternate", "allreduce", "-t", "2", "-m", "8", "--alternate", "--overlap", "5");
        usageError("barrier", "barrier", "-t", "2", "-a", "barrier");
    }

    /** Requested sizes that round to the same shape are measured once: allgather 8:32 at p = 2 is 16 and 32 B. */
    @Test
    void sizesThatRoundAlikeAreMeasuredOnce() {
        CliRun r = run("allgather", "-t", "2", "-m", "8:32", "-i", "20", "-x", "1", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        List<String> bytes = r.out().lines().skip(1).map(l -> l.split(",")[3]).toList();
        assertEquals(List.of("16", "32"), bytes, r.out());
    }

    /** {@code --consume} reads every result after each call: still valid, for every collective shape, and said in the header. */
    @Test
    void consumeReadsResultsAndStillValidates() {
        for (String c : new String[]{"allreduce", "reduce", "bcast", "reduce-scatter", "allgather"}) {
            CliRun r = run(c, "-t", "2", "-m", "8:64K", "-i", "20", "-x", "1", "-c", "--consume", "--cold", "-a", "all", "--format", "csv");
            assertEquals(0, r.code(), c + ": " + r.err());
            assertTrue(r.out().lines().skip(1).allMatch(l -> CliRun.checkedCsv(l)), r.out());
        }
        CliRun j = run("allreduce", "-t", "2", "-m", "1K:1K", "-i", "20", "-x", "1", "--consume", "--format", "json");
        assertEquals(0, j.code(), j.err());
        assertTrue(j.out().lines().findFirst().orElseThrow().contains("\"consume\":true"), j.out());
    }

    @Test
    void checkPlacementReportsEveryRank() {
        CliRun r = run("allgather", "-t", "2", "-m", "1M:1M", "-i", "3", "-x", "1", "--check-placement");
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.err().lines().filter(l -> l.startsWith("placement:")).toList();
        if (!Hwloc.isAvailable()) {   // without hwloc collbench says so in one line; the per-rank check cannot run
            assertEquals(1, lines.size(), r.err());
            assertTrue(lines.getFirst().contains("hwloc not available"), r.err());
        }
        assumeTrue(Hwloc.isAvailable(), "skipped: reading page locations back needs hwloc: " + Hwloc.unavailableReason());
        assertEquals(2, lines.size(), r.err());
        for (String l : lines) {
            // one NUMA node here: every touched page is local
            assertTrue(l.endsWith(": local"), l);
            assertTrue(l.contains(" send 1048576 B on node(s) [") && l.contains(" recv 1048576 B on node(s) ["), l);
        }
    }

    @Test
    void plotWritesAPng(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("ar.png");
        CliRun r = run("allreduce", "-t", "2", "-m", "8:4K", "-i", "10", "-x", "1", "-a", "all", "--plot", png.toString(),
                "--format", "csv");
        assertEquals(0, r.code(), r.err());
        byte[] b = Files.readAllBytes(png);
        assertTrue(b.length > 5000, "png of " + b.length + " bytes");
        assertEquals((byte) 0x89, b[0]);
        assertEquals('P', b[1]);
        assertEquals("", Plot.sizeLabel(3.5));
        assertEquals("64M", Plot.sizeLabel(26.0));
        assertEquals("1K", Plot.sizeLabel(10.0));
        assertEquals("8", Plot.sizeLabel(3.0));
    }
}
