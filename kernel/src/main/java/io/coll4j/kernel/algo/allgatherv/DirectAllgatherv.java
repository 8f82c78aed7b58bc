package io.coll4j.kernel.algo.allgatherv;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Direct (single-copy) allgatherv: every rank copies block j straight from rank j's send buffer to its own
 * {@code displs[j]} — the irregular allgather of [MPI+MPI §4.1] without its shared window: thread ranks
 * read each other's buffers where MPI+MPI's processes must first place their data in one shared segment.
 * p·(total) bytes copied in all, the minimum for private receive buffers. As the direct allgather, every
 * rank walks the blocks in ascending order so the readers of a block meet in the shared cache [HMPI §2.2],
 * and copies with non-temporal stores iff W = total + p·total exceeds the cache [YHCCL §4.2].
 *
 * <p>Protocol: await rank j's ANNOUNCE (acquire: its send buffer and count), check its count against my
 * {@code recvCounts[j]} (the arrays are the same on every rank — their hash is in the check word — so this
 * catches only a send count that contradicts them, already refused by argument checks), copy; then publish
 * DONE and await every DONE (peers read my send buffer until then). In place my block is not copied.
 */
public final class DirectAllgatherv extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectAllgatherv() {
        super(Collective.ALLGATHERV, NAME, "each rank copies every block straight from its owner to its displacement",
                "[MPI+MPI §4.1, HMPI §2.2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = (1L + p) * bytes;
        // each send buffer read once while its readers stay within the cache of each other, p times beyond
        long sendReads = bytes / p > m.cacheCapacity() / p ? (long) p * bytes : bytes;
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.copyOut(m, bytes, ws), sendReads + (long) p * bytes);
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
        long total = me.recvTotal(p) * es;
        boolean nt = call.copy().useNonTemporal((1L + p) * total, false);
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
        if (p == 1) {
            return;
        }
        // release: I no longer read other ranks' send buffers
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
