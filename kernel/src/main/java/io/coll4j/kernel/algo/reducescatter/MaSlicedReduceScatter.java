package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;
import io.coll4j.Collective;

/**
 * {@code ma-sliced} reduce-scatter [YHCCL Alg. 2]: the strip-mined movement-avoiding reduction of {@link
 * MovementAvoidingSlices} (protocol, double buffering, reduction order, scratch and buffer reuse are stated
 * there); each owner folds its own block into its receive buffer and nothing is copied out.
 */
public final class MaSlicedReduceScatter extends MaSlicedAlgorithm {
    public MaSlicedReduceScatter() {
        super(Collective.REDUCE_SCATTER, "slices staged in a double buffer, each owner folds its block in one k-ary pass");
    }
}
