package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.StagedSlicedAlgorithm;

/**
 * {@code staged-sliced} allreduce: the DPML-style staging of {@link io.coll4j.kernel.algo.sliced.StagedSlices}
 * (protocol, double buffering, reduction order, scratch and buffer reuse are stated there); the allgather
 * phase copies each owner's result slices out of its receive buffer, one slice behind. Copy-in per rank 2·s.
 */
public final class StagedSlicedAllreduce extends StagedSlicedAlgorithm {
    public StagedSlicedAllreduce() {
        super(Collective.ALLREDUCE, "all p blocks staged, owners fold in one k-ary pass + allgather from the owners");
    }
}
