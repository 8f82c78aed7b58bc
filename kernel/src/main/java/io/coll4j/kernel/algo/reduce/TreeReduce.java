package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TreeFold;
import io.coll4j.kernel.algo.TreeShape;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Binary (binomial) tree reduce [HMPI §2.2, §2.6] over the hierarchical tree of {@link TreeShape}:
 * cross-package edges only at the top. Each rank waits for its children's ARRIVE, folds its own send
 * buffer and its children's partial results in ONE k-ary pass, and publishes ARRIVE.
 *
 * <p>Where a partial result lives: a leaf's is its send buffer (read in place by its parent; the leaf
 * waits for the parent's ARRIVE before returning, so the caller may reuse the buffer); an interior
 * rank's is its scratch, [HMPI §2.6] "an extra temporary buffer for each parent thread, since only the
 * root has an output buffer"; the root's is its receive buffer. Messages up to 48 bytes travel in the
 * payload of the ARRIVE line instead (leaves then return at once).
 *
 * <p>Reduction order: every rank computes {@code own op child1 op child2 …} with children in tree
 * order (intra-package binomial children, then other packages' masters); deterministic for a given
 * team layout and root. With {@code reproducible(true)} the root instead reads every rank's send
 * buffer and folds them in ascending rank order (bitwise the scalar left fold); the others wait for
 * its RELEASE before returning.
 */
public final class TreeReduce extends AbstractAlgorithm {
    public static final String NAME = "tree";

    public TreeReduce() {
        super(Collective.REDUCE, NAME, "binomial tree over packages, one k-ary pass per node", "[HMPI §2.2, §2.6]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, 2 * bytes);
        }
        long ws = 3L * p * bytes;
        // [HMPI Eq. 5, reduce half] (TreeFold.levels), and the leaves' wait for their parent's ARRIVE before
        // they return (a_α)
        return m.callOverhead() + TreeFold.levels(m, p, bytes, ws) + m.lineLatencySameL3();
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (call.reproducible() || Transfers.inline(call.bytes())) {
            return 0;
        }
        TreeShape tree = call.team().tree(call.root());
        int r = call.rank();
        return r != call.root() && tree.children(r).length > 0 ? call.bytes() : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return rank == root;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long bytes = call.bytes();
        if (p == 1) {
            Transfers.copy(call, call.send(), 0, call.recv(), 0, bytes, false);
            return;
        }
        if (call.reproducible()) {
            runRankOrdered(call);
            return;
        }
        boolean inline = Transfers.inline(bytes);
        TreeShape tree = call.team().tree(root);
        int[] kids = tree.children(r);
        if (kids.length == 0) {
            if (inline) {
                Transfers.copy(call, call.send(), 0, call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), bytes, false);
                call.publish(ControlBlock.ARRIVE, 0);
            } else {
                // release: my send buffer is my partial; pairs with my parent's await
                call.publish(ControlBlock.ARRIVE, 0);
                // the parent publishes ARRIVE only after it has read my buffer
                call.await(tree.parent(r), ControlBlock.ARRIVE, 0);
            }
            return;
        }
        for (int kid : kids) {
            call.await(kid, ControlBlock.ARRIVE, 0);
        }
        TreeFold.ownAndChildren(call, tree, kids, inline);
        if (r == root) {
            call.foldInto(call.recv(), 0, call.count());
        } else if (inline) {
            call.foldInto(call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), call.count());
        } else {
            call.foldInto(call.scratch(), 0, call.count());
        }
        // release: my partial is ready (and my children's buffers are no longer read)
        call.publish(ControlBlock.ARRIVE, 0);
    }

    private static void runRankOrdered(CollectiveCall call) {
        int root = call.root();
        if (call.rank() != root) {
            // my send buffer was published with the announce; the root reads it directly
            call.await(root, ControlBlock.RELEASE, 0);
            return;
        }
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        TreeFold.everySendBufferInRankOrder(call, root);
        call.foldInto(call.recv(), 0, call.count());
        // release: nobody's send buffer is read any more
        call.publish(ControlBlock.RELEASE, 0);
    }
}
