package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.MaSlicedAlgorithm;

/**
 * {@code ma-sliced} reduce-scatter [YHCCL §3.3, Fig. 6]: YHCCL's movement-avoiding reduction of {@link
 * io.coll4j.kernel.algo.sliced.MovementAvoidingReduction} (protocol, double buffering, reduction order,
 * scratch and buffer reuse are stated there); each owner's last step reduces the shared slice and its own
 * send slice straight into its receive buffer. Copy-in per rank 2·s/p, DAV per node s·(3p − 1).
 */
public final class MaSlicedReduceScatter extends MaSlicedAlgorithm {
    public MaSlicedReduceScatter() {
        super(Collective.REDUCE_SCATTER, "one copy-in per slice group, then in-place accumulation along a ring of ranks; owner ends into its buffer");
    }
}
