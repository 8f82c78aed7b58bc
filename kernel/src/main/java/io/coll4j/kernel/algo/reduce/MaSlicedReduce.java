package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.reducescatter.MovementAvoidingSlices;
import io.coll4j.kernel.model.MachineModel;

/**
 * {@code ma-sliced} reduce [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of
 * {@link MovementAvoidingSlices} (protocol, double buffering, reduction order, scratch and buffer reuse
 * are stated there); the owners fold their blocks straight into the root's receive buffer, every core working.
 */
public final class MaSlicedReduce extends AbstractAlgorithm {
    public static final String NAME = "ma-sliced";

    public MaSlicedReduce() {
        super(Collective.REDUCE, NAME, "slices staged in a double buffer, owners fold their blocks into the root's buffer", "[YHCCL Alg. 2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return MovementAvoidingSlices.cost(m, p, bytes, Collective.REDUCE);
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
