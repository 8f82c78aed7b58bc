package io.coll4j.cli;

import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.model.MachineModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * The model values no probe measures the way the collectives meet them, fitted to the rows {@code explain --measure}
 * measured in its own run (docs/design.md, "What the run fits"):
 * <ul>
 *   <li>the share of the ping-pong's hand-over a dependent hand-over costs ({@link MachineModel#withHandOverShare}; o
 *       takes the rest, so the reference call o is calibrated on keeps its price);</li>
 *   <li>the price of a line another core wrote during the call ({@link MachineModel#peerLinePrice}) and of a result
 *       line read after the call ({@link MachineModel#consumedLinePrice}). The collectives' rows repeat closely from
 *       session to session while a_α/6, the uncalibrated price, moves with a_α; and every probe of the pulls alone
 *       (one core reading freshly written lines, both exchanging) read less than the rows show (the numbers:
 *       docs/measurements.md): a line modified in another core's cache costs what the
 *       access pattern around it lets overlap, which only the collectives themselves show;</li>
 *   <li>the in-cache rates once a message exceeds a quarter of the L2 ({@link MachineModel#llcRateShare}): the probes
 *       measure L2-resident copies and folds;</li>
 *   <li>the share of the probes' rates beyond the cache ({@link MachineModel#withStreamingRates}) that the
 *       collectives' patterns achieve: the probes run one pattern (an NT copy, a fold) on idle DRAM; the 16–64 MiB
 *       rows, which mix two or three streams per core, ran 10–30% slower than priced in every session.</li>
 * </ul>
 * Each value is fitted on the rows whose prediction it moves by at least {@value #INFORMATIVE} of itself over its
 * range (a row that pulls nothing says nothing about the pull price), to the least mean |ln(predicted / measured)|
 * over a grid, one value at a time, {@value #PASSES} times round. A value no row depends on keeps the calibration's.
 * {@link #without} fits on every size but one, the rows of the sizes nearest it weighing most ({@link #NEARNESS}):
 * {@code explain} prices each size with what the other sizes' rows fit, so the median error it reports is of
 * predictions, not a fit's residuals.
 */
final class InRunFit {
    /** One fitted parameter: how it enters a model, the grid it is searched on, and how it is printed. */
    private record Knob(String name, BiFunction<MachineModel, Double, MachineModel> apply, double min, double max, double step,
                        double print, String unit, java.util.function.Predicate<Row> eligible) {
        int points() {
            return (int) Math.round((max - min) / step) + 1;
        }

        double at(int k) {
            return min + k * step;
        }
    }

    /** One measured row: how to price it again, and what it measured (seconds, the read of --consume included). */
    private record Row(RowPricing pricing, MachineModel model, CollectiveAlgorithm algorithm, double read, double measured,
                       long bytes, long workingSet) {
        double predict(MachineModel priced, boolean consumed) {
            return pricing.price(priced, algorithm, consumed) + read;
        }
    }

    /**
     * The knobs, applied in this order. Line prices 0–15 ns (a_α/6 at a_α = 90 ns); the shares 0.3–2.5 (the hand-over
     * share sat on a bound of 1.6 once; the others stayed within 0.37–0.87).
     */
    private static final List<Knob> KNOBS = List.of(
            new Knob("share of the hand-over", MachineModel::withHandOverShare, 0.4, 2.5, 0.01, 1, "x", r -> true),
            new Knob("line pull inside a call", (m, x) -> m.withLinePulls(x, m.consumedLinePrice()), 0, 15e-9, 0.05e-9, 1e9, "ns",
                    r -> true),
            new Knob("line pull of a consumed result", (m, x) -> m.withLinePulls(m.peerLinePrice(), x), 0, 15e-9, 0.05e-9, 1e9, "ns",
                    r -> true),
            // only rows whose message exceeds a quarter of the L2 and whose working set the cache holds: the rows
            // MachineModel.forMessage scales
            new Knob("share of the in-cache rates beyond a quarter of the L2", MachineModel::withLlcRateShare, 0.3, 1.5, 0.01, 1, "x",
                    r -> r.bytes > r.model.l2Bytes() / 4 && r.workingSet <= r.model.cacheCapacity()),
            // only rows whose working set is twice the cache, which DRAM serves (nearly) whole: between C and 2C the LLC
            // still holds part of it, which the model's switch at C does not price (the 8 MiB rows of p = 2 measured
            // 30-110% under their prediction while 16-64 MiB measured 10-30% over), and the fit would take it for DRAM
            new Knob("share of the streaming rates", MachineModel::withStreamingRates, 0.5, 1.5, 0.01, 1, "x",
                    r -> r.workingSet > 2 * r.model.cacheCapacity()));

    /**
     * A row informs a knob when the knob's range moves its prediction by at least this share: an 8-byte row whose
     * one pulled line is 1-10% of its time says nothing about the price of a line but its noise (fitted on every
     * row it touched, the price jumped 0 - 10.8 - 4.3 ns over the first sizes).
     */
    static final double INFORMATIVE = 0.25;

    /**
     * Rounds of fitting one knob at a time: the hand-over share moves o and so every row, and the pull prices and the LLC
     * share both price the 512 KiB - 4 MiB rows; four rounds settle them (two left the synthetic test's values 2-5% off).
     */
    static final int PASSES = 4;

    private final boolean consumed;
    private final List<Row> rows = new ArrayList<>();

    InRunFit(boolean consumed) {
        this.consumed = consumed;
    }

    /** Rows added so far. */
    int rows() {
        return rows.size();
    }

    /** A measured row: priced again by {@code pricing} under {@code model} (the row's own re-measured machine). */
    void add(RowPricing pricing, MachineModel model, CollectiveAlgorithm algorithm, double readSeconds, double measuredSeconds,
             long bytes, long workingSet) {
        rows.add(new Row(pricing, model, algorithm, readSeconds, measuredSeconds, bytes, workingSet));
    }

    /**
     * Every knob fitted on the rows of every size but {@code bytes}: what that size is priced with, so no row is
     * priced with a value fitted on it (leave one size out).
     */
    Fitted without(long bytes) {
        return without(bytes, NEARNESS);
    }

    /**
     * How fast a row's weight falls with its distance from the size priced: e^(−d / this), d in doublings. The sweep
     * measures the sizes in order, so the sizes nearest in bytes are nearest in time, and the guest's states last
     * minutes; runs measured both ways predicted better with the nearest sizes weighing most (the numbers:
     * docs/measurements.md).
     */
    static final double NEARNESS = 1;

    /** {@link #without}, each row weighted exp(−d / tau), d its distance from {@code bytes} in doublings (∞: alike). */
    Fitted without(long bytes, double tau) {
        List<Row> others = rows.stream().filter(r -> r.bytes != bytes).toList();
        double[] weight = others.stream().mapToDouble(r -> Double.isInfinite(tau) ? 1
                : Math.exp(-Math.abs(log2(r.bytes) - log2(bytes)) / tau)).toArray();
        double[] value = new double[KNOBS.size()];
        int[] used = new int[KNOBS.size()];
        java.util.Arrays.fill(value, Double.NaN);
        for (int pass = 0; pass < PASSES; pass++) {
            for (int j = 0; j < KNOBS.size(); j++) {
                fit(others, weight, value, used, j);
            }
        }
        return new Fitted(value, used, others.size());
    }

    /** The fitted values (NaN: no row depended on the knob, left as calibrated) and the rows each rests on. */
    record Fitted(double[] value, int[] used, int rows) {
        /** {@code model} with the fitted values. */
        MachineModel apply(MachineModel model) {
            return applyAllBut(value, model, -1);
        }

        /** One comment line: each value and the rows it rests on. */
        String describe() {
            StringBuilder b = new StringBuilder("fitted to the " + rows + " rows of the other sizes:");
            for (int j = 0; j < KNOBS.size(); j++) {
                Knob knob = KNOBS.get(j);
                b.append(j == 0 ? " " : "; ").append(knob.name).append(' ');
                b.append(Double.isNaN(value[j]) ? "as calibrated"
                        : String.format(Locale.ROOT, "%.2f %s (%d rows)", value[j] * knob.print, knob.unit, used[j]));
            }
            return b.toString();
        }
    }

    /** {@code model} with {@code value} of every knob but {@code skip} (the streaming shares multiply: never twice). */
    private static MachineModel applyAllBut(double[] value, MachineModel model, int skip) {
        MachineModel m = model;
        for (int j = 0; j < KNOBS.size(); j++) {
            if (j != skip && !Double.isNaN(value[j])) {
                m = KNOBS.get(j).apply.apply(m, value[j]);
            }
        }
        return m;
    }

    /** Knob {@code j} fitted on {@code rows}, the others held at {@code value}. */
    private static double log2(long bytes) {
        return Math.log(Math.max(1, bytes)) / Math.log(2);
    }

    private void fit(List<Row> rows, double[] weight, double[] value, int[] used, int j) {
        Knob knob = KNOBS.get(j);
        List<Row> depends = new ArrayList<>();
        List<MachineModel> bases = new ArrayList<>();
        List<Double> weights = new ArrayList<>();
        for (int ri = 0; ri < rows.size(); ri++) {
            Row r = rows.get(ri);
            if (!knob.eligible.test(r)) {
                continue;
            }
            MachineModel base = applyAllBut(value, r.model, j);
            double lo = r.predict(knob.apply.apply(base, knob.min), consumed);
            double hi = r.predict(knob.apply.apply(base, knob.max), consumed);
            if (Math.abs(hi - lo) >= INFORMATIVE * Math.min(hi, lo)) {
                depends.add(r);
                bases.add(base);
                weights.add(weight[ri]);
            }
        }
        used[j] = depends.size();
        if (depends.isEmpty()) {
            return;
        }
        double best = value[j];
        double bestScore = Double.POSITIVE_INFINITY;
        for (int k = 0; k < knob.points(); k++) {
            double x = knob.at(k);
            double score = 0;
            for (int i = 0; i < depends.size(); i++) {
                Row r = depends.get(i);
                score += weights.get(i) * Math.abs(Math.log(r.predict(knob.apply.apply(bases.get(i), x), consumed) / r.measured));
            }
            if (score < bestScore) {
                bestScore = score;
                best = x;
            }
        }
        value[j] = best;
    }
}
