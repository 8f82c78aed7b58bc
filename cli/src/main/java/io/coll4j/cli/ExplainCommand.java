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
import java.nio.file.Path;
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
 * <p>With the calibration, the parameters no probe measures as the collectives meet them (the share of the
 * ping-pong's hand-over a dependent hand-over costs, the price of a line a peer wrote, the in-cache rates beyond a
 * quarter of the L2, the share of the probes' DRAM rates) are fitted to the measured rows ({@link InRunFit}): every
 * size is measured first, then each is priced, and its pick made, with the values fitted to the other sizes' rows
 * (leave one size out), so no row's prediction rests on its own measurement. The run also prints the median of
 * the calibration alone.
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

    @Parameters(index = "0", paramLabel = "COLLECTIVE", completionCandidates = CollectiveNames.class,
            description = "one of ${COMPLETION-CANDIDATES}")
    String collective;

    @CommandLine.Mixin
    RunOptions run = new RunOptions();

    @Option(names = "--measure", description = "also measure every algorithm and print the model's error")
    boolean measure;

    @Option(names = "--calibrate", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "with --measure: first measure the model's parameters in this run, as tune does (default; "
                    + "--no-calibrate checks --profile or the defaults)")
    boolean calibrate;

    @Option(names = "--save-profile", paramLabel = "FILE",
            description = "with --measure: write the model calibrated in this run, with the values fitted to every row, as a "
                    + "profile (--profile FILE or COLL4J_PROFILE=FILE then price auto's picks with it)")
    Path saveProfile;

    @Override
    public Integer call() {
        Collective c = Collective.parse(collective);
        if (run.processes != null && run.processes > 1) {
            throw new IllegalArgumentException("explain prices one process; --processes runs with the collective subcommands "
                    + "(collbench " + c.cliName() + " --processes " + run.processes + ")");
        }
        RunOptions.Setup setup = run.resolve(c);
        int p = setup.threads();
        PrintWriter out = spec.commandLine().getOut();
        // what --consume's read of the whole result costs every algorithm alike: measured with the calibration,
        // else the model's in-cache and streaming copy rates
        CacheResidency reads = new CacheResidency(setup.model().copyBandwidthCached(), setup.model().copyBandwidthCached(),
                setup.model().copyBandwidthStream(), setup.model().cacheCapacity(), 0);
        if (saveProfile != null) {
            if (!measure || !calibrate || setup.mpi()) {
                throw new IllegalArgumentException("--save-profile needs --measure with the calibration in this run (not "
                        + (!measure ? "without --measure" : !calibrate ? "--no-calibrate" : "--mpi") + ")");
            }
            // written after a minute of measuring: make sure it can be, first
            Resources.writableFile("--save-profile", saveProfile);
        }
        if (measure) {
            // --measure allocates every rank's buffers at the largest size, as the benchmark does
            long largest = 0;
            for (long s : setup.sizes(c)) {
                CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                largest = Math.max(largest, Math.max(sh.sendBytes(), sh.recvBytes()));
            }
            Resources.nativeMemory("-m " + largest + " bytes on " + p + " ranks",
                    largest > Long.MAX_VALUE / 4 / p ? -1 : 4L * p * largest);
        }
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
        Stats stats = new Stats();
        // with the calibration: the parameters no probe measures as the collectives meet them, fitted to the other sizes' rows
        InRunFit fit = probe != null ? new InRunFit(run.consume) : null;
        try (Team team = setup.team(run.timeout()).build()) {
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
            List<MeasuredSize> measuredSizes = new ArrayList<>();
            if (fit != null) {
                out.println("# every size is measured first; then each is priced with the values fitted to the other sizes' rows");
                out.flush();
            }
            for (long s : setup.sizes(c)) {
                MeasuredSize ms = measureSize(team, bench, probe, setup, reads, c, p, s);
                if (fit == null) {
                    printSize(out, ms, null, bench != null, stats);
                } else {
                    // printed once every size is measured: each priced with what the other sizes' rows fit
                    measuredSizes.add(ms);
                    for (int k = 0; k < ms.preds.size(); k++) {
                        fit.add(ms.pricing, ms.rowModel[k], ms.preds.get(k).algorithm(), ms.readK[k], ms.measured[k] * 1e-6,
                                ms.shape.bytes(), (long) p * ms.perCore());
                    }
                }
            }
            for (MeasuredSize ms : measuredSizes) {
                InRunFit.Fitted f = fit.without(ms.shape.bytes());
                out.println("# " + f.describe());
                printSize(out, ms, f, true, stats);
            }
        }
        if (measure && !stats.errors.isEmpty()) {
            Collections.sort(stats.errors);
            if (fit != null) {
                Collections.sort(stats.unfitted);
                out.printf(Locale.ROOT, "# the same rows with the calibration alone (hand-overs at the ping-pong's, line pulls at a_alpha/%d, "
                        + "one in-cache rate, the probes' streaming rates): median %.1f%%, 90th percentile %.1f%%%n",
                        MachineModel.OVERLAPPED_PULLS, median(stats.unfitted) * 100, percentile(stats.unfitted, 0.9) * 100);
            }
            out.printf(Locale.ROOT, "median model error: %.1f%%, 90th percentile %.1f%% (%d predictions, %s %d ranks%s, %s%s)%n",
                    median(stats.errors) * 100, percentile(stats.errors, 0.9) * 100, stats.errors.size(), c.cliName(), p, run.consume ? " --consume" : "",
                    setup.model().source(), fit == null ? "" : ", hand-overs, line pulls and rates fitted to the other sizes' rows");
            out.printf(Locale.ROOT, "pick within 10%% of the measured best: %d/%d sizes (%.0f%%)%n", stats.goodPicks, stats.sizes,
                    100.0 * stats.goodPicks / Math.max(1, stats.sizes));
            out.flush();
        }
        if (saveProfile != null && fit != null && fit.rows() > 0) {
            save(out, fit, setup);
        }
        return 0;
    }

    /** {@code --save-profile}: the calibration of this run with the values fitted to all its rows, as a profile. */
    private void save(PrintWriter out, InRunFit fit, RunOptions.Setup setup) {
        InRunFit.Fitted all = fit.without(Long.MIN_VALUE, Double.POSITIVE_INFINITY);   // every row alike
        MachineModel m = all.apply(setup.model());
        Map<String, Object> extra = TuneCommand.provenance(setup.topology());
        extra.put("fitted", all.describe().replace("the other sizes", "every size"));
        try {
            TuneCommand.writeProfile(saveProfile, m, extra);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("--save-profile " + saveProfile + ": " + e.getMessage(), e);
        }
        out.printf("# wrote %s: this run's calibration, %s; use it with --profile %s or COLL4J_PROFILE=%s%n", saveProfile,
                all.describe().replace("fitted to the", "fitted to all").replace(" rows of the other sizes", " rows"),
                saveProfile, saveProfile);
        out.flush();
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

    /** What the rows of a run add up to: every |error|, the same without the in-run fit, and the picks. */
    private static final class Stats {
        final List<Double> errors = new ArrayList<>();
        final List<Double> unfitted = new ArrayList<>();
        int sizes;
        int goodPicks;
    }

    /**
     * One size's rows as measured: the model re-measured before the size ({@code now}) and after each row
     * ({@code rowModel}, null without a probe), each row's best batch mean (us, 0 unmeasured) and the read of
     * {@code --consume} (seconds).
     */
    private record MeasuredSize(CollectiveBenchmark.Shape shape, long perCore, RowPricing pricing, MachineModel now,
                                List<Selector.Prediction> preds, MachineModel[] rowModel, double[] measured, double[] readK,
                                String request) {
    }

    /** Measures (with a bench) every algorithm of size {@code s}, re-measuring the model around each row (with a probe). */
    private MeasuredSize measureSize(Team team, CollectiveBenchmark bench, ModelProbe probe, RunOptions.Setup setup,
                                     CacheResidency reads, Collective c, int p, long s) {
        CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
        long perCore = sh.sendBytes() + sh.recvBytes();
        RowPricing pricing = new RowPricing(probe, setup, TeamInternals.selector(team).shape(p), sh, c, p,
                (long) p * perCore > setup.model().cacheCapacity(), reads);
        MachineModel now = pricing.now();
        List<Selector.Prediction> preds = pricing.predictions(now, run.consume);
        long resultBytes = resultBytes(c, sh);
        long l2 = setup.model().l2Bytes();
        double read = run.consume ? reads.readTime(resultBytes, perCore, (long) p * perCore, l2) : 0;
        double[] readK = new double[preds.size()];
        double[] measured = new double[preds.size()];
        MachineModel[] rowModel = new MachineModel[preds.size()];
        for (int k = 0; k < preds.size(); k++) {
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
                    rowModel[k] = pricing.afterRow();
                }
            }
            readK[k] = run.consume ? pricing.reads().readTime(resultBytes, perCore, (long) p * perCore, l2) : 0;
        }
        // what a request of this call runs (its steps: the selector's pick among the resumable algorithms)
        String request = TeamInternals.requestAlgorithm(team, c, sh.callCount(), setup.dtype(), c.reduces() ? setup.op() : null);
        return new MeasuredSize(sh, perCore, pricing, now, preds, rowModel, measured, readK, request);
    }

    /**
     * Prints one size's rows: each priced under its own re-measured model ({@code fitted}'s values applied when
     * given), the pick made under the best of the size's re-measurements (with them too), errors and picks counted.
     */
    private void printSize(PrintWriter out, MeasuredSize ms, InRunFit.Fitted fitted, boolean measured, Stats stats) {
        // the pick under the size's undisturbed machine: the best of its re-measurements (the one before it alone, caught
        // in a slow instant - a fold at 27 GB/s for 45 - picked ma-sliced over replicated at 64 KiB in two rounds of six)
        MachineModel machine = ms.now;
        for (MachineModel row : ms.rowModel) {
            machine = row == null ? machine : ModelProbe.best(machine, row);
        }
        List<Selector.Prediction> preds = machine == ms.now && fitted == null ? ms.preds
                : ms.pricing.predictions(fitted == null ? machine : fitted.apply(machine), run.consume);
        int best = -1;
        int pick = -1;
        for (int k = 0; k < preds.size(); k++) {
            if (preds.get(k).chosen()) {
                pick = k;
            }
            if (measured && (best < 0 || ms.measured[k] < ms.measured[best])) {
                best = k;
            }
        }
        ms.pricing.printRange(out);
        for (int k = 0; k < preds.size(); k++) {
            Selector.Prediction pr = ms.rowModel[k] == null ? preds.get(k) : ms.pricing.predictions(
                    fitted == null ? ms.rowModel[k] : fitted.apply(ms.rowModel[k]), run.consume).get(k);
            String mark = (preds.get(k).chosen() ? "*" : "") + (k == best ? "+" : "");
            double predUs = (pr.seconds() + ms.readK[k]) * 1e6;
            String tail = "";
            if (measured) {
                double err = (predUs - ms.measured[k]) / ms.measured[k];
                stats.errors.add(Math.abs(err));
                if (fitted != null) {
                    double plain = (ms.pricing.price(ms.rowModel[k], pr.algorithm(), run.consume) + ms.readK[k]) * 1e6;
                    stats.unfitted.add(Math.abs((plain - ms.measured[k]) / ms.measured[k]));
                }
                tail = String.format(Locale.ROOT, "%14.3f %8.1f%%", ms.measured[k], err * 100);
            }
            out.printf(Locale.ROOT, "%12d  %-16s %14.3f%s%n", ms.shape.bytes(), pr.algorithm().name() + mark, predUs, tail);
            for (String term : pr.terms()) {
                out.printf("%12s    %s%n", "", term);
            }
        }
        out.printf("%12d  %-16s %s%n", ms.shape.bytes(), "request", "runs " + ms.request + " (non-blocking, persistent, chained)");
        out.flush();
        if (measured && pick >= 0) {
            stats.sizes++;
            if (ms.measured[pick] <= PICK_TOLERANCE * ms.measured[best]) {
                stats.goodPicks++;
            }
        }
    }

    private static double median(List<Double> sorted) {
        return sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
                : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    }

    /** The {@code q}-quantile of the sorted {@code sorted} (nearest rank). */
    static double percentile(List<Double> sorted, double q) {
        return sorted.get((int) Math.min(sorted.size() - 1, Math.ceil(q * sorted.size()) - 1));
    }
}
