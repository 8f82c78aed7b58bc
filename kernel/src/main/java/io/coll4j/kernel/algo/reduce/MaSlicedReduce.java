package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;

/**
 * {@code ma-sliced} reduce [YHCCL §3.5]: YHCCL's movement-avoiding reduction of {@link
 * io.coll4j.kernel.algo.sliced.MovementAvoidingReduction} (protocol, double buffering, reduction order,
 * scratch and buffer reuse are stated there) into the shared slices, then the root copies the result out.
 * Copy-in per rank 2·s/p, DAV per node s·(3p + 1).
 */
public final class MaSlicedReduce extends MaSlicedAlgorithm {
    public MaSlicedReduce() {
        super(Collective.REDUCE, "MA reduce-scatter into shared slices (one copy-in per slice group) + the root copies out");
    }
}
