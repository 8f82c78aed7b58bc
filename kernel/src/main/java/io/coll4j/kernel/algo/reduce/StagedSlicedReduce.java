package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.StagedSlicedAlgorithm;

/**
 * {@code staged-sliced} reduce: the DPML-style staging of {@link io.coll4j.kernel.algo.sliced.StagedSlices}
 * (protocol, double buffering, reduction order, scratch and buffer reuse are stated there); the owners fold
 * their blocks straight into the root's receive buffer, every core working. Copy-in per rank 2·s.
 */
public final class StagedSlicedReduce extends StagedSlicedAlgorithm {
    public StagedSlicedReduce() {
        super(Collective.REDUCE, "all p blocks staged, owners fold their blocks into the root's buffer");
    }
}
