package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.TreeFold;
import io.coll4j.kernel.algo.TreeShape;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Reduce-broadcast allreduce, HMPI's "tree" algorithm [HMPI §2.2, Eq. 5]: a binomial reduction tree
 * over packages (one k-ary pass per node, as {@code TreeReduce}) to rank 0, whose result goes to its
 * scratch (or the payload of its RELEASE line for messages up to 48 bytes); then HMPI's two-stage
 * broadcast: package masters copy the result across once and relay it, the other ranks copy from
 * their package's relay. With one package it is the one-stage broadcast.
 *
 * <p>No rank returns before the result has reached it, so leaves expose their send buffer as their
 * partial with no copy; interior ranks fold into their scratch. Every rank copies the same bytes of the
 * root's result, so every rank gets bitwise the same result.
 *
 * <p>Reduction order: {@code own op child1 op child2 …} at every node (tree order), deterministic for
 * the layout. With {@code reproducible(true)} rank 0 folds every send buffer in ascending rank order.
 */
public final class TreeAllreduce extends AbstractAlgorithm {
    public static final String NAME = "tree";

    public TreeAllreduce() {
        super(Collective.ALLREDUCE, NAME, "binomial reduce over packages + two-stage broadcast", "[HMPI §2.2, Eq. 5]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, 2 * bytes);
        }
        long ws = 3L * p * bytes;
        // [HMPI Eq. 5] the reduce half (TreeFold.levels), then the one-stage broadcast: a_α + every rank
        // copying m from the root's scratch, NT stores past the cache as the copy engine decides (B_α·2pm in DRAM)
        // (the root folded the result during this call: its lines are pulled one transfer each)
        double bcast = m.lineLatencySameL3() + TreeFold.firstLine(m, bytes)
                + Math.max(CopyCost.copyOutPeerWritten(m, bytes, ws / p, ws), m.dramTime(2L * p * bytes, ws));
        return m.callOverhead() + TreeFold.levels(m, p, bytes, ws) + bcast;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        long bytes = call.bytes();
        if (Transfers.inline(bytes)) {
            return 0;
        }
        int r = call.rank();
        boolean interior = !call.reproducible() && call.team().tree(0).children(r).length > 0;
        return interior || call.team().layout().twoStageRelay(r, 0) ? bytes : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long bytes = call.bytes();
        if (p == 1) {
            Transfers.copy(call, call.send(), 0, call.recv(), 0, bytes, false);
            return;
        }
        boolean inline = Transfers.inline(bytes);
        if (call.reproducible()) {
            if (r == 0) {
                call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
                TreeFold.everySendBufferInRankOrder(call, 0);
                foldResult(call, inline);
            }
        } else {
            reduceUp(call, inline);
        }
        broadcastDown(call, inline);
    }

    private static void reduceUp(CollectiveCall call, boolean inline) {
        int r = call.rank();
        TreeShape tree = call.team().tree(0);
        int[] kids = tree.children(r);
        if (kids.length == 0) {
            if (inline) {
                Transfers.copy(call, call.send(), 0, call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), call.bytes(), false);
            }
            // release: my partial (inline, or my send buffer, read until the result comes back)
            call.publish(ControlBlock.ARRIVE, 0);
            return;
        }
        for (int kid : kids) {
            call.await(kid, ControlBlock.ARRIVE, 0);
        }
        TreeFold.ownAndChildren(call, tree, kids, inline);
        if (r == 0) {
            foldResult(call, inline);
        } else {
            if (inline) {
                call.foldInto(call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), call.count());
            } else {
                call.foldInto(call.scratch(), 0, call.count());
            }
            // release: my partial; pairs with my parent's await
            call.publish(ControlBlock.ARRIVE, 0);
        }
    }

    private static void foldResult(CollectiveCall call, boolean inline) {
        if (inline) {
            call.foldInto(call.control(), call.inlinePayload(0, ControlBlock.RELEASE), call.count());
        } else {
            call.foldInto(call.scratch(), 0, call.count());
        }
    }

    private static void broadcastDown(CollectiveCall call, boolean inline) {
        int r = call.rank();
        int p = call.size();
        long bytes = call.bytes();
        TeamLayout layout = call.team().layout();
        MemorySegment from;
        long fromOff;
        if (r == 0) {
            // release: the result; pairs with the awaits of rank 0's readers
            call.publish(ControlBlock.RELEASE, 0);
            from = inline ? call.control() : call.scratch();
            fromOff = inline ? call.inlinePayload(0, ControlBlock.RELEASE) : 0;
        } else {
            int src = layout.twoStageSource(r, 0);
            call.await(src, ControlBlock.RELEASE, 0);
            call.record("copy", src);
            from = inline ? call.control() : call.peerScratch(src);
            fromOff = inline ? call.inlinePayload(src, ControlBlock.RELEASE) : 0;
            if (layout.twoStageRelay(r, 0)) {
                // package master: one copy across the package link, then serve my package from it
                MemorySegment mine = inline ? call.control() : call.scratch();
                long mineOff = inline ? call.inlinePayload(r, ControlBlock.RELEASE) : 0;
                Transfers.copy(call, from, fromOff, mine, mineOff, bytes, false);
                call.publish(ControlBlock.RELEASE, 0);
                from = mine;
                fromOff = mineOff;
            }
        }
        boolean nt = !inline && call.copy().useNonTemporal(3L * p * bytes, false);
        Transfers.copy(call, from, fromOff, call.recv(), 0, bytes, nt);
    }
}
