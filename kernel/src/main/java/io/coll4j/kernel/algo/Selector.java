package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;
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
 */
public final class Selector {
    private final MachineModel model;
    private final Map<Collective, CollectiveAlgorithm> forced;

    public Selector(MachineModel model, Map<Collective, CollectiveAlgorithm> forced) {
        this.model = model;
        this.forced = forced.isEmpty() ? Map.of() : new EnumMap<>(forced);
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
        MachineModel m = dtype == null ? model : model.forDtype(dtype);
        CollectiveAlgorithm best = null;
        double bestCost = Double.POSITIVE_INFINITY;
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (AlgorithmCatalog.isBaseline(a) || !a.supports(ranks, count, dtype, op)) {
                continue;
            }
            double cost = a.cost(m, ranks, bytes);
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

    /** Every candidate's predicted time, catalogue order, for {@code explain}. */
    public List<Prediction> predict(Collective c, int ranks, long count, DType dtype, Op op, long bytes) {
        List<Prediction> out = new ArrayList<>();
        CollectiveAlgorithm pick = choose(c, ranks, count, dtype, op, bytes);
        MachineModel m = dtype == null ? model : model.forDtype(dtype);
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (a.supports(ranks, count, dtype, op)) {
                out.add(new Prediction(a, a.cost(m, ranks, bytes), a == pick));
            }
        }
        return out;
    }

    /** One algorithm's predicted time (seconds) and whether it is the pick. */
    public record Prediction(CollectiveAlgorithm algorithm, double seconds, boolean chosen) {
    }
}
