package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.reducescatter.MovementAvoidingSlices;
import io.coll4j.kernel.model.MachineModel;

/**
 * {@code ma-sliced} reduce-scatter [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of
 * {@link MovementAvoidingSlices} (protocol, double buffering, reduction order, scratch and buffer reuse
 * are stated there); each owner folds its own block into its receive buffer and nothing is copied out.
 */
public final class MaSlicedReduceScatter extends AbstractAlgorithm {
    public static final String NAME = "ma-sliced";

    public MaSlicedReduceScatter() {
        super(Collective.REDUCE_SCATTER, NAME, "slices staged in a double buffer, each owner folds its block in one k-ary pass", "[YHCCL Alg. 2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return MovementAvoidingSlices.cost(m, p, bytes, Collective.REDUCE_SCATTER);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return MovementAvoidingSlices.scratchBytes(call);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        MovementAvoidingSlices.run(call);
    }
}
