package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

/**
 * An algorithm that can also run a call as resumable steps (docs/design.md, "One contract for every form"):
 * the non-blocking, persistent and chained forms ({@code rank.iallreduce}, {@code allreduceInit}, {@code Chain})
 * run its {@link Steps}, worked by any rank that waits or by the team's progress thread — PAMI's resumable state
 * machines [PAMI §3]. The blocking form runs {@link #run} to completion in the caller; both are the same
 * algorithm, one class, so the catalogue, the selector and the machine model serve every form: a request runs
 * what {@link Selector#chooseSteps} names, a forced {@code Team.Builder.algorithm(...)} when it is resumable.
 */
public interface Resumable extends CollectiveAlgorithm {

    /** Whether the steps can run a call of this shape (the blocking form's limits are {@link #supports}'s). */
    default boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return true;
    }

    /**
     * Predicted time of the steps, seconds, for {@code bytes} per rank on a team of {@code shape}, awaited at
     * once: what the selector ranks for a request. The blocking cost unless the steps differ from the blocking
     * protocol in what they move or how often they hand over.
     */
    default double stepsCost(MachineModel model, TeamShape shape, long bytes) {
        return cost(model, shape, bytes);
    }

    /** The steps of one call (made once, by the call's first issuer; shared by every round and every worker). */
    Steps steps(StepCall call);
}
