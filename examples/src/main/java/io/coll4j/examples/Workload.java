package io.coll4j.examples;

import io.coll4j.Team;
import io.coll4j.WaitStrategy;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * A workload command: generates its input from a fixed seed, runs the selected implementations one after
 * another ({@code --repeat} rounds, alternating, so every contender sees the same machine), checks each
 * result against the single-thread reference and prints one row per implementation.
 */
public abstract class Workload implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-t", "--threads"}, defaultValue = "2",
            description = "Threads (ranks) of every parallel implementation (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = {"-i", "--impl"}, split = ",", paramLabel = "NAME",
            description = "Implementations to run, comma separated, in this order (default: all the workload has, as listed in its description).")
    List<String> impls;

    @Option(names = {"-r", "--repeat"}, defaultValue = "0", paramLabel = "N",
            description = "Rounds: every implementation runs once per round, in turn; the table shows each one's fastest round "
                    + "(default: 0 = the workload's own, 3 for cg and sgd, 1 for summa and kmeans).")
    int repeat;

    @Option(names = "--warmup", defaultValue = "true", negatable = true, fallbackValue = "true",
            description = "Before the timed rounds, run every implementation untimed so the JIT has compiled its paths, as in a "
                    + "long-running program (what each workload runs: its -h); --no-warmup measures the cold start (default: on).")
    boolean warmup;

    @Option(names = "--seed", defaultValue = "42", description = "Seed of the generated input (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--placement", defaultValue = "compact", paramLabel = "compact|scatter|none|PU,PU,...",
            description = "Where coll4j binds its ranks (Placement.parse; 'none' leaves them to the scheduler) (default: ${DEFAULT-VALUE}).")
    String placement;

    @Option(names = "--wait", defaultValue = "auto", paramLabel = "auto|adaptive|spin|yield|backoff|backoff-oversubscribed",
            description = "How coll4j ranks wait for peers (WaitStrategy.parse; auto: the team's default for its size) (default: ${DEFAULT-VALUE}).")
    String waitStrategy;

    @Option(names = "--format", defaultValue = "table", paramLabel = "table|csv|json",
            description = "Output: an aligned table, CSV with header workload,impl,threads,problem,time_s,comm_s,check, "
                    + "or JSON Lines, one object per implementation (default: ${DEFAULT-VALUE}).")
    String format;

    /** The workload's name: the launcher's subcommand and the CSV's {@code workload} column. */
    protected abstract String name();

    /** Every implementation this workload has, in the default order (coll4j first, single last). */
    protected abstract List<String> allImpls();

    /** One line describing the problem size (the CSV's {@code problem} column). */
    protected abstract String problem();

    /** Rounds when {@code --repeat} is not given. */
    protected int defaultRepeat() {
        return 1;
    }

    /** Validates the workload's options; throws {@link IllegalArgumentException} naming the option. */
    protected abstract void validate();

    /**
     * About how many bytes of Java heap the input and every implementation's working set take at once, for
     * the options as validated (saturating at {@code Long.MAX_VALUE}); more than the JVM has is refused
     * before the input is generated.
     */
    protected abstract long heapBytes();

    /** Ranks per PU beyond which {@code --threads} is refused (collbench's bound). */
    static final int MAX_RANKS_PER_PU = 64;

    /** The most rounds {@code --repeat} may ask for. */
    static final int MAX_REPEAT = 1000;

    /** {@code a × b × …}, saturating at {@code Long.MAX_VALUE} (all factors >= 0). */
    protected static long product(long... factors) {
        long p = 1;
        for (long f : factors) {
            if (f != 0 && p > Long.MAX_VALUE / f) {
                return Long.MAX_VALUE;
            }
            p *= f;
        }
        return p;
    }

    /** Generates the input (fixed seed); called once before any implementation runs. */
    protected abstract void prepare();

    /** Runs implementation {@code impl} once on the prepared input; the outcome's check is final. */
    protected abstract Outcome run(String impl) throws Exception;

    /**
     * Runs {@code impl} untimed before the rounds: by default once on the prepared input. Without it the
     * first rounds of a short run measure the interpreter and C1 code of the collective's call path.
     */
    protected void warmUp(String impl) throws Exception {
        run(impl);
    }

    /** Frees the input. */
    protected void release() {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        OutputFormat fmt;
        try {
            fmt = OutputFormat.valueOf(format.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--format must be table, csv or json, got '" + format + "'");
        }
        List<String> chosen = impls == null || impls.isEmpty() ? allImpls() : impls;
        for (String i : chosen) {
            if (!allImpls().contains(i)) {
                throw new ParameterException(spec.commandLine(), "--impl: '" + i + "' is not an implementation of " + name()
                        + " (" + String.join(", ", allImpls()) + ")");
            }
        }
        if (threads < 1) {
            throw new ParameterException(spec.commandLine(), "--threads must be >= 1, got " + threads);
        }
        if (repeat < 0) {
            throw new ParameterException(spec.commandLine(), "--repeat must be >= 0, got " + repeat);
        }
        if (repeat > MAX_REPEAT) {
            throw new ParameterException(spec.commandLine(), "--repeat must be at most " + MAX_REPEAT + ", got " + repeat);
        }
        try {
            // every rank is a platform thread with its own blocks: as collbench, at most 64 per PU
            int pus = Topology.host().pus().size();
            if ((long) threads > (long) MAX_RANKS_PER_PU * pus) {
                throw new IllegalArgumentException("--threads " + threads + " is more than " + MAX_RANKS_PER_PU
                        + " ranks per PU (" + MAX_RANKS_PER_PU * pus + " on this machine's " + pus + " PUs)");
            }
            // an explicit PU list is checked against this machine now, not by the team after the input is generated
            Placement.parse(placement).plan(Topology.host(), threads);
            if (!waitStrategy.equalsIgnoreCase("auto")) {
                WaitStrategy.parse(waitStrategy);
            }
            validate();
            long heap = Runtime.getRuntime().maxMemory();
            long need = heapBytes();
            if (need > heap) {
                throw new IllegalArgumentException(problem() + " needs about " + (need >> 20) + " MiB of Java heap"
                        + (threads > 1 ? " with " + threads + " threads" : "") + "; the JVM has " + (heap >> 20)
                        + " MiB (COLL4J_EXAMPLES_HEAP=8g raises it)");
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        int rounds = repeat > 0 ? repeat : defaultRepeat();
        if (fmt == OutputFormat.TABLE) {
            out.printf("# %s: %s; %d threads; best of %d round%s%n", name(), problem(), threads, rounds, rounds == 1 ? "" : "s");
            out.flush();
        }
        prepare();
        if (warmup) {
            for (String i : chosen) {
                warmUp(i);
            }
        }
        Map<String, Outcome> best = new LinkedHashMap<>();
        Map<String, Boolean> allOk = new LinkedHashMap<>();
        try {
            for (int round = 0; round < rounds; round++) {
                for (String i : chosen) {
                    Outcome o = run(i);
                    allOk.merge(i, o.ok(), Boolean::logicalAnd);
                    Outcome b = best.get(i);
                    if (b == null || o.seconds() < b.seconds()) {
                        best.put(i, o);
                    }
                }
            }
        } finally {
            release();
        }
        List<Outcome> rows = new ArrayList<>();
        for (Map.Entry<String, Outcome> e : best.entrySet()) {
            rows.add(e.getValue().checked(allOk.get(e.getKey())));   // wrong in any round is wrong
        }
        print(out, fmt, rows);
        out.flush();
        return rows.stream().allMatch(Outcome::ok) ? 0 : 1;
    }

    private void print(PrintWriter out, OutputFormat fmt, List<Outcome> rows) {
        switch (fmt) {
            case CSV -> {
                out.println("workload,impl,threads,problem,time_s,comm_s,check");
                for (Outcome o : rows) {
                    out.printf(Locale.ROOT, "%s,%s,%d,%s,%.6f,%s,%s%n", name(), o.impl(), threadsOf(o.impl()), csv(problem()),
                            o.seconds(), Double.isNaN(o.commSeconds()) ? "" : String.format(Locale.ROOT, "%.6f", o.commSeconds()),
                            o.ok() ? "ok" : "wrong");
                }
            }
            case JSON -> {
                for (Outcome o : rows) {
                    out.printf(Locale.ROOT, "{\"workload\":\"%s\",\"impl\":\"%s\",\"threads\":%d,\"problem\":\"%s\",\"time_s\":%.6f,"
                                    + "\"comm_s\":%s,\"check\":\"%s\",\"metric\":\"%s\"}%n",
                            name(), o.impl(), threadsOf(o.impl()), jsonEscape(problem()), o.seconds(),
                            Double.isNaN(o.commSeconds()) ? "null" : String.format(Locale.ROOT, "%.6f", o.commSeconds()),
                            o.ok() ? "ok" : "wrong", jsonEscape(o.metric()));
                }
            }
            case TABLE -> {
                double single = rows.stream().filter(o -> o.impl().equals(Outcome.SINGLE)).mapToDouble(Outcome::seconds).findFirst().orElse(Double.NaN);
                double coll4j = rows.stream().filter(o -> o.impl().equals(Outcome.COLL4J)).mapToDouble(Outcome::seconds).findFirst().orElse(Double.NaN);
                out.printf("%-14s %10s %10s %6s %11s %11s %6s  %s%n", "impl", "time_s", "comm_s", "comm%", "vs single", "coll4j is", "check", "metric");
                for (Outcome o : rows) {
                    boolean hasComm = !Double.isNaN(o.commSeconds());
                    out.printf(Locale.ROOT, "%-14s %10.4f %10s %6s %11s %11s %6s  %s%n", o.impl(), o.seconds(),
                            hasComm ? String.format(Locale.ROOT, "%.4f", o.commSeconds()) : "-",
                            hasComm ? String.format(Locale.ROOT, "%.1f%%", 100 * o.commSeconds() / o.seconds()) : "-",
                            ratio(single / o.seconds()), o.impl().equals(Outcome.COLL4J) ? "" : ratio(o.seconds() / coll4j),
                            o.ok() ? "ok" : "WRONG", o.metric());
                }
                out.println("# vs single = single's time / this time; coll4j is = this time / coll4j's time (>1: coll4j faster); "
                        + "comm_s = rank 0's time in collectives/barriers, waiting for peers included");
                // never silently slower: say when coll4j's teams found a contended core and stopped pinning/spinning
                for (String f : io.coll4j.topology.Fallbacks.noted()) {
                    if (f.startsWith("waiting: ")) {
                        out.println("# coll4j " + f);
                    }
                }
            }
        }
    }

    private int threadsOf(String impl) {
        return impl.equals(Outcome.SINGLE) ? 1 : threads;
    }

    private static String ratio(double r) {
        return Double.isNaN(r) || Double.isInfinite(r) ? "-" : String.format(Locale.ROOT, "%.2fx", r);
    }

    private static String csv(String s) {
        return s.contains(",") || s.contains("\"") ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
    }

    private static String jsonEscape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** A builder of the coll4j team of {@code ranks} ranks, with the placement and wait strategy of the options. */
    protected Team.Builder team(int ranks) {
        Team.Builder b = Team.builder().ranks(ranks);
        if (placement != null) {
            b.placement(Placement.parse(placement));
        }
        if (waitStrategy != null && !waitStrategy.equalsIgnoreCase("auto")) {
            b.waitStrategy(WaitStrategy.parse(waitStrategy));
        }
        return b;
    }

    /** Seconds since {@code startNanos}. */
    protected static double since(long startNanos) {
        return (System.nanoTime() - startNanos) * 1e-9;
    }
}
