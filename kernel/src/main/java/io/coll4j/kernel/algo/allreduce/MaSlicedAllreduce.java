package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.reducescatter.MovementAvoidingSlices;
import io.coll4j.kernel.model.MachineModel;

/**
 * {@code ma-sliced} allreduce [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of
 * {@link MovementAvoidingSlices} (protocol, double buffering, reduction order, scratch and buffer reuse
 * are stated there); the allgather phase copies each owner's result slices out of its receive buffer, one slice behind.
 */
public final class MaSlicedAllreduce extends AbstractAlgorithm {
    public static final String NAME = "ma-sliced";

    public MaSlicedAllreduce() {
        super(Collective.ALLREDUCE, NAME, "reduce-scatter of staged slices (one k-ary pass per owner) + allgather from the owners", "[YHCCL Alg. 2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return MovementAvoidingSlices.cost(m, p, bytes, Collective.ALLREDUCE);
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
