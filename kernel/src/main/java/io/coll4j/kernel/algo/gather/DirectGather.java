package io.coll4j.kernel.algo.gather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Direct (single-copy) gather and gatherv: the root copies every rank's block straight from its send
 * buffer into its receive buffer — one copy per byte, which processes cannot do [HMPI §1]. The root's
 * one core makes all p copies, so this is the choice when the blocks are small enough that the copies
 * cost less than one more hand-over ({@link PushGather} spreads them over the p cores).
 *
 * <p>Protocol: the root awaits rank j's ANNOUNCE (acquire: its send buffer and count), checks that j's
 * count equals its {@code recvCounts[j]} (a v-count mismatch aborts the team before anything is copied),
 * copies, and finally publishes DONE; every other rank publishes nothing beyond its ANNOUNCE and waits for
 * the root's DONE, since the root reads its send buffer until then. Copies use non-temporal stores iff
 * W = 2·(total) exceeds the cache [YHCCL §4.2]. In place (the root's send is its block of recv) the root's
 * own block is not copied.
 */
public final class DirectGather extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectGather(Collective c) {
        super(c, NAME, "the root copies every block straight from its owner's send buffer", "[HMPI §1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2 * bytes;
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, bytes, ws);
        }
        // the root's p − 1 copies one after the other; its polls of the ANNOUNCEs, then the DONE hand-over
        double copies = CopyCost.copyOut(m, bytes - bytes / p, ws);
        return m.callOverhead() + 2 * CopyCost.flag(m) + CopyCost.poll(m, p - 1)
                + Math.max(copies, CopyCost.dram(m, 2 * bytes, ws));
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;          // the root awaited every ANNOUNCE before its DONE, which the others await
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        if (r != root) {
            // acquire: pairs with the root's DONE release; it no longer reads my send buffer
            call.await(root, ControlBlock.DONE, 0);
            return;
        }
        BlockLayout me = call.blocks();
        long total = me.recvTotal(p) * es;
        boolean nt = call.copy().useNonTemporal(2 * total, false);
        for (int j = 0; j < p; j++) {
            long off = me.recvDispl(j) * es;
            if (j == r) {
                Transfers.copy(call, call.send(), 0, call.recv(), off, me.count() * es, nt);
                continue;
            }
            // acquire: rank j's send buffer and count, published with its announce
            call.await(j, ControlBlock.ANNOUNCE, 0);
            call.checkBlock(j, "from it", me.recvCount(j), call.peerBlocks(j).count());
            call.record("copy", j);
            Transfers.copy(call, call.peerSend(j), 0, call.recv(), off, me.recvCount(j) * es, nt);
        }
        if (p > 1) {
            // release: I no longer read other ranks' send buffers
            call.publish(ControlBlock.DONE, 0);
        }
    }
}
