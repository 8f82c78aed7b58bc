package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;

/**
 * {@code ma-sliced} allreduce [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of {@link
 * io.coll4j.kernel.algo.sliced.MovementAvoidingSlices} (protocol, double buffering, reduction order,
 * scratch and buffer reuse are stated there); the allgather phase copies each owner's result slices out of
 * its receive buffer, one slice behind.
 */
public final class MaSlicedAllreduce extends MaSlicedAlgorithm {
    public MaSlicedAllreduce() {
        super(Collective.ALLREDUCE, "reduce-scatter of staged slices (one k-ary pass per owner) + allgather from the owners");
    }
}
