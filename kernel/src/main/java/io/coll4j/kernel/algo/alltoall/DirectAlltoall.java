package io.coll4j.kernel.algo.alltoall;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Direct (pull) alltoall and alltoallv: rank r copies its block from every rank's send buffer straight
 * into its receive buffer — one copy per byte, where processes copy twice through a shared segment
 * [HMPI §1]. Rank r visits the others in the order r+1, r+2, … (mod p), so at every moment the p readers
 * pull from p different ranks instead of all from rank 0. Copies use non-temporal stores iff W = p·(send +
 * receive) exceeds the cache [YHCCL §4.2].
 *
 * <p>Protocol: await rank j's ANNOUNCE (acquire: its send buffer and layout); check its count for me
 * against my {@code recvCounts[j]} (a v-count mismatch aborts before the copy); copy; then publish DONE and
 * await every DONE (peers read my send buffer until then). In place, see {@link AlltoallStaging}.
 */
public final class DirectAlltoall extends AlltoallAlgorithm {
    public static final String NAME = "direct";

    public DirectAlltoall(Collective c) {
        super(c, NAME, "each rank pulls its block from every send buffer, rotated start", "[HMPI §1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2L * p * bytes;
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.copyOut(m, bytes, ws), ws);
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long es = call.dtype().size();
        BlockLayout me = call.blocks();
        AlltoallStaging.stage(call);
        boolean nt = call.copy().useNonTemporal(AlltoallStaging.workingSet(call), false);
        MemorySegment recv = call.recv();
        Transfers.copy(call, call.send(), me.sendDispl(r) * es, recv, me.recvDispl(r) * es, me.recvCount(r) * es, nt);
        for (int i = 1; i < p; i++) {
            int j = (r + i) % p;
            // acquire: rank j's send buffer and layout, published with its announce
            call.await(j, ControlBlock.ANNOUNCE, 0);
            BlockLayout pj = call.peerBlocks(j);
            call.checkBlock(j, "from it", me.recvCount(j), pj.sendCount(r));
            MemorySegment src = AlltoallStaging.peerSource(call, j, pj);
            call.record("copy", j);
            Transfers.copy(call, src, pj.sendDispl(r) * es, recv, me.recvDispl(j) * es, me.recvCount(j) * es, nt);
        }
        if (p > 1) {
            // release: I no longer read other ranks' buffers
            call.publish(ControlBlock.DONE, 0);
            call.awaitAllPeers(ControlBlock.DONE, 0);
        }
    }
}
