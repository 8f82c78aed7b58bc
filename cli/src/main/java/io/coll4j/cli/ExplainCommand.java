package io.coll4j.cli;

import io.coll4j.internal.TeamInternals;
import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.model.MachineModel;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collbench explain <collective>}: per size, every selectable algorithm's predicted time under
 * the team's machine model and the pick (docs/design.md, "Machine model and selection") — the table [HMPI §3.4, Fig. 19] selects from.
 * With {@code --measure} each algorithm is also measured (as {@code collbench <collective> -a NAME}
 * measures it; the measured time is its best batch mean, the undisturbed time the model predicts, as
 * {@code tune} keeps each parameter's best window: on a shared machine the other batches include time
 * slices another process took from a rank) and every row shows the model's relative error
 * {@code (predicted − measured) / measured};
 * the run ends with the median |error| and the share of sizes where the pick's measured time is within
 * 10% of the measured best. The {@code cyclicbarrier} baseline is never picked and not listed.
 *
 * <p>{@code --measure} first calibrates the model in the same run ({@link ModelProbe}, the measurements of
 * {@code tune}, a few seconds), and before each size re-measures the parameters that move with the
 * machine's state ({@link ModelProbe#remeasure}), so every row compares the model with the machine of its
 * own minute, not as it was when a profile was written (on a shared machine the line latency alone moved
 * 4x between minutes); {@code --no-calibrate} checks the given profile (or the defaults) instead. Predictions price what
 * the run measures: with {@code --consume} the consumed result
 * ({@link io.coll4j.kernel.algo.CollectiveAlgorithm#consumeCost}) and the read itself (the result copied at
 * the in-cache copy rate, as {@code --consume} reads it), without it the call alone. The pick is the
 * selector's either way: it assumes consumed results.
 */
@Command(name = "explain", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Print every algorithm's predicted time and the model's pick per size; --measure checks the model.")
final class ExplainCommand implements Callable<Integer> {
    /** The pick counts as good when its measured time is within this factor of the measured best. */
    static final double PICK_TOLERANCE = 1.10;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "COLLECTIVE", description = "allreduce|reduce-scatter|reduce|bcast|allgather|barrier")
    String collective;

    @CommandLine.Mixin
    RunOptions run = new RunOptions();

    @Option(names = "--measure", description = "also measure every algorithm and print the model's error")
    boolean measure;

    @Option(names = "--calibrate", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "with --measure: first measure the model's parameters in this run, as tune does (default; "
                    + "--no-calibrate checks --profile or the defaults)")
    boolean calibrate;

    @Override
    public Integer call() {
        Collective c = Collective.parse(collective);
        RunOptions.Setup setup = run.resolve(c);
        int p = setup.threads();
        PrintWriter out = spec.commandLine().getOut();
        // what --consume's read of the whole result costs every algorithm alike: measured with the calibration,
        // else the model's in-cache and streaming copy rates
        CacheResidency reads = new CacheResidency(setup.model().copyBandwidthCached(), setup.model().copyBandwidthCached(),
                setup.model().copyBandwidthStream(), setup.model().cacheCapacity(), 0);
        ModelProbe probe = measure && calibrate && !setup.mpi() ? new ModelProbe(false, c) : null;
        if (probe != null) {
            ModelProbe.Result cal = calibrated(probe, out, setup);
            setup = setup.withModel(cal.model());
            reads = cal.reads();
        }
        out.printf(Locale.ROOT, "# collbench explain %s: %d ranks%s%s, model: %s%s%n", c.cliName(), p,
                c == Collective.BARRIER ? "" : ", " + setup.dtype().cliName(), c.reduces() ? " " + setup.op().cliName() : "",
                setup.model().source(), run.cold ? ", cold buffers" : "");
        out.println("# * = the model's pick" + (measure ? ", + = measured best; measured = best batch mean; "
                + "error = (predicted - measured) / measured" : ""));
        out.printf("%12s  %-16s %14s%s%n", "bytes", "algorithm", "predicted_us", measure ? String.format("%14s %9s", "measured_us", "error") : "");
        out.flush();
        List<Double> errors = new ArrayList<>();
        int sizes = 0;
        int goodPicks = 0;
        try (Team team = setup.team(Duration.ofSeconds(run.timeoutSeconds)).build()) {
            if (team.processes() > 1) {
                if (team.processIndex() == 0) {
                    Hierarchical.explain(out, team, c, setup.sizes(c), setup.dtype());
                }
                return 0;
            }
            out.println("# priced on " + TeamInternals.selector(team).shape(p) + " (indented: the cost's named terms)");
            out.flush();
            CollectiveBenchmark bench = null;
            if (measure) {
                long maxBytes = 0;
                for (long s : setup.sizes(c)) {
                    CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                    maxBytes = Math.max(maxBytes, Math.max(sh.sendBytes(), sh.recvBytes()));
                }
                bench = run.configure(new CollectiveBenchmark(c, setup.dtype(), setup.op(), setup.root(), false, List.of(),
                        maxBytes, p, run.cold ? setup.model().cacheCapacity() : 0));
                // an unrecorded pass over the first size: the JIT compiles the call path of every algorithm before
                // the first row is measured, so that row does not carry the compilation
                long first = setup.sizes(c).iterator().next();
                CollectiveBenchmark.Shape sh0 = CollectiveBenchmark.Shape.of(c, first, setup.dtype(), p);
                for (Selector.Prediction pr : TeamInternals.selector(team).predict(c, p, sh0.callCount(), setup.dtype(),
                        c.reduces() ? setup.op() : null, sh0.bytes())) {
                    if (!AlgorithmCatalog.isBaseline(pr.algorithm())) {
                        long iters = run.iterationsFor(sh0.bytes());
                        bench.measure(team, first, pr.algorithm().name(), false, iters, run.warmupFor(iters));
                    }
                }
            }
            for (long s : setup.sizes(c)) {
                CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                long perCore = sh.sendBytes() + sh.recvBytes();
                RowPricing pricing = new RowPricing(probe, setup, TeamInternals.selector(team).shape(p), sh, c, p,
                        (long) p * perCore > setup.model().cacheCapacity(), reads);
                List<Selector.Prediction> preds = pricing.predictions(pricing.now(), run.consume);
                long resultBytes = resultBytes(c, sh);
                long l2 = setup.model().l2Bytes();
                double read = run.consume ? reads.readTime(resultBytes, perCore, (long) p * perCore, l2) : 0;
                double[] readK = new double[preds.size()];
                double[] measured = new double[preds.size()];
                Selector.Prediction[] priced = preds.toArray(new Selector.Prediction[0]);
                int best = -1;
                int pick = -1;
                for (int k = 0; k < preds.size(); k++) {
                    if (preds.get(k).chosen()) {
                        pick = k;
                    }
                    if (bench != null) {
                        long iters = run.iterationsFor(sh.bytes());
                        // batches of about 20 us of predicted time (at most iterations/20): short enough that on a
                        // shared machine some batches run undisturbed, long enough that the clock costs nothing
                        long batch = Math.max(1, Math.min(iters / CollectiveBenchmark.BATCHES,
                                (long) Math.ceil(20e-6 / Math.max(1e-9, preds.get(k).seconds() + read))));
                        measured[k] = bench.measure(team, s, preds.get(k).algorithm().name(), preds.get(k).chosen(), iters,
                                run.warmupFor(iters), batch).minUs();
                        if (pricing.remeasures()) {
                            // the machine of this row's seconds: the parameters that flip with the cores' state, again
                            priced[k] = pricing.predictions(pricing.afterRow(), run.consume).get(k);
                        }
                        if (best < 0 || measured[k] < measured[best]) {
                            best = k;
                        }
                    }
                    readK[k] = run.consume ? pricing.reads().readTime(resultBytes, perCore, (long) p * perCore, l2) : 0;
                }
                pricing.printRange(out);
                for (int k = 0; k < preds.size(); k++) {
                    Selector.Prediction pr = priced[k];
                    String mark = (preds.get(k).chosen() ? "*" : "") + (k == best ? "+" : "");
                    double predUs = (pr.seconds() + readK[k]) * 1e6;
                    String tail = "";
                    if (bench != null) {
                        double err = (predUs - measured[k]) / measured[k];
                        errors.add(Math.abs(err));
                        tail = String.format(Locale.ROOT, "%14.3f %8.1f%%", measured[k], err * 100);
                    }
                    out.printf(Locale.ROOT, "%12d  %-16s %14.3f%s%n", sh.bytes(), pr.algorithm().name() + mark, predUs, tail);
                    for (String term : pr.terms()) {
                        out.printf("%12s    %s%n", "", term);
                    }
                }
                out.flush();
                if (bench != null && pick >= 0) {
                    sizes++;
                    if (measured[pick] <= PICK_TOLERANCE * measured[best]) {
                        goodPicks++;
                    }
                }
            }
        }
        if (measure && !errors.isEmpty()) {
            Collections.sort(errors);
            double median = errors.size() % 2 == 1 ? errors.get(errors.size() / 2)
                    : (errors.get(errors.size() / 2 - 1) + errors.get(errors.size() / 2)) / 2;
            out.printf(Locale.ROOT, "median model error: %.1f%%, 90th percentile %.1f%% (%d predictions, %s %d ranks%s, %s)%n",
                    median * 100, percentile(errors, 0.9) * 100, errors.size(), c.cliName(), p, run.consume ? " --consume" : "",
                    setup.model().source());
            out.printf(Locale.ROOT, "pick within 10%% of the measured best: %d/%d sizes (%.0f%%)%n", goodPicks, sizes,
                    100.0 * goodPicks / Math.max(1, sizes));
            out.flush();
        }
        return 0;
    }

    /**
     * The model calibrated in this run: {@link ModelProbe} (three repetitions, the best of each parameter kept),
     * its table printed as comments.
     */
    private static ModelProbe.Result calibrated(ModelProbe probe, PrintWriter out, RunOptions.Setup setup) {
        long t0 = System.nanoTime();
        java.io.StringWriter table = new java.io.StringWriter();
        ModelProbe.Result r;
        try (PrintWriter w = new PrintWriter(table)) {
            r = probe.measure(w, setup.topology(), CALIBRATION_REPS, "calibrated in this run");
        }
        out.printf(Locale.ROOT, "# calibrated in this run (%.1f s, the measurements of collbench tune, best of %d):%n",
                (System.nanoTime() - t0) * 1e-9, CALIBRATION_REPS);
        table.toString().lines().forEach(l -> out.println("#   " + l));
        r.notes().forEach(n -> out.println("#   note: " + n));
        out.flush();
        return r;
    }

    /** Repetitions of each calibration measurement: as few as keep one undisturbed value on a shared machine. */
    static final int CALIBRATION_REPS = 3;

    /**
     * The bytes {@code --consume} reads after each call, which it adds to every algorithm alike (a copy into a
     * private L1 buffer at the rate of where the result lives, {@link CacheResidency#readTime}); the lines of it
     * another core wrote cost more, and that is the algorithm's
     * {@link io.coll4j.kernel.algo.CollectiveAlgorithm#consumeCost}.
     */
    private static long resultBytes(Collective c, CollectiveBenchmark.Shape sh) {
        return c == Collective.BCAST ? sh.sendBytes() : c == Collective.BARRIER ? 0 : sh.recvBytes();
    }

    /** The {@code q}-quantile of the sorted {@code sorted} (nearest rank). */
    static double percentile(List<Double> sorted, double q) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
    }
}
