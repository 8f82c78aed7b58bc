package io.coll4j.kernel.algo.sliced;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.PackageCrossing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;

import java.util.List;
import java.util.Locale;

/**
 * The {@code staged-sliced} algorithms of reduce-scatter, allreduce and reduce: every rank stages all p
 * blocks of its send buffer, slice by slice, and each owner folds its block from the p stagings in one
 * k-ary pass — {@link StagedSlices}, which states the protocol, double buffering, reduction order (the rank
 * order), scratch and buffer reuse; the subclasses name the collective. Copy-in per rank: 2·s (s read +
 * s written), 2·s·p per node: the DPML staging [YHCCL §3.3, Table 1] that {@code ma-sliced} avoids.
 */
public abstract class StagedSlicedAlgorithm extends AbstractAlgorithm {
    public static final String NAME = "staged-sliced";

    protected StagedSlicedAlgorithm(Collective collective, String summary) {
        super(collective, NAME, summary, "[YHCCL §3.3] (DPML staging)");
    }

    @Override
    public final double cost(MachineModel m, int p, long bytes) {
        return StagedSlices.cost(m, p, bytes, collective());
    }

    @Override
    public List<String> costTerms(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        PackageCrossing c = crossing(m, shape, bytes);
        return CopyCost.withCrossPackageTerms(m, shape, c.bytes(), c.rounds(), String.format(Locale.ROOT, "copy-in per rank 2*s = %d B (s read + s written; %d B per node)",
                2 * bytes, 2 * bytes * p));
    }

    /** The β terms of {@link StagedSlices#crossingBytes}. */
    @Override
    public final PackageCrossing crossing(MachineModel m, TeamShape shape, long bytes) {
        return new PackageCrossing(StagedSlices.crossingBytes(shape, bytes, collective()), StagedSlices.crossingRounds(m, shape, bytes));
    }

    @Override
    public final long scratchBytes(CollectiveCall call) {
        return StagedSlices.scratchBytes(call);
    }

    /** Every rank awaits every rank's RELEASE of the first slice (or, for an empty message, its announce). */
    @Override
    public final boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public final void run(CollectiveCall call) {
        StagedSlices.run(call);
    }
}
