package io.coll4j.kernel.algo.bcast;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Direct broadcast: thread ranks share one address space, so every receiver copies straight from the
 * root's buffer once the root has published that it is ready — one copy per receiver, the minimum
 * [HMPI §1 "only one copy, the minimum possible"]. The root must keep its buffer unchanged until every
 * receiver has copied, so it waits for every rank's DONE before returning (one more flag round trip
 * than {@link FlatBcast}, one copy less).
 */
public final class DirectBcast extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectBcast() {
        super(Collective.BCAST, NAME, "receivers copy straight from the root's buffer, root waits for all", "[HMPI §1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = (long) p * bytes;
        return 2 * m.lineLatencySameL3() + (p - 1) * m.lineLatencySameL3() / 4
                + Math.max(m.copyTime(bytes, ws), (double) (p - 1) * bytes / m.memoryBandwidth());
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return rank == root;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (p == 1) {
            return;
        }
        int root = call.root();
        if (call.rank() == root) {
            // release: my buffer (published with the announce) is final
            call.publish(ControlBlock.ARRIVE, 0);
            call.awaitAllPeers(ControlBlock.DONE, 0);
            return;
        }
        call.await(root, ControlBlock.ARRIVE, 0);
        call.record("copy", root);
        long bytes = call.bytes();
        boolean nt = call.copy().useNonTemporal((long) p * bytes, false);
        Transfers.copy(call, call.peerRecv(root), 0, call.recv(), 0, bytes, nt);
        // release: I no longer read the root's buffer; pairs with the root's awaitAllPeers(DONE)
        call.publish(ControlBlock.DONE, 0);
    }
}
