package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The models one size of {@code explain --measure} is priced with: with a probe, the calibrated model with
 * the parameters that move with the machine's state re-measured ({@link ModelProbe#remeasure}) before the
 * size (the pick is made under that one) and again after each algorithm's row, the row priced with the best
 * of the measurements on either side of it, so each row is compared with the machine of the seconds it was
 * measured in (a line hand-over can flip between a fast and a slow state for seconds at a time, and a single
 * re-measure before the size put every row of one size far off; the numbers: docs/measurements.md). Without a probe,
 * the given model for every row.
 */
final class RowPricing {
    private final ModelProbe probe;
    private final RunOptions.Setup setup;
    private final TeamShape shape;
    private final CollectiveBenchmark.Shape size;
    private final Collective collective;
    private final int ranks;
    private final boolean beyondCache;
    private final List<MachineModel> measured = new ArrayList<>();
    /** The L2 read rate of {@code --consume}, measured with each model of {@link #measured}. */
    private final List<Double> l2Reads = new ArrayList<>();
    private CacheResidency reads;

    RowPricing(ModelProbe probe, RunOptions.Setup setup, TeamShape shape, CollectiveBenchmark.Shape size, Collective collective,
               int ranks, boolean beyondCache, CacheResidency reads) {
        this.reads = reads;
        this.probe = probe;
        this.setup = setup;
        this.shape = shape;
        this.size = size;
        this.collective = collective;
        this.ranks = ranks;
        this.beyondCache = beyondCache;
    }

    /** The model of this size's first row and pick: re-measured now (with a probe), else the setup's. */
    MachineModel now() {
        return probe == null ? setup.model() : remeasure();
    }

    /**
     * After a row was measured: the model it is priced with, each re-measured parameter's best
     * ({@link ModelProbe#best}) of the measurement before the row (the previous one) and one made now.
     */
    MachineModel afterRow() {
        MachineModel before = measured.getLast();
        double readBefore = l2Reads.getLast();
        MachineModel m = ModelProbe.best(before, remeasure());
        reads = reads.withL2(Math.max(readBefore, l2Reads.getLast()));
        return m;
    }

    /** Where {@code --consume}'s read of the result is priced: the calibration's, the L2 rate of the last row priced. */
    CacheResidency reads() {
        return reads;
    }

    /** The calibrated model with the volatile parameters (and beyond the cache, the DRAM rates) measured again. */
    private MachineModel remeasure() {
        long t0 = System.nanoTime();
        MachineModel m = probe.remeasure(setup.model(), setup.topology(), setup.dtype(), beyondCache);
        measured.add(m);
        l2Reads.add(CacheResidency.l2Rate(m.l2Bytes(), READ_WINDOW_NS));
        remeasureNs += System.nanoTime() - t0;
        return m;
    }

    /** Time spent re-measuring for this size, ns (printed: most of a small size's rows is re-measurement). */
    private long remeasureNs;

    /** How long each row's L2 read rate is measured (best 2 ms window). */
    private static final long READ_WINDOW_NS = 20_000_000L;

    /** Whether rows are re-priced after they are measured ({@link #afterRow}): with a probe. */
    boolean remeasures() {
        return probe != null;
    }

    /** Every selectable (non-baseline) algorithm's prediction for this size under {@code model}, the pick marked. */
    List<Selector.Prediction> predictions(MachineModel model, boolean consumed) {
        return new Selector(model, java.util.Map.of(), shape).predict(collective, ranks, size.callCount(), setup.dtype(),
                collective.reduces() ? setup.op() : null, size.bytes(), consumed).stream()
                .filter(x -> !AlgorithmCatalog.isBaseline(x.algorithm())).toList();
    }

    /** {@code a}'s predicted time for this size under {@code model}, seconds, as {@link #predictions} prices it. */
    double price(MachineModel model, io.coll4j.kernel.algo.CollectiveAlgorithm a, boolean consumed) {
        return new Selector(model, java.util.Map.of(), shape).price(a, ranks, setup.dtype(), size.bytes(), consumed);
    }

    /** One comment line: the range of each re-measured parameter over this size's rows (nothing without a probe). */
    void printRange(PrintWriter out) {
        if (measured.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "# re-measured per row (%.0f ms each): a_alpha %s ns, o %s ns, copy %s GB/s, fold %s GB/s%s, L2 read %s GB/s%n",
                remeasureNs / 1e6 / measured.size(),
                range(m -> m.lineLatencySameL3() * 1e9, "%.1f"), range(m -> m.callOverhead() * 1e9, "%.1f"),
                range(m -> m.copyBandwidthCached() / 1e9, "%.2f"),
                range(m -> m.reduceCachedByDtype().get(setup.dtype()) / 1e9, "%.2f"),
                beyondCache ? ", memory " + range(m -> m.memoryBandwidth() / 1e9, "%.2f") + " GB/s" : "",
                rangeOf(l2Reads.stream().mapToDouble(r -> r / 1e9).toArray(), "%.2f"));
    }

    private String range(ToDoubleFunction<MachineModel> f, String fmt) {
        return rangeOf(measured.stream().mapToDouble(f).toArray(), fmt);
    }

    private static String rangeOf(double[] v, String fmt) {
        double lo = java.util.Arrays.stream(v).min().orElseThrow();
        double hi = java.util.Arrays.stream(v).max().orElseThrow();
        String a = String.format(Locale.ROOT, fmt, lo);
        String b = String.format(Locale.ROOT, fmt, hi);
        return a.equals(b) ? a : a + "-" + b;
    }
}
