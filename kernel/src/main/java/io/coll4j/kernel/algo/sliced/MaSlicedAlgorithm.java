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
 * The {@code ma-sliced} algorithms of reduce-scatter, allreduce and reduce: YHCCL's movement-avoiding
 * reduction A' [YHCCL §3.2] as its reduce-scatter [YHCCL §3.3, Fig. 6], allreduce [YHCCL §3.4; Alg. 2 with
 * adaptive-copy, §4.3.1] and reduce [YHCCL §3.5], {@link MovementAvoidingReduction}, which states the
 * synchronisation, double buffering, reduction order, scratch and buffer reuse; the subclasses name the
 * collective. Copy-in per rank: 2·s/p (s/p read + s/p written), 2·s per node [YHCCL Thm 3.1]. With
 * {@code reproducible(true)} a call runs {@link StagedSlices} (rank-ordered fold) instead.
 */
public abstract class MaSlicedAlgorithm extends AbstractAlgorithm {
    public static final String NAME = "ma-sliced";

    protected MaSlicedAlgorithm(Collective collective, String summary) {
        super(collective, NAME, summary, seed(collective));
    }

    /** The section of YHCCL that has this collective: only the allreduce is Alg. 2. */
    private static String seed(Collective collective) {
        return switch (collective) {
            case ALLREDUCE -> "[YHCCL §3.4, Alg. 2]";
            case REDUCE -> "[YHCCL §3.5]";
            default -> "[YHCCL §3.3, Fig. 6]";
        };
    }

    @Override
    public final double cost(MachineModel m, int p, long bytes) {
        return MovementAvoidingReduction.cost(m, p, bytes, collective());
    }

    @Override
    public List<String> costTerms(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        PackageCrossing c = crossing(m, shape, bytes);
        return CopyCost.withCrossPackageTerms(m, shape, c.bytes(), c.rounds(), String.format(Locale.ROOT, "copy-in per rank 2*s/p = %d B (s/p read + s/p written; %d B per node)",
                MovementAvoidingReduction.copyInBytesPerRank(p, bytes), p * MovementAvoidingReduction.copyInBytesPerRank(p, bytes)));
    }

    /** The β terms of {@link MovementAvoidingReduction#crossingBytes}. */
    @Override
    public final PackageCrossing crossing(MachineModel m, TeamShape shape, long bytes) {
        return new PackageCrossing(MovementAvoidingReduction.crossingBytes(shape, bytes, collective()), MovementAvoidingReduction.crossingRounds(m, shape, bytes));
    }

    @Override
    public final long scratchBytes(CollectiveCall call) {
        return call.reproducible() ? StagedSlices.scratchBytes(call) : MovementAvoidingReduction.scratchBytes(call);
    }

    /** Every rank's result depends on a chain through every rank's first step (or, empty, on every announce). */
    @Override
    public final boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public final void run(CollectiveCall call) {
        if (call.reproducible()) {
            StagedSlices.run(call);
        } else {
            MovementAvoidingReduction.run(call);
        }
    }
}
