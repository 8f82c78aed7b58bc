package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;

/**
 * {@code ma-sliced} allreduce [YHCCL §3.4, Alg. 2]: YHCCL's movement-avoiding reduction of {@link
 * io.coll4j.kernel.algo.sliced.MovementAvoidingReduction} (protocol, double buffering, reduction order,
 * scratch and buffer reuse are stated there) into the shared slices, then every rank copies each result
 * slice out of the shared slices. Copy-in per rank 2·s/p, DAV per node s·(5p − 1).
 */
public final class MaSlicedAllreduce extends MaSlicedAlgorithm {
    public MaSlicedAllreduce() {
        super(Collective.ALLREDUCE, "MA reduce-scatter into shared slices (one copy-in per slice group) + copy-out from them");
    }
}
