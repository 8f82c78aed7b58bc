package io.coll4j.cli;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;

import io.coll4j.internal.TeamInternals;
import io.coll4j.Collective;
import io.coll4j.Team;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** The collective subcommands of the CLI contract (docs/design.md): {@code allreduce reduce-scatter reduce bcast allgather barrier}. */
final class CollectiveCommands {
    private CollectiveCommands() {
    }

    /** Options every collective benchmark takes (the shared ones in {@link RunOptions}). */
    abstract static class Base implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Mixin
        RunOptions run = new RunOptions();

        @Option(names = {"-a", "--algorithm"}, paramLabel = "NAME[,NAME...]", defaultValue = "auto",
                description = "algorithms side by side: names, 'auto' (the model's choice, default), or 'all' (see 'collbench list')")
        String algorithm;

        @Option(names = {"-c", "--check", "--validate"}, arity = "0..1", paramLabel = "0|1", defaultValue = "1", fallbackValue = "1",
                description = "check each row's result against the scalar reference, outside the timed loop (nccl-tests' -c; "
                        + "default on; -c 0 or --no-check: off); exit 1 if anything is wrong")
        String check;

        @Option(names = "--no-check", description = "do not check results (the same as -c 0)")
        boolean noCheck;

        /** Whether rows are checked: on unless -c 0 / --no-check. */
        boolean validate;

        @CommandLine.Mixin
        FormatOption format = new FormatOption();

        @CommandLine.Mixin
        OutputFileOption output = new OutputFileOption();

        @Option(names = "--percentiles", paramLabel = "P,P", split = ",",
                description = "per-iteration percentiles, e.g. 50,99: adds p50_us,p99_us after max_us (times every iteration)")
        List<Integer> percentiles = new ArrayList<>();

        @Option(names = "--check-placement", description = "read back with hwloc where each rank's buffer pages live; warn on pages off the rank's NUMA node")
        boolean checkPlacement;

        @Option(names = "--plot", paramLabel = "FILE.png", description = "also draw latency (log-log) and busbw against message size, one series per algorithm label (auto as one), into a PNG")
        Path plot;

        @Option(names = "--nonblocking", description = "also measure the non-blocking form, rank.i<collective>(...).await() (e.g. iallreduce), as algorithm 'nonblocking'")
        boolean nonblocking;

        @Option(names = "--persistent", description = "also measure the persistent form, start(); await() of a request bound once, as algorithm 'persistent'")
        boolean persistent;

        @Option(names = "--overlap", paramLabel = "US|auto",
                description = "overlap measurement instead of the sweep: every rank posts the non-blocking form; the last rank computes for "
                        + "US microseconds (auto: the measured blocking time A), the others wait at once; reports C, A and T "
                        + "(the computing rank's post-to-completion time; adds CSV columns compute_us,blocking_us,overlap_us)")
        String overlap;

        @Option(names = "--alternate", description = "measure the -a algorithms of each size in turns, one batch each, back to back "
                + "(A B A B ...), so each sees the same minutes of a noisy machine; '-a auto,barrier' puts the team's barrier beside "
                + "the collective (not with -c or --percentiles)")
        boolean alternate;

        @CommandLine.Mixin
        JfrOption jfr = new JfrOption();

        abstract Collective collective();

        @Override
        public Integer call() throws Exception {
            // --processes N: this process (0) starts the others, which run the same command as processes 1 .. N-1
            ProcessChildren children = ProcessChildren.start(run.spanning(), spec);
            int rc;
            try (AutoCloseable recording = jfr.start()) {
                rc = measure();
            } finally {
                if (children != null) {
                    children.finish(spec.commandLine().getErr());
                }
            }
            return rc == 0 && children != null && children.anyFailed() ? 1 : rc;
        }

        private Integer measure() throws IOException {
            Collective c = collective();
            if (c == Collective.BARRIER) {
                // a barrier has no data: these would be silently ignored, so they are refused
                for (String flag : new String[]{"-d", "-o", "-m", "-b", "-e", "-f", "-r"}) {
                    if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                        throw new IllegalArgumentException("barrier moves no data: " + spec.findOption(flag).longestName()
                                + " (" + flag + ") does not apply to it");
                    }
                }
            }
            validate = !noCheck && switch (check.strip().toLowerCase(java.util.Locale.ROOT)) {
                case "1", "true", "on", "yes" -> true;
                case "0", "false", "off", "no" -> false;
                default -> throw new IllegalArgumentException("-c/--check takes 0 or 1 (as nccl-tests), got '" + check + "'");
            };
            RunOptions.Setup setup = run.resolve(c);
            OutputFormat fmt = format.format();
            for (int p : percentiles) {
                if (p <= 0 || p > 100) {
                    throw new IllegalArgumentException("percentile " + p + " is outside 1..100");
                }
            }
            if (alternate && overlap != null) {
                throw new IllegalArgumentException("--alternate measures the sweep's contenders in turns; --overlap measures no sweep");
            }
            if (alternate && !percentiles.isEmpty()) {
                throw new IllegalArgumentException("--alternate times batches of calls in turns; --percentiles times every call alone");
            }
            if (plot != null && c == Collective.BARRIER) {
                throw new IllegalArgumentException("--plot draws busbw against size; a barrier has neither");
            }
            if (plot != null && !plot.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".png")) {
                throw new IllegalArgumentException("--plot " + plot + ": the file name must end in .png");
            }
            int p = setup.threads();
            List<String> algs = new ArrayList<>(CollectiveBenchmark.algorithms(c, algorithm));
            if (algorithm.equalsIgnoreCase("all")) {
                // 'all' means all that can run this dtype and op (the baselines take no pair dtypes)
                algs.removeIf(name -> AlgorithmCatalog.of(c).stream().anyMatch(a -> a.name().equals(name)
                        && !a.supports(p, 1, setup.dtype(), c.reduces() ? setup.op() : null)));
                if (c.reduces() && setup.op() == io.coll4j.reductions.Op.AVG) {
                    algs.remove(io.coll4j.kernel.algo.allgather.SharedViewAllgather.NAME);   // allreduceShared has no AVG
                }
            }
            if (nonblocking) {
                algs.add(CollectiveBenchmark.NONBLOCKING);
            }
            if (persistent) {
                algs.add(CollectiveBenchmark.PERSISTENT);
            }
            // everything that can be refused is refused before a byte is measured or written (-t: in resolve)
            long largest = 0;
            for (long s : setup.sizes(c)) {
                CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                largest = Math.max(largest, Math.max(sh.sendBytes(), sh.recvBytes()));
                if (!percentiles.isEmpty()) {
                    // timed one by one into a histogram: no samples kept, but the loop counts in an int
                    Resources.samples("--iterations", run.iterationsFor(sh.bytes()), 0);
                }
            }
            // a send and a receive buffer per rank (native, and on the heap for the baseline)
            Resources.nativeMemory("-m " + largest + " bytes on " + p + " ranks",
                    largest > Long.MAX_VALUE / 4 / p ? -1 : 4L * p * largest);
            output.checkWritable();
            if (plot != null) {
                Resources.writableFile("--plot", plot);
            }
            if (overlap != null) {
                return OverlapBenchmark.run(this, c, setup, fmt, algs);
            }

            PrintWriter out = output.open(spec.commandLine().getOut());
            boolean complete = false;
            PrintWriter err = spec.commandLine().getErr();
            List<BenchRow> rows = new ArrayList<>();
            long wrong = 0;
            long misplaced = 0;
            try (Team team = setup.team(run.timeout()).build()) {
                boolean spans = team.processes() > 1;
                boolean hierarchical = algs.stream().allMatch(a -> a.equals("auto") || a.equals(CollectiveBenchmark.BARRIER_CONTENDER)
                        || a.equals(CollectiveBenchmark.NONBLOCKING) || a.equals(CollectiveBenchmark.PERSISTENT)
                        || (CollectiveBenchmark.hasSharedView(c) && a.equals(SharedViewAllgather.NAME)));
                if (spans && !hierarchical) {
                    throw new IllegalArgumentException("--mpi or --processes over " + team.processes() + " processes runs the hierarchical "
                            + "algorithms (leader, multi-leader; -a shared-view for allgather and allreduce, -a barrier beside them): no other -a");
                }
                long maxBytes = 0;
                for (long s : setup.sizes(c)) {
                    CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), team.globalSize());
                    maxBytes = Math.max(maxBytes, Math.max(sh.sendBytes(), sh.recvBytes()));
                }
                CollectiveBenchmark bench = run.configure(new CollectiveBenchmark(c, setup.dtype(), setup.op(), setup.root(),
                        validate, percentiles, maxBytes, p, run.cold ? setup.model().cacheCapacity() : 0));
                // one table for the job, from global rank 0; the other processes measure silently
                RowWriter w = RowWriter.of(fmt, team.processIndex() == 0 ? out
                        : new PrintWriter(java.io.OutputStream.nullOutputStream()), percentiles);
                w.begin(header(c, team, setup));
                warmUpTheJit(c, team, setup, run, bench, algs);
                boolean placementChecked = false;
                for (long s : setup.sizes(c)) {
                    CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), team.globalSize());
                    String pick = spans ? Hierarchical.name(team, c, sh.bytes())
                            : TeamInternals.selector(team).choose(c, p, sh.callCount(), setup.dtype(), c.reduces() ? setup.op() : null,
                            sh.bytes()).name();
                    long iters = run.iterationsFor(sh.bytes());
                    long warm = run.warmupFor(iters);
                    // one row per (size, algorithm): with -a auto,push a size where auto picks push has the one row
                    // auto→push, in auto's place in the -a order
                    boolean autoAsked = algs.contains("auto");
                    List<String> names = algs.stream().map(a -> a.equals("auto") ? pick : a).distinct().toList();
                    java.util.function.Function<String, String> label = name -> autoAsked && name.equals(pick)
                            ? BenchRow.autoLabel(name) : name;
                    if (alternate) {
                        for (BenchRow row : bench.measureAlternated(team, s, names, pick, iters, warm)) {
                            row = row.withLabel(label.apply(row.algorithm()));
                            wrong += Math.max(0, row.allWrong());
                            w.row(row);
                            rows.add(row);
                        }
                        continue;
                    }
                    for (String name : names) {
                        BenchRow row = bench.measure(team, s, name, name.equals(pick), iters, warm).withLabel(label.apply(name));
                        if (bench.hasInPlace(name) && !spans) {
                            row = row.withInPlace(bench.measureInPlace(team, s, name, iters, warm));
                        }
                        wrong += Math.max(0, row.allWrong());
                        w.row(row);
                        rows.add(row);
                        if (checkPlacement && !placementChecked && bench.hasNativeBuffers()) {
                            misplaced = bench.checkPlacement(team, err);
                            placementChecked = true;
                        }
                    }
                }
                w.end();
                if (!team.contentionReport().isEmpty()) {
                    // never silently another path: the rows above ran (partly) with a rank on a contended core
                    w.addNote("# contention: " + team.contentionReport() + "; a contended rank whose peers' cores were free "
                            + "spun up to ~1 ms before parking (--wait spin: no detection)");
                }
                w.summary(rows, team.processIndex() == 0 ? err : new PrintWriter(java.io.OutputStream.nullOutputStream()));
                if (checkPlacement && !placementChecked) {
                    err.println(spec.name() + ": placement: no native buffers to check (only the heap baseline ran)");
                }
                complete = true;
            } finally {
                output.close(out, complete);
            }
            if (plot != null) {
                Plot.busbw(plot, rows.stream().filter(r -> !r.algorithm().equals(CollectiveBenchmark.BARRIER_CONTENDER)).toList(),
                        c, p, setup.topology());
                err.println(spec.name() + ": wrote plot " + plot);
            }
            if (misplaced > 0) {
                err.println(spec.name() + ": placement: " + misplaced + " rank buffers are not (only) on their rank's NUMA node");
            }
            if (wrong > 0) {
                err.println(spec.name() + ": validation failed: " + wrong + " wrong elements");
                return Errors.VALIDATION_FAILED;
            }
            return 0;
        }

        Map<String, Object> header(Collective c, Team team, RunOptions.Setup setup) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("collective", c.cliName());
            h.put("threads", team.globalSize());
            h.put("processes", team.processes());
            h.put("layout", Hierarchical.layout(team));
            h.put("transport", team.transport());
            h.put("placement", team.placement().describe());
            h.put("topology", setup.topology().source());
            h.put("topologySummary", setup.topology().summary());
            h.put("machine", machine());
            h.put("jdk", "JDK " + Runtime.version());
            h.put("version", Version.coll4j());
            h.put("wait", team.waitStrategy().alias());
            h.put("model", TeamInternals.model(team).source());
            h.put("cold", run.cold);
            h.put("heap", run.heap);
            h.put("consume", run.consume);
            h.put("alternate", alternate);
            h.put("commandLine", "collbench " + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
            h.put("check", validate);
            h.put("warmup", run.warmup == null ? "steady state: at least " + CollectiveBenchmark.JIT_WARMUP_CALLS
                    + " calls (at most " + CollectiveBenchmark.DEFAULT_WARMUP_BUDGET_NANOS / 1_000_000 + " ms), then batches until "
                    + CollectiveBenchmark.STEADY_BATCHES + " in a row are within "
                    + Math.round(CollectiveBenchmark.STEADY_TOLERANCE * 100) + "% with the JIT and GC idle for "
                    + JitQuiet.QUIET_NANOS / 1_000_000 + " ms, at most "
                    + CollectiveBenchmark.STEADY_CAP_NANOS / 1_000_000 + " ms a row" : run.warmup + " calls (-x)");
            double load = loadAverage();
            int cpus = Runtime.getRuntime().availableProcessors();
            h.put("loadAverage", load);
            h.put("cpus", cpus);
            h.put("busy", load > cpus);
            return h;
        }
    }

    /** The 1-minute load average (-1 where the OS does not report it). */
    static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** CPU model and core count, from /proc/cpuinfo where available. */
    static String machine() {
        String model = System.getProperty("os.arch");
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    model = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: keep os.arch
        }
        return model + ", " + Runtime.getRuntime().availableProcessors() + " CPUs";
    }

    @Command(name = "allreduce", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark allreduce (every rank gets the reduction of all vectors).")
    static final class Allreduce extends Base {
        @Override
        Collective collective() {
            return Collective.ALLREDUCE;
        }
    }

    @Command(name = "reduce-scatter", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark reduce-scatter (rank i gets block i of the reduction).")
    static final class ReduceScatter extends Base {
        @Override
        Collective collective() {
            return Collective.REDUCE_SCATTER;
        }
    }

    @Command(name = "reduce", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark reduce (the root gets the reduction of all vectors).")
    static final class Reduce extends Base {
        @Override
        Collective collective() {
            return Collective.REDUCE;
        }
    }

    @Command(name = "bcast", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark bcast (every rank gets the root's vector).")
    static final class Bcast extends Base {
        @Override
        Collective collective() {
            return Collective.BCAST;
        }
    }

    @Command(name = "allgather", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark allgather (every rank gets every rank's block).")
    static final class Allgather extends Base {
        @Override
        Collective collective() {
            return Collective.ALLGATHER;
        }
    }

    @Command(name = "barrier", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark barrier (bytes and count are 0).")
    static final class Barrier extends Base {
        @Override
        Collective collective() {
            return Collective.BARRIER;
        }
    }

    // ---- the rest of the MPI vocabulary ----

    @Command(name = "gather", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark gather (the root gets every rank's block). Bytes: the root's whole receive buffer, p blocks (nccl-tests' gather); busbw = algbw·(p−1)/p.")
    static final class Gather extends Base {
        @Override
        Collective collective() {
            return Collective.GATHER;
        }
    }

    @Command(name = "scatter", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark scatter (rank j gets block j of the root's buffer). Bytes: the root's whole send buffer, p blocks (nccl-tests' scatter); busbw = algbw·(p−1)/p.")
    static final class Scatter extends Base {
        @Override
        Collective collective() {
            return Collective.SCATTER;
        }
    }

    @Command(name = "gatherv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark gatherv. Bytes: the root's whole receive buffer, N elements split unevenly: block j holds floor(N(j+1)²/p²) − floor(Nj²/p²) (rank 0 smallest, the last about 2N/p), packed in rank order; busbw = algbw·(p−1)/p.")
    static final class Gatherv extends Base {
        @Override
        Collective collective() {
            return Collective.GATHERV;
        }
    }

    @Command(name = "scatterv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark scatterv. Bytes: the root's whole send buffer, split unevenly as for gatherv; busbw = algbw·(p−1)/p.")
    static final class Scatterv extends Base {
        @Override
        Collective collective() {
            return Collective.SCATTERV;
        }
    }

    @Command(name = "allgatherv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark allgatherv. Bytes: every rank's whole receive buffer (nccl-tests' allgather), split unevenly as for gatherv; busbw = algbw·(p−1)/p.")
    static final class Allgatherv extends Base {
        @Override
        Collective collective() {
            return Collective.ALLGATHERV;
        }
    }

    @Command(name = "reduce-scatter-v", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark reduce-scatter with per-rank counts. Bytes: every rank's whole send buffer (nccl-tests' reduce-scatter), blocks split unevenly as for gatherv; busbw = algbw·(p−1)/p.")
    static final class ReduceScatterV extends Base {
        @Override
        Collective collective() {
            return Collective.REDUCE_SCATTER_V;
        }
    }

    @Command(name = "alltoall", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark alltoall. Bytes: a rank's whole send buffer, p blocks (nccl-tests' alltoall); busbw = algbw·(p−1)/p.")
    static final class Alltoall extends Base {
        @Override
        Collective collective() {
            return Collective.ALLTOALL;
        }
    }

    @Command(name = "alltoallv", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark alltoallv. Bytes: a rank's whole send buffer of N elements; rank r sends block (j + r) mod p of the uneven gatherv split to rank j, so every rank sends and receives N; busbw = algbw·(p−1)/p.")
    static final class Alltoallv extends Base {
        @Override
        Collective collective() {
            return Collective.ALLTOALLV;
        }
    }

    @Command(name = "scan", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark scan (inclusive prefix reduction). Bytes: the vector; busbw = algbw.")
    static final class Scan extends Base {
        @Override
        Collective collective() {
            return Collective.SCAN;
        }
    }

    @Command(name = "exscan", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false, description = "Benchmark exscan (exclusive prefix reduction; rank 0's buffer is not written). Bytes: the vector; busbw = algbw.")
    static final class Exscan extends Base {
        @Override
        Collective collective() {
            return Collective.EXSCAN;
        }
    }

    /**
     * An unrecorded pass, before the first timed row, of every algorithm the sweep will run — the {@code -a}
     * names and every algorithm {@code auto} picks at some size — at the first size it runs at, when that
     * size is not bandwidth-bound (at least 1000 timed iterations) and the warm-up is the default one.
     * Otherwise the first rows time the JIT compiling the call path (on two cores the compiler threads take
     * the ranks' CPUs), and the row where {@code auto} switches to a new algorithm times the
     * deoptimisation of the methods it shares with the previous one (their profiles grow a new receiver),
     * as {@code explain} also avoids. Each pass is capped by the default warm-up budget; an algorithm gets up
     * to {@link #MAX_WARM_PASSES} passes, until one ran without the JIT compiling anything, at its first
     * size with an inline message and at its first size without.
     */
    private static void warmUpTheJit(Collective c, Team team, RunOptions.Setup setup, RunOptions run,
                                     CollectiveBenchmark bench, List<String> algs) {
        if (run.warmup != null) {
            return;
        }
        Map<WarmPath, Long> firstSize = new LinkedHashMap<>();
        for (long s : setup.sizes(c)) {
            CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), team.globalSize());
            for (String a : algs) {
                // across processes the sweep runs and warms auto, as it measures it
                String name = team.processes() > 1 ? "auto"
                        : a.equals("auto") ? TeamInternals.selector(team).choose(c, team.size(), sh.callCount(),
                        setup.dtype(), c.reduces() ? setup.op() : null, sh.bytes()).name() : a;
                // an algorithm's inline path (the message in the flag lines) and its buffer path are different
                // code: each is warmed at its first size (the 64 B row, dissemination's first above the inline
                // payload, recompiled CollectiveCall.begin and RankScratch.ensure in its timed batches: 5.6 µs
                // mean beside 0.4 at 128 B)
                firstSize.putIfAbsent(new WarmPath(name, io.coll4j.kernel.algo.Transfers.inline(sh.bytes())), s);
            }
        }
        firstSize.forEach((path, s) -> {
            String name = path.algorithm();
            long iters = run.iterationsFor(CollectiveBenchmark.Shape.of(c, s, setup.dtype(), team.globalSize()).bytes());
            if (iters >= 1000 && !name.equals(io.coll4j.kernel.algo.baseline.CyclicBarrierBaselines.NAME)) {
                // again while the JIT compiled something during the pass: under load the budget-capped first
                // pass ends before C2 has compiled the path (-Xlog:jit+compilation: 20-65 coll4j compilations
                // inside its timed batches on a loaded 2-CPU machine), and the rest would land in the first row
                for (int pass = 0; pass < MAX_WARM_PASSES; pass++) {
                    long before = jitMillis();
                    bench.measure(team, s, name, false, iters, run.warmupFor(iters));
                    if (!anyProcess(team, before >= 0 && jitMillis() != before)) {
                        break;
                    }
                }
            }
        });
    }

    /**
     * {@code mine} of this process, or of any process of a team that spans several: each process's JIT compiles on
     * its own schedule, and a warm-up pass more in one process than in another was a collective the others never
     * called ({@code mpirun -np 2 collbench allreduce -t 1 --mpi -m 8:64} ended in a CollectiveMismatchException).
     */
    private static boolean anyProcess(Team team, boolean mine) {
        if (team.processes() == 1) {
            return mine;
        }
        long[] any = new long[1];
        team.run(rank -> {
            long[] x = {mine ? 1 : 0};
            rank.allreduce(x, x, io.coll4j.reductions.Op.MAX);
            any[0] = x[0];
        });
        return any[0] != 0;
    }

    /** What {@link #warmUpTheJit} warms once: an algorithm, with inline messages or not. */
    private record WarmPath(String algorithm, boolean inline) {
    }

    /** Passes of {@link #warmUpTheJit} per algorithm at most (each ~0.3 s at a latency-bound size). */
    static final int MAX_WARM_PASSES = 3;

    /** The JIT's total compilation time so far (ms), or -1 when the JVM does not report it. */
    private static long jitMillis() {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        return jit == null || !jit.isCompilationTimeMonitoringSupported() ? -1 : jit.getTotalCompilationTime();
    }
}
