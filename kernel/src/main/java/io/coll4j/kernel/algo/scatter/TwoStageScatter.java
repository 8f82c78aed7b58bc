package io.coll4j.kernel.algo.scatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Two-stage scatter and scatterv [HMPI §2.6]: "similar to the broadcast phase of allreduce, the
 * intranode scatter phase can be implemented as one- or two-stage scatter" — the two-stage broadcast's
 * socket masters [HMPI §2.2, Fig. 4] applied to a scatter. In every package other than the root's, the
 * master (its lowest rank) copies the blocks of its package's ranks across the package link once, into
 * its scratch (each at its displacement in the root's buffer), and publishes ARRIVE; the package's other
 * ranks copy their block from the master's scratch, on their own package. The root's package, and
 * masters of one-rank packages, read the root directly. With one package it is {@link DirectScatter}.
 *
 * <p>Protocol: a rank that reads the root's send buffer (a master, a rank of the root's package) awaits
 * the root's ANNOUNCE, checks the counts, copies, and publishes DONE (release: it no longer reads the
 * root's buffer); a master publishes ARRIVE once its package's blocks are staged; its members await it
 * (acquire) and copy. The root awaits the DONE of every rank that reads it. A master's scratch of parity
 * s is rewritten at s + 2, after the runtime's lag check. The staging copy stays temporal (read again at
 * once); copy-out uses non-temporal stores iff W = 3·(total) exceeds the cache [YHCCL §4.2].
 */
public final class TwoStageScatter extends AbstractAlgorithm {
    public static final String NAME = "two-stage";

    public TwoStageScatter(Collective c) {
        super(c, NAME, "one master per package copies its package's blocks across the link, members copy locally", "[HMPI §2.6]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 3 * bytes;
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, bytes, ws);
        }
        // a master's relay of its package's blocks, then the members' local copies, one after the other
        double relay = Math.max(CopyCost.copyIn(m, bytes / 2, ws), bytes / 2.0 / m.crossPackageBandwidth());
        double copies = relay + CopyCost.copyOut(m, bytes / p, ws);
        return m.callOverhead() + 3 * CopyCost.flag(m) + m.lineLatencyCrossPackage()
                + Math.max(copies, CopyCost.dram(m, 3 * bytes, ws));
    }

    /** True when {@code r} stages its package's blocks for the others (a master of another package with members). */
    private static boolean relays(TeamLayout layout, int r, int root) {
        return r != root && layout.twoStageRelay(r, root);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        // the root's layout is not known before its announce: size the staging buffer on first use instead
        return 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        long bytes = call.count() * es;
        TeamLayout layout = call.team().layout();
        if (r == root) {
            BlockLayout me = call.blocks();
            Transfers.copy(call, call.send(), me.sendDispl(r) * es, call.recv(), 0, bytes, false);
            for (int q = 0; q < p; q++) {
                if (q != r && layout.twoStageSource(q, root) == root) {
                    // acquire: pairs with q's DONE; it no longer reads my send buffer
                    call.await(q, ControlBlock.DONE, 0);
                }
            }
            return;
        }
        int src = layout.twoStageSource(r, root);
        if (src == root) {
            call.await(root, ControlBlock.ANNOUNCE, 0);
            BlockLayout at = call.peerBlocks(root);
            call.checkBlock(root, "from it", call.count(), at.sendCount(r));
            boolean nt = call.copy().useNonTemporal(3 * at.sendTotal(p) * es, false);
            call.record("copy", root);
            if (relays(layout, r, root)) {
                stagePackage(call, at, layout, nt);
            } else {
                Transfers.copy(call, call.peerSend(root), at.sendDispl(r) * es, call.recv(), 0, bytes, nt);
            }
            // release: I no longer read the root's send buffer
            call.publish(ControlBlock.DONE, 0);
            return;
        }
        // a member of another package: my master staged my block at its displacement in the root's buffer
        call.await(src, ControlBlock.ARRIVE, 0);
        call.await(root, ControlBlock.ANNOUNCE, 0);
        BlockLayout at = call.peerBlocks(root);
        call.checkBlock(root, "from it", call.count(), at.sendCount(r));
        boolean nt = call.copy().useNonTemporal(3 * at.sendTotal(p) * es, false);
        call.record("copy", src);
        Transfers.copy(call, call.peerScratch(src), at.sendDispl(r) * es, call.recv(), 0, bytes, nt);
    }

    /** A master: my package's blocks from the root into my scratch (its layout), my own into recv, then ARRIVE. */
    private static void stagePackage(CollectiveCall call, BlockLayout at, TeamLayout layout, boolean nt) {
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        int[] members = layout.packageMembers(layout.packageGroupOf(r));
        long extent = 0;
        for (int q : members) {
            if (at.sendCount(q) > 0) {
                extent = Math.max(extent, (at.sendDispl(q) + at.sendCount(q)) * es);
            }
        }
        java.lang.foreign.MemorySegment staging = call.ensureScratch(extent);
        for (int q : members) {
            long off = at.sendDispl(q) * es;
            if (q == r) {
                Transfers.copy(call, call.peerSend(root), off, call.recv(), 0, call.count() * es, nt);
            } else {
                Transfers.copy(call, call.peerSend(root), off, staging, off, at.sendCount(q) * es, false);
            }
        }
        // release: my package's blocks are staged; pairs with my members' await of ARRIVE
        call.publish(ControlBlock.ARRIVE, 0);
    }
}
