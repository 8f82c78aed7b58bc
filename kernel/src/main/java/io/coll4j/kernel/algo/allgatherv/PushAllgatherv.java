package io.coll4j.kernel.algo.allgatherv;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Push allgatherv: every rank writes its own block into every rank's receive buffer, each at that rank's
 * own displacement for it ([MPI+MPI §4.1]'s irregular layout; a rank's {@code displs} are its own). Beyond
 * the cache through the streaming fold with one source: each 1 KiB of my block is read once from my
 * NUMA-local send buffer and streamed to the p destinations with non-temporal stores [YHCCL §4.1–4.2], so
 * every block comes from DRAM exactly once and every receive buffer is written once — the minimum traffic,
 * which the direct allgatherv reaches only while its readers of a block stay within the cache of each other.
 *
 * <p>Protocol: await every ANNOUNCE (acquire: every receive buffer and layout), check each rank's
 * {@code recvCounts[me]} against my count, write, publish DONE (release; the streaming copy ends with
 * sfence), await every DONE (every block has arrived, nobody writes my receive buffer any more). In place
 * (my send is my block of my receive buffer) that destination holds my block already.
 */
public final class PushAllgatherv extends AbstractAlgorithm {
    public static final String NAME = "push";

    public PushAllgatherv() {
        super(Collective.ALLGATHERV, NAME, "each rank writes its block into every receive buffer at that rank's displacement (NT iff W > C)",
                "[MPI+MPI §4.1, YHCCL §4.2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = (1L + p) * bytes;
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.pushedCopies(m, bytes, bytes - bytes / p, ws), bytes + (long) p * bytes);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long es = call.dtype().size();
        BlockLayout me = call.blocks();
        long bytes = me.count() * es;
        if (p > 1) {
            // acquire: every rank's receive buffer and layout, published with its announce
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        }
        long[] at = call.offsets();
        for (int q = 0; q < p; q++) {
            BlockLayout dst = q == r ? me : call.peerBlocks(q);
            call.checkBlock(q, "from me", me.count(), dst.recvCount(r));
            at[q] = dst.recvDispl(r) * es;
            if (q != r) {
                call.record("write", q);
            }
        }
        boolean nt = call.copy().useNonTemporal((1L + p) * me.recvTotal(p) * es, false);
        call.copyIntoRecvsAt(call.send(), 0, at, bytes, nt);
        if (p > 1) {
            // release: my block is in every receive buffer; pairs with every rank's await below
            call.publish(ControlBlock.DONE, 0);
            call.awaitAllPeers(ControlBlock.DONE, 0);
        }
    }
}
