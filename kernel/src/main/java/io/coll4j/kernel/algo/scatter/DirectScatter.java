package io.coll4j.kernel.algo.scatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * One-stage (direct) scatter and scatterv [HMPI §2.6, one-stage]: every rank copies its block straight
 * from the root's send buffer — one copy per byte, all receivers at once. The root reads nothing and
 * copies only its own block, then waits for every receiver's DONE (they read its send buffer until then).
 *
 * <p>Protocol: receiver — await the root's ANNOUNCE (acquire: its send buffer and counts), check the
 * root's count for me against mine (a v-count mismatch aborts before the copy), copy, publish DONE
 * (release: I no longer read the root's buffer). Root — copy its own block (nothing in place), await every
 * DONE. Copy-out with non-temporal stores iff W = 2·(total) exceeds the cache [YHCCL §4.2].
 *
 * <p>As resumable steps (scatter requests beyond {@link FlatScatter}'s staged sizes; a scatterv request runs the
 * engine's {@code VectorBlocks}): per-rank items, item q copies block q of the root's send buffer into recv_q, its
 * own rank first, a waiting rank takes a late peer's. In place at the root its own block is skipped.
 */
public final class DirectScatter extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "direct";

    public DirectScatter(Collective c) {
        super(c, NAME, "one-stage: every rank copies its block straight from the root's send buffer", "[HMPI §2.6]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2 * bytes;
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, bytes, ws);
        }
        double copies = CopyCost.copyOut(m, bytes / p, ws);
        return m.callOverhead() + 2 * CopyCost.flag(m) + CopyCost.poll(m, p - 1)
                + Math.max(copies, CopyCost.dram(m, 2 * bytes, ws));
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return rank == root || ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        long bytes = call.count() * es;
        if (r == root) {
            BlockLayout me = call.blocks();
            Transfers.copy(call, call.send(), me.sendDispl(r) * es, call.recv(), 0, bytes, false);
            if (p > 1) {
                // acquire: pairs with every receiver's DONE; nobody reads my send buffer any more
                call.awaitAllPeers(ControlBlock.DONE, 0);
            }
            return;
        }
        // acquire: the root's send buffer and counts, published with its announce
        call.await(root, ControlBlock.ANNOUNCE, 0);
        BlockLayout at = call.peerBlocks(root);
        call.checkBlock(root, "from it", call.count(), at.sendCount(r));
        boolean nt = call.copy().useNonTemporal(2 * at.sendTotal(p) * es, false);
        call.record("copy", root);
        Transfers.copy(call, call.peerSend(root), at.sendDispl(r) * es, call.recv(), 0, bytes, nt);
        // release: I no longer read the root's send buffer
        call.publish(ControlBlock.DONE, 0);
    }

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return !collective().vector();
    }

    @Override
    public Steps steps(StepCall call) {
        long block = call.count() * call.elementSize();
        return new Items(call.ranks(), call.root(), block, call.copy(), call.copy().useNonTemporal(2L * call.ranks() * block, false));
    }

    /** Item q copies block q of the root's send buffer into recv_q. */
    private record Items(int ranks, int root, long block, io.coll4j.bindings.copy.Copy copy, boolean nonTemporal)
            implements PerRankItems {
        @Override
        public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
            int q = (int) i;
            // in place at the root, recv_root is its block of send_root: copy() skips a range onto itself
            ItemWorker.copy(copy, send[root], q * block, recv[q], 0, block, nonTemporal);
        }
    }
}
