package io.coll4j.cli;

import io.coll4j.Team;
import io.coll4j.WaitStrategy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collbench latency | bw | bibw | multi-lat | neighbor}: the OSU point-to-point micro-benchmarks on thread ranks
 * ({@link P2pBenchmark} has the timing), with OSU's names, default sizes, iterations and window, and the collectives'
 * table / CSV / JSON output. {@code --rounds N} repeats the sweep (a row per round) for side-by-side comparisons.
 */
final class P2pCommands {
    private P2pCommands() {
    }

    /** CSV header of the point-to-point rows, exactly. */
    static final String CSV_HEADER = "test,ranks,bytes,iterations,window,round,latency_us,bandwidth_MBps,valid,eager_limit";

    abstract static class Base implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-m", "--sizes"}, paramLabel = "[MIN:]MAX", description = "bytes per message, K/M/G suffixes, as OSU's -m"
                + " (default: OSU's, 0:4M for latency, 1:4M for bandwidth)")
        String sizes;

        @Option(names = {"-f", "--step-factor"}, paramLabel = "F", description = "each size F times the last (default 2)")
        Long stepFactor;

        @Option(names = {"-i", "-n", "--iterations"}, paramLabel = "N",
                description = "timed iterations (default OSU's: latency 10000, or 1000 above 8K; bandwidth 100, or 20 above 8K)")
        Long iterations;

        @Option(names = {"-x", "-w", "--warmup"}, paramLabel = "N",
                description = "warm-up iterations (default: latency 100000, or 100 above 8K; bandwidth 1000 windows, or 4 above 8K: more than OSU's, for the JIT;"
                        + " above 8K the 8K count runs first on the smallest message of the size's protocol)")
        Long warmup;

        @Option(names = "--rounds", paramLabel = "N", defaultValue = "1", description = "repeat the sweep N times, a row per round (default ${DEFAULT-VALUE})")
        int rounds;

        @Option(names = "--eager-limit", paramLabel = "BYTES", description = "the eager/rendezvous crossover for this run (default: the"
                + " model's, MachineModel.P2P_EAGER_MAX_BYTES): how the crossover is measured")
        String eagerLimit;

        @Option(names = "--wait", paramLabel = "HOW", defaultValue = "auto", description = "auto|spin|yield|backoff|backoff-oversubscribed (default ${DEFAULT-VALUE})")
        String wait;

        @CommandLine.Mixin
        PlacementOptions where = new PlacementOptions();

        @CommandLine.Mixin
        FormatOption format = new FormatOption();

        @Option(names = "--processes", paramLabel = "N",
                description = "span N JVM processes of this host through one shared mapping (collbench starts N - 1 more JVMs"
                        + " itself), -t ranks in each: the messages between ranks of different processes cross the mapping;"
                        + " process 0 (this one) prints the table")
        Integer processes;

        @Option(names = "--mpi", description = "span the processes of an MPI job: run under 'mpirun -np N', -t ranks per process;"
                + " global rank 0 prints the table. On one host the team runs over the shared mapping unless"
                + " COLL4J_MPI_SHARED_MAPPING=0 (-x with mpirun) keeps MPI's messages")
        boolean mpi;

        /** Set by the process that started this one (--processes): INDEX:JOB. */
        @Option(names = "--process-child", hidden = true, paramLabel = "INDEX:JOB")
        String processChild;

        abstract P2pBenchmark.Test test();

        /** Ranks per process with --processes (the team's ranks without). */
        int perProcess() {
            return 2;
        }

        int ranks() {
            if (mpi) {
                return perProcess() * mpiJob("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
            }
            RunOptions.Spanning sp = RunOptions.spanning(processes, processChild);
            return sp == null ? perProcess() : perProcess() * sp.n();
        }

        /** The first of {@code names} that mpirun set (Open MPI's, then the PMI names of MPICH and others). */
        private static int mpiJob(String... names) {
            for (String n : names) {
                String v = System.getenv(n);
                if (v != null) {
                    return Integer.parseInt(v.trim());
                }
            }
            throw new IllegalArgumentException("--mpi: not started by mpirun (none of " + String.join(", ", names)
                    + " is set); run 'mpirun -np N collbench " + "... --mpi'");
        }

        int window() {
            return 1;
        }

        @Override
        public Integer call() throws Exception {
            RunOptions.Spanning sp = RunOptions.spanning(processes, processChild);
            // --processes N: this process (0) starts the others, which run the same command as processes 1 .. N-1
            return ProcessChildren.run(sp, spec, () -> measure(sp));
        }

        private int measure(RunOptions.Spanning sp) {
            P2pBenchmark.Test t = test();
            if (mpi && sp != null) {
                throw new IllegalArgumentException("--processes N spans processes without MPI; --mpi spans an mpirun job: pick one");
            }
            SizeRange range = SizeRange.of(sizes, null, null, stepFactor, t.bandwidth() ? "1:4M" : "0:4M");
            if (range.max() > (1L << 30)) {
                throw new IllegalArgumentException("-m: at most 1G per message, got " + SizeRange.format(range.max()));
            }
            if (iterations != null && (iterations < 1 || iterations > 1_000_000_000L)) {
                throw new IllegalArgumentException("--iterations must be 1..10^9, got " + iterations);
            }
            if (warmup != null && (warmup < 0 || warmup > 1_000_000_000L)) {
                throw new IllegalArgumentException("--warmup must be 0..10^9, got " + warmup);
            }
            if (rounds < 1 || rounds > 1000) {
                throw new IllegalArgumentException("--rounds must be 1..1000, got " + rounds);
            }
            int p = ranks();
            if (p < 2 || p > 64 * Runtime.getRuntime().availableProcessors() || (t == P2pBenchmark.Test.MULTI_LAT && p % 2 != 0)) {
                throw new IllegalArgumentException("-t: " + p + " ranks (" + t.cli + " needs an even number >= 2)");
            }
            if (window() < 1 || window() > 10_000) {
                throw new IllegalArgumentException("--window must be 1..10000, got " + window());
            }
            WaitStrategy ws = wait.equals("auto") ? null : WaitStrategy.parse(wait);
            OutputFormat fmt = format.format();
            String previous = System.getProperty("coll4j.p2p.eagerMax");
            if (eagerLimit != null) {
                long e = SizeRange.parseSize(eagerLimit);
                if (e < 40 || e > (64 << 20)) {
                    throw new IllegalArgumentException("--eager-limit must be 40..64M, got " + eagerLimit);
                }
                System.setProperty("coll4j.p2p.eagerMax", Long.toString(e));
            }
            PrintWriter out = spec.commandLine().getOut();
            boolean[] allValid = {true};
            try {
                Team.Builder b = Team.builder().topology(where.topology()).placement(where.placement());
                if (sp != null) {
                    b.processes(sp.n(), sp.index()).name(sp.job());
                }
                if (mpi) {
                    b.mpi();
                }
                boolean first = mpi ? mpiJob("OMPI_COMM_WORLD_RANK", "PMI_RANK") == 0 : sp == null || sp.index() == 0;
                if (first) {
                    header(out, fmt, t, p);
                }
                int local = mpi ? perProcess() : sp == null ? p : p / sp.n();
                new P2pBenchmark(t, p, local, window(), iterations, warmup, ws).run(b, range.sizes(), rounds, row -> {
                    allValid[0] &= row.valid();
                    print(out, fmt, row);
                }, transport -> {
                    if (fmt == OutputFormat.TABLE && mpi) {
                        out.println("# transport: " + transport);
                        out.flush();
                    }
                });
            } finally {
                if (eagerLimit != null) {
                    if (previous == null) {
                        System.clearProperty("coll4j.p2p.eagerMax");
                    } else {
                        System.setProperty("coll4j.p2p.eagerMax", previous);
                    }
                }
            }
            out.flush();
            return allValid[0] ? 0 : Errors.VALIDATION_FAILED;
        }

        private void header(PrintWriter out, OutputFormat fmt, P2pBenchmark.Test t, int p) {
            double[] load = new double[1];
            String la = loadAverage();
            switch (fmt) {
                case CSV -> out.println(CSV_HEADER);
                case JSON -> {
                    Map<String, Object> h = new LinkedHashMap<>();
                    h.put("test", t.cli);
                    h.put("ranks", p);
                    h.put("window", window());
                    h.put("load", la);
                    out.println(Json.write(h));
                }
                default -> {
                    out.printf(Locale.ROOT, "# collbench %s: %d ranks%s, OSU timing (%s), load average %s%n", t.cli, p,
                            t.bandwidth() ? ", window " + window() : "", t.bandwidth()
                                    ? "bytes x window x iterations / elapsed" : t == P2pBenchmark.Test.NEIGHBOR ? "time per call" : "half round trip", la);
                    out.printf(Locale.ROOT, "%5s %12s %10s %14s %16s %6s%n", "round", "bytes", "iters", "latency(us)",
                            "bandwidth(MB/s)", "valid");
                }
            }
            out.flush();
            load[0] = 0;
        }

        private static void print(PrintWriter out, OutputFormat fmt, P2pBenchmark.Row r) {
            switch (fmt) {
                case CSV -> out.printf(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%.3f,%.2f,%b,%d%n", r.test().cli, r.ranks(), r.bytes(),
                        r.iterations(), r.window(), r.round(), r.latencyUs(), r.bandwidthMBps(), r.valid(), r.eagerLimit());
                case JSON -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("test", r.test().cli);
                    m.put("ranks", r.ranks());
                    m.put("bytes", r.bytes());
                    m.put("iterations", r.iterations());
                    m.put("window", r.window());
                    m.put("round", r.round());
                    m.put("latency_us", r.latencyUs());
                    m.put("bandwidth_MBps", r.bandwidthMBps());
                    m.put("valid", r.valid());
                    m.put("eager_limit", r.eagerLimit());
                    out.println(Json.write(m));
                }
                default -> out.printf(Locale.ROOT, "%5d %12d %10d %14.3f %16.2f %6s%n", r.round(), r.bytes(), r.iterations(),
                        r.latencyUs(), r.bandwidthMBps(), r.valid() ? "OK" : "WRONG");
            }
            out.flush();
        }

        private static String loadAverage() {
            try {
                return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
            } catch (java.io.IOException | RuntimeException e) {
                return "?";
            }
        }
    }

    /** The tests of one pair of ranks (OSU's latency, bw, bibw). */
    abstract static class Pair extends Base {
        @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "2", description = "ranks: 2, the pair"
                + " (default ${DEFAULT-VALUE}); with --processes, per process (-t 1 --processes 2: one rank in each of two JVMs)")
        int threads;

        @Override
        int perProcess() {
            return threads;
        }
    }

    @Command(name = "latency", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "osu_latency: ping-pong between ranks 0 and 1 with blocking send/recv; half the round trip per size.")
    static final class Latency extends Pair {
        @Override
        P2pBenchmark.Test test() {
            return P2pBenchmark.Test.LATENCY;
        }
    }

    @Command(name = "bw", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "osu_bw: rank 0 sends a window of isends, rank 1 receives them with irecvs and answers with 4 bytes;"
                    + " MB/s (10^6 bytes) per size.")
    static final class Bw extends Pair {
        @Option(names = {"-W", "--window"}, paramLabel = "N", defaultValue = "64", description = "messages in flight (default ${DEFAULT-VALUE}, OSU's)")
        int window;

        @Override
        P2pBenchmark.Test test() {
            return P2pBenchmark.Test.BW;
        }

        @Override
        int window() {
            return window;
        }
    }

    @Command(name = "bibw", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "osu_bibw: both ranks post a window of irecvs and of isends and wait for all; both directions count.")
    static final class Bibw extends Pair {
        @Option(names = {"-W", "--window"}, paramLabel = "N", defaultValue = "64", description = "messages in flight each way (default ${DEFAULT-VALUE}, OSU's)")
        int window;

        @Override
        P2pBenchmark.Test test() {
            return P2pBenchmark.Test.BIBW;
        }

        @Override
        int window() {
            return window;
        }
    }

    @Command(name = "multi-lat", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "osu_multi_lat: ranks 2k and 2k+1 ping-pong at once; the mean latency over the pairs.")
    static final class MultiLat extends Base {
        @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "ranks, an even number (default: the PUs, at least 2);"
                + " with --processes, per process")
        Integer threads;

        @Override
        P2pBenchmark.Test test() {
            return P2pBenchmark.Test.MULTI_LAT;
        }

        @Override
        int perProcess() {
            if (threads != null) {
                return threads;
            }
            int n = Runtime.getRuntime().availableProcessors();
            return Math.max(2, n - n % 2);
        }
    }

    @Command(name = "neighbor", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "Neighborhood alltoall on a periodic ring: every rank sends a block of the size to each of its two"
                    + " neighbours and receives one from each (Neighborhood.alltoall); the time per call and the MB/s a rank receives.")
    static final class Neighbor extends Base {
        @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "2", description = "ranks on the ring (default ${DEFAULT-VALUE}); with --processes, per process")
        int threads;

        @Override
        P2pBenchmark.Test test() {
            return P2pBenchmark.Test.NEIGHBOR;
        }

        @Override
        int perProcess() {
            return threads;
        }
    }

    @Command(name = "p2p-soak", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "Random point-to-point traffic on teams of 2..8 ranks (0 B..4 MiB across the crossover, wildcards,"
                    + " probes, out-of-order waits, blocking and non-blocking sends, receives one byte short), every message"
                    + " checked: exit 0 only with 0 lost, 0 reordered against MPI's non-overtaking rule, 0 corrupted and every"
                    + " truncation reported.")
    static final class P2pSoak implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-n", "--messages"}, paramLabel = "N", defaultValue = "1000000", description = "messages to send (default ${DEFAULT-VALUE})")
        long messages;

        @Option(names = "--seed", description = "seed of the traffic (default: random, printed)")
        Long seed;

        @Option(names = "--max-time", paramLabel = "S", defaultValue = "86400", description = "stop after S seconds (default ${DEFAULT-VALUE})")
        long maxSeconds;

        @Option(names = {"-v", "--verbose"}, description = "a line per team")
        boolean verbose;

        @Option(names = "--processes", paramLabel = "N",
                description = "one team over N JVM processes of this host (collbench starts N - 1 more JVMs), -t ranks in"
                        + " each, through one shared mapping: the traffic crosses processes; the counts are the team's")
        Integer processes;

        @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "2",
                description = "with --processes: ranks per process (default ${DEFAULT-VALUE})")
        int threads;

        /** Set by the process that started this one (--processes): INDEX:JOB. */
        @Option(names = "--process-child", hidden = true, paramLabel = "INDEX:JOB")
        String processChild;

        @Override
        public Integer call() throws Exception {
            RunOptions.Spanning sp = RunOptions.spanning(processes, processChild);
            return ProcessChildren.run(sp, spec, () -> soak(sp));
        }

        private int soak(RunOptions.Spanning sp) {
            if (sp != null && (threads < 1 || threads * sp.n() > 8 * Runtime.getRuntime().availableProcessors())) {
                throw new IllegalArgumentException("-t: " + threads + " ranks per process");
            }
            if (messages < 1 || messages > 1_000_000_000_000L) {
                throw new IllegalArgumentException("--messages must be 1..10^12, got " + messages);
            }
            if (maxSeconds < 1 || maxSeconds > 7 * 86400) {
                throw new IllegalArgumentException("--max-time must be 1..604800, got " + maxSeconds);
            }
            PrintWriter out = spec.commandLine().getOut();
            // across processes every process needs the same seed: without --seed, the job's name (process 0's pid)
            long s = seed != null ? seed : sp != null ? sp.job().hashCode() : System.nanoTime();
            out.println("# p2p-soak: " + messages + " messages, seed " + s);
            out.flush();
            long t0 = System.nanoTime();
            Consumer<String> log = l -> {
                if (verbose) {
                    out.println(l);
                    out.flush();
                }
            };
            MessageSoak.Result r = sp == null ? MessageSoak.run(messages, s, java.time.Duration.ofSeconds(maxSeconds), log)
                    : MessageSoak.runAcross(messages, s, java.time.Duration.ofSeconds(maxSeconds),
                    Team.builder().processes(sp.n(), sp.index()).name(sp.job()), threads, log);
            out.printf(Locale.ROOT, "messages %d (%.1f MB) on %d teams in %.1f s: lost %d, reordered %d, corrupted %d, "
                            + "truncations %d of %d expected%n", r.messages(), r.bytes() / 1e6, r.teams(),
                    (System.nanoTime() - t0) / 1e9, r.lost(), r.reordered(), r.corrupted(), r.truncationsSeen(),
                    r.truncationsExpected());
            r.failures().stream().limit(50).forEach(f -> out.println("FAIL " + f));
            out.flush();
            return r.clean() ? 0 : Errors.VALIDATION_FAILED;
        }
    }

    /** Sizes of a sweep (for tests). */
    static List<Long> sizes(String m, boolean bandwidth) {
        return SizeRange.of(m, null, null, null, bandwidth ? "1:4M" : "0:4M").sizes();
    }
}
