package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.sliced.StagedSlicedAlgorithm;

/**
 * {@code staged-sliced} reduce-scatter: the DPML-style staging of {@link
 * io.coll4j.kernel.algo.sliced.StagedSlices} (protocol, double buffering, reduction order, scratch and
 * buffer reuse are stated there); each owner folds its block into its receive buffer. Copy-in per rank 2·s.
 */
public final class StagedSlicedReduceScatter extends StagedSlicedAlgorithm {
    public StagedSlicedReduceScatter() {
        super(Collective.REDUCE_SCATTER, "all p blocks staged slice by slice, each owner folds its block in one k-ary pass");
    }
}
