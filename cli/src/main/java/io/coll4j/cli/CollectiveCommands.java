package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
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

/** The collective subcommands of DESIGN §8: {@code allreduce reduce-scatter reduce bcast allgather barrier}. */
final class CollectiveCommands {
    private CollectiveCommands() {
    }

    /** Options every collective benchmark takes. */
    abstract static class Base implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "ranks (default: number of PUs)")
        Integer threads;

        @Option(names = {"-m", "--sizes"}, paramLabel = "MIN:MAX", defaultValue = "8:64M",
                description = "bytes per rank, K/M/G suffixes, doubling (default ${DEFAULT-VALUE}). Per rank as nccl-tests: "
                        + "the vector for allreduce/reduce/bcast, the input for reduce-scatter, the output for allgather")
        String sizes;

        @Option(names = {"-i", "--iterations"}, paramLabel = "N", description = "timed iterations (default: scaled by size, 20..10000)")
        Long iterations;

        @Option(names = {"-x", "--warmup"}, paramLabel = "N", description = "warm-up iterations (default: iterations/10, at least 5)")
        Long warmup;

        @Option(names = {"-a", "--algorithm"}, paramLabel = "NAME", defaultValue = "auto",
                description = "one algorithm, 'auto' (the model's choice, default) or 'all' (see 'collbench list')")
        String algorithm;

        @Option(names = {"-d", "--dtype"}, paramLabel = "TYPE", defaultValue = "f64", description = "f32|f64|i32|i64 (default ${DEFAULT-VALUE})")
        String dtype;

        @Option(names = {"-o", "--op"}, paramLabel = "OP", defaultValue = "sum", description = "sum|prod|min|max|band|bor|bxor (default ${DEFAULT-VALUE})")
        String op;

        @Option(names = {"-r", "--root"}, paramLabel = "N", defaultValue = "0", description = "root rank of bcast and reduce (default ${DEFAULT-VALUE})")
        int root;

        @Option(names = {"-c", "--validate"}, description = "check every iteration against the scalar reference; exit 1 if anything is wrong")
        boolean validate;

        @Option(names = "--format", paramLabel = "FMT", defaultValue = "table", description = "table|csv|json (JSON Lines: a header object, then one object per row)")
        String format;

        @Option(names = "--output", paramLabel = "FILE", description = "write the rows to FILE instead of standard output")
        Path output;

        @Option(names = "--bind", paramLabel = "HOW", defaultValue = "compact", description = "compact|scatter|none, or a list of OS PU numbers (default ${DEFAULT-VALUE})")
        String bind;

        @Option(names = "--topology", paramLabel = "SRC", defaultValue = "auto", description = "auto|hwloc|sysfs|synthetic:SPEC|xml:FILE (default ${DEFAULT-VALUE})")
        String topology;

        @Option(names = "--percentiles", paramLabel = "P,P", split = ",",
                description = "per-iteration percentiles, e.g. 50,99: adds p50_us,p99_us after max_us (times every iteration)")
        List<Integer> percentiles = new ArrayList<>();

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "120", description = "collective timeout (default ${DEFAULT-VALUE} s)")
        long timeoutSeconds;

        abstract Collective collective();

        @Override
        public Integer call() throws IOException {
            Collective c = collective();
            DType t = DType.parse(dtype);
            Op o = Op.parse(op);
            if (c.reduces()) {
                o.checkSupports(t);
            }
            OutputFormat fmt = parseFormat(format);
            SizeRange range = c == Collective.BARRIER ? new SizeRange(0, 0) : SizeRange.parse(sizes);
            for (int p : percentiles) {
                if (p <= 0 || p > 100) {
                    throw new IllegalArgumentException("percentile " + p + " is outside 1..100");
                }
            }
            if (iterations != null && iterations < 1) {
                throw new IllegalArgumentException("--iterations must be >= 1, got " + iterations);
            }
            if (warmup != null && warmup < 0) {
                throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
            }
            Topology topo = Topology.load(topology);
            int p = threads != null ? threads : topo.pus().size();
            if (p < 1) {
                throw new IllegalArgumentException("--threads must be >= 1, got " + p);
            }
            if (c.rooted() && (root < 0 || root >= p)) {
                throw new IllegalArgumentException("--root " + root + " is out of range for " + p + " ranks (0.." + (p - 1) + ")");
            }
            List<String> algs = CollectiveBenchmark.algorithms(c, algorithm);
            Placement placement = Placement.parse(bind);

            PrintWriter out = output == null ? spec.commandLine().getOut()
                    : new PrintWriter(Files.newBufferedWriter(output), true);
            long wrong = 0;
            try (Team team = Team.builder().ranks(p).topology(topo).placement(placement)
                    .timeout(Duration.ofSeconds(timeoutSeconds)).build()) {
                long maxBytes = 0;
                for (long s : range.sizes()) {
                    CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, t, p);
                    maxBytes = Math.max(maxBytes, Math.max(sh.sendBytes(), sh.recvBytes()));
                }
                CollectiveBenchmark bench = new CollectiveBenchmark(c, t, o, root, validate, percentiles, maxBytes, p);
                RowWriter w = RowWriter.of(fmt, out, percentiles);
                w.begin(header(c, team, topo));
                for (long s : range.sizes()) {
                    CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, t, p);
                    String pick = team.selector().choose(c, p, sh.callCount(), t, c.reduces() ? o : null, sh.bytes()).name();
                    long iters = iterations != null ? iterations : CollectiveBenchmark.defaultIterations(sh.bytes());
                    long warm = warmup != null ? warmup : CollectiveBenchmark.defaultWarmup(iters);
                    for (String a : algs) {
                        String name = a.equals("auto") ? pick : a;
                        BenchRow row = bench.measure(team, s, name, name.equals(pick), iters, warm);
                        wrong += Math.max(0, row.wrong());
                        w.row(row);
                    }
                }
                w.end();
            } finally {
                if (output != null) {
                    out.close();
                }
            }
            if (wrong > 0) {
                spec.commandLine().getErr().println(spec.name() + ": validation failed: " + wrong + " wrong elements");
                return Errors.VALIDATION_FAILED;
            }
            return 0;
        }

        private Map<String, Object> header(Collective c, Team team, Topology topo) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("collective", c.cliName());
            h.put("threads", team.size());
            h.put("placement", team.placement().describe());
            h.put("topology", topo.source());
            h.put("machine", machine());
            h.put("jdk", "JDK " + Runtime.version());
            h.put("version", Version.coll4j());
            h.put("wait", team.waitStrategy().alias());
            h.put("commandLine", "collbench " + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
            return h;
        }
    }

    static OutputFormat parseFormat(String f) {
        for (OutputFormat o : OutputFormat.values()) {
            if (o.name().equalsIgnoreCase(f)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown format '" + f + "' (expected table, csv or json)");
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

    @Command(name = "allreduce", description = "Benchmark allreduce (every rank gets the reduction of all vectors).")
    static final class Allreduce extends Base {
        @Override
        Collective collective() {
            return Collective.ALLREDUCE;
        }
    }

    @Command(name = "reduce-scatter", description = "Benchmark reduce-scatter (rank i gets block i of the reduction).")
    static final class ReduceScatter extends Base {
        @Override
        Collective collective() {
            return Collective.REDUCE_SCATTER;
        }
    }

    @Command(name = "reduce", description = "Benchmark reduce (the root gets the reduction of all vectors).")
    static final class Reduce extends Base {
        @Override
        Collective collective() {
            return Collective.REDUCE;
        }
    }

    @Command(name = "bcast", description = "Benchmark bcast (every rank gets the root's vector).")
    static final class Bcast extends Base {
        @Override
        Collective collective() {
            return Collective.BCAST;
        }
    }

    @Command(name = "allgather", description = "Benchmark allgather (every rank gets every rank's block).")
    static final class Allgather extends Base {
        @Override
        Collective collective() {
            return Collective.ALLGATHER;
        }
    }

    @Command(name = "barrier", description = "Benchmark barrier (bytes and count are 0).")
    static final class Barrier extends Base {
        @Override
        Collective collective() {
            return Collective.BARRIER;
        }
    }
}
