package io.coll4j.kernel.algo.sliced;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.model.MachineModel;

/**
 * The {@code ma-sliced} algorithms [YHCCL Alg. 2] of reduce-scatter, allreduce and reduce: one protocol,
 * {@link MovementAvoidingSlices}, which states the synchronisation, double buffering, reduction order,
 * scratch and buffer reuse; the subclasses name the collective.
 */
public abstract class MaSlicedAlgorithm extends AbstractAlgorithm {
    public static final String NAME = "ma-sliced";

    protected MaSlicedAlgorithm(Collective collective, String summary) {
        super(collective, NAME, summary, "[YHCCL Alg. 2]");
    }

    @Override
    public final double cost(MachineModel m, int p, long bytes) {
        return MovementAvoidingSlices.cost(m, p, bytes, collective());
    }

    @Override
    public final long scratchBytes(CollectiveCall call) {
        return MovementAvoidingSlices.scratchBytes(call);
    }

    /** Every rank awaits every rank's RELEASE of the first slice (or, for an empty message, its announce). */
    @Override
    public final boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public final void run(CollectiveCall call) {
        MovementAvoidingSlices.run(call);
    }
}
