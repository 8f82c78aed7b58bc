package io.coll4j.kernel.algo.barrier;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TreeShape;
import io.coll4j.kernel.algo.Oversubscription;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Tree barrier with padded flags [HMPI §2, §2.6]: an allreduce with zero workload. Arrival goes up
 * the hierarchical binomial tree of {@link TreeShape} (each rank waits for its children's ARRIVE, then
 * publishes its own); the release comes down as HMPI's two-stage broadcast: the root publishes
 * RELEASE, package masters wait for the root and publish RELEASE, the other ranks wait for their
 * package master. With one package this is HMPI's one-stage broadcast (everyone reads the root's line).
 *
 * <p>Every flag is a rank's own 128-byte line, so no two ranks ever write one line. Memory effects: a
 * rank's writes before the barrier are released by its ARRIVE, acquired by its parent, and so on up to
 * the root, whose RELEASE (transitively) carries them to every rank.
 */
public final class TreeBarrier extends AbstractAlgorithm {
    public static final String NAME = "tree";

    public TreeBarrier() {
        super(Collective.BARRIER, NAME, "binomial arrival tree over packages, two-stage release", "[HMPI §2, §2.6]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return m.callOverhead() + (height(p) + 2) * m.lineLatencySameL3();
    }

    /** ⌈log2 p⌉: the levels of the binomial arrival tree. */
    static int height(int p) {
        return 32 - Integer.numberOfLeadingZeros(Math.max(p - 1, 0));
    }

    /** Oversubscribed: each level of the arrival tree, and the release [{@link Oversubscription}]. */
    @Override
    public int waitRounds(int ranks) {
        return height(ranks) + 1;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        if (call.size() == 1) {
            return;
        }
        int r = call.rank();
        TreeShape tree = call.team().tree(0);
        for (int child : tree.children(r)) {
            call.await(child, ControlBlock.ARRIVE, 0);
        }
        int parent = tree.parent(r);
        if (parent >= 0) {
            // release: my subtree has arrived; pairs with my parent's await on my ARRIVE
            call.publish(ControlBlock.ARRIVE, 0);
            call.await(call.team().layout().twoStageSource(r, tree.root()), ControlBlock.RELEASE, 0);
        }
        if (call.team().layout().twoStageRelay(r, tree.root())) {
            // release: everyone who waits on me may leave
            call.publish(ControlBlock.RELEASE, 0);
        }
    }
}
