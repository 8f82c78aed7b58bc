package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;

/**
 * {@code ma-sliced} reduce [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of {@link
 * io.coll4j.kernel.algo.sliced.MovementAvoidingSlices} (protocol, double buffering, reduction order,
 * scratch and buffer reuse are stated there); the owners fold their blocks straight into the root's receive
 * buffer, every core working.
 */
public final class MaSlicedReduce extends MaSlicedAlgorithm {
    public MaSlicedReduce() {
        super(Collective.REDUCE, "slices staged in a double buffer, owners fold their blocks into the root's buffer");
    }
}
