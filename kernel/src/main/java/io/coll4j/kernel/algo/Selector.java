package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Picks an algorithm for a call (docs/design.md, "Machine model and selection"): a forced algorithm ({@code Team.Builder.algorithm},
 * {@code collbench -a}) always wins; otherwise the supported non-baseline algorithm with the least
 * predicted cost under the team's {@link MachineModel}, ties broken by catalogue order. Deterministic:
 * the same inputs give the same choice on every rank and every run. Costs are evaluated with the
 * model's reduction rates for the call's dtype ({@link MachineModel#forDtype}).
 *
 * <p>The price of a candidate is its {@link CollectiveAlgorithm#cost} plus its
 * {@link CollectiveAlgorithm#consumeCost}: the selector assumes every rank reads its result after the call,
 * as applications do, so an algorithm that leaves a rank's result in another core's cache pays for the
 * pull there, where the application pays it. {@link #predict(Collective, int, long, DType, Op, long, boolean)}
 * prices a loop that never reads its results as well (explain compares with such a loop).
 */
public final class Selector {
    private final MachineModel model;
    private final Map<Collective, CollectiveAlgorithm> forced;
    private final TeamShape shape;

    public Selector(MachineModel model, Map<Collective, CollectiveAlgorithm> forced) {
        this(model, forced, null);
    }

    /**
     * A selector for a team of {@code shape} (null: every rank on one package): calls with as many ranks
     * as the shape are priced on it ({@link CollectiveAlgorithm#cost(MachineModel, TeamShape, long)}), with
     * the two-level terms of a team that spans packages.
     */
    public Selector(MachineModel model, Map<Collective, CollectiveAlgorithm> forced, TeamShape shape) {
        this.model = model;
        this.forced = forced.isEmpty() ? Map.of() : new EnumMap<>(forced);
        this.shape = shape;
    }

    /** The shape a call of {@code ranks} ranks is priced on: the team's, or one package. */
    public TeamShape shape(int ranks) {
        return shape != null && shape.ranks() == ranks ? shape : TeamShape.flat(ranks);
    }

    public MachineModel model() {
        return model;
    }

    /** The forced algorithm for {@code c}, or null. */
    public CollectiveAlgorithm forced(Collective c) {
        return forced.get(c);
    }

    /** The algorithm for this call. {@code bytes} per rank, as the CLI contract counts them (docs/design.md). */
    public CollectiveAlgorithm choose(Collective c, int ranks, long count, DType dtype, Op op, long bytes) {
        CollectiveAlgorithm f = forced.get(c);
        if (f != null) {
            return f;
        }
        MachineModel m = (dtype == null ? model : model.forDtype(dtype)).forMessage(bytes);
        CollectiveAlgorithm best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (AlgorithmCatalog.isBaseline(a) || !a.supports(ranks, count, dtype, op)) {
                continue;
            }
            double cost = price(a, m, shape(ranks), ranks, bytes, true);
            if (cost < bestCost) {
                best = a;
                bestCost = cost;
            }
        }
        if (best == null) {
            throw new IllegalStateException("no " + c.cliName() + " algorithm supports this call");
        }
        return best;
    }

    /**
     * The algorithm a request of this call runs as resumable steps (non-blocking, persistent, chained): the forced
     * algorithm when it has steps that support the call, otherwise the {@link Resumable} of least
     * {@link Resumable#stepsCost} (plus its {@link CollectiveAlgorithm#consumeCost}), ties by catalogue order; null
     * when no algorithm of {@code c} has steps for it (the engine then runs its own schedule).
     */
    public Resumable chooseSteps(Collective c, int ranks, long count, DType dtype, Op op, long bytes) {
        if (forced.get(c) instanceof Resumable f && f.supportsSteps(ranks, count, dtype, op)) {
            return f;
        }
        MachineModel m = (dtype == null ? model : model.forDtype(dtype)).forMessage(bytes);
        TeamShape sh = shape(ranks);
        Resumable best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (a instanceof Resumable r && !AlgorithmCatalog.isBaseline(a) && r.supportsSteps(ranks, count, dtype, op)) {
                double cost = r.stepsCost(m, sh, bytes) + r.consumeCost(m, sh, bytes);
                if (cost < bestCost) {
                    best = r;
                    bestCost = cost;
                }
            }
        }
        return best;
    }

    /** Every candidate's predicted time with its result consumed (what {@link #choose} ranks), catalogue order. */
    public List<Prediction> predict(Collective c, int ranks, long count, DType dtype, Op op, long bytes) {
        return predict(c, ranks, count, dtype, op, bytes, true);
    }

    /**
     * Every candidate's predicted time, catalogue order, for {@code explain}: with {@code consumed} the
     * {@link CollectiveAlgorithm#consumeCost} of a caller that reads its result (the pick's price), without
     * it the call alone, as a loop that never reads its results measures it. The pick is the same either way.
     */
    public List<Prediction> predict(Collective c, int ranks, long count, DType dtype, Op op, long bytes, boolean consumed) {
        List<Prediction> out = new ArrayList<>();
        CollectiveAlgorithm pick = choose(c, ranks, count, dtype, op, bytes);
        MachineModel m = (dtype == null ? model : model.forDtype(dtype)).forMessage(bytes);
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (a.supports(ranks, count, dtype, op)) {
                TeamShape sh = shape(ranks);
                double consume = a.consumeCost(m, sh, bytes);
                List<String> terms = a.costTerms(m, sh, bytes);
                if (consume > 0) {
                    terms = new ArrayList<>(terms);
                    terms.add(String.format(java.util.Locale.ROOT, "consumed result: %.3f us to pull the lines peers wrote%s",
                            consume * 1e6, consumed ? "" : " (not counted: results not read)"));
                    terms = List.copyOf(terms);
                }
                out.add(new Prediction(a, price(a, m, sh, ranks, bytes, consumed), a == pick, terms));
            }
        }
        return out;
    }

    /**
     * One algorithm's predicted time, seconds, as {@link #predict} prices it (without the terms): what {@code explain
     * --measure} re-prices each measured row with while it fits the model's line-pull prices to them.
     */
    public double price(CollectiveAlgorithm a, int ranks, DType dtype, long bytes, boolean consumed) {
        return price(a, (dtype == null ? model : model.forDtype(dtype)).forMessage(bytes), shape(ranks), ranks, bytes, consumed);
    }

    private static double price(CollectiveAlgorithm a, MachineModel m, TeamShape sh, int ranks, long bytes, boolean consumed) {
        return a.cost(m, sh, bytes) + (consumed ? a.consumeCost(m, sh, bytes) : 0);
    }

    /** One algorithm's predicted time (seconds), whether it is the pick, and the named terms {@code explain} prints. */
    public record Prediction(CollectiveAlgorithm algorithm, double seconds, boolean chosen, List<String> terms) {
        public Prediction(CollectiveAlgorithm algorithm, double seconds, boolean chosen) {
            this(algorithm, seconds, chosen, List.of());
        }
    }
}
