package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Direct (single-copy) allgather: every rank copies block j straight from rank j's send buffer into
 * block j of its receive buffer — one copy per block per receiver, the minimum for thread ranks
 * [HMPI §1]. Peers read my send buffer until they publish DONE, so every rank waits for all DONEs before
 * returning. In place (my send buffer is block r of my receive buffer) my own block is not copied.
 * Copy-out uses non-temporal stores iff the working set exceeds the cache [YHCCL §4.2].
 */
public final class DirectAllgather extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectAllgather() {
        super(Collective.ALLGATHER, NAME, "each rank copies every block straight from its owner", "[HMPI §1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = (long) p * bytes + bytes / p;
        return 3 * m.lineLatencySameL3() + Math.max(m.copyTime(bytes, ws), (double) p * bytes / m.memoryBandwidth());
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long block = call.bytes();
        boolean nt = call.copy().useNonTemporal(p * block + block, false);
        Transfers.copy(call, call.send(), 0, call.recv(), r * block, block, nt);
        if (p == 1) {
            return;
        }
        for (int i = 1; i < p; i++) {
            int j = (r + i) % p;
            call.await(j, ControlBlock.ANNOUNCE, 0);
            call.record("copy", j);
            Transfers.copy(call, call.peerSend(j), 0, call.recv(), j * block, block, nt);
        }
        // release: I no longer read other ranks' send buffers
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
