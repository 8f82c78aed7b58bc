package io.coll4j.kernel.algo.alltoall;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;

/**
 * What the pull and push alltoall(v) share: an in-place call stages the rank's outgoing blocks in scratch
 * ({@link AlltoallStaging}), and every rank's result depends on every other rank's entry.
 */
abstract class AlltoallAlgorithm extends AbstractAlgorithm {
    AlltoallAlgorithm(Collective collective, String name, String summary, String seed) {
        super(collective, name, summary, seed);
    }

    @Override
    public final long scratchBytes(CollectiveCall call) {
        return AlltoallStaging.scratchBytes(call);
    }

    @Override
    public final boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }
}
