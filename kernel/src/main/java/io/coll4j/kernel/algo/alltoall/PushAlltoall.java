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
 * Push alltoall and alltoallv: rank r writes its block for rank j straight into j's receive buffer — one
 * copy per byte [HMPI §1], reading only its own (NUMA-local) send buffer and writing remote lines, the
 * mirror image of {@link DirectAlltoall}. Beyond the cache the writes are non-temporal [YHCCL §4.1–4.2]:
 * a pushed line is not read by its writer again, and a streaming store skips the read for ownership of a
 * line the reader owns. Rotated order r, r+1, … spreads the writers over the receivers.
 *
 * <p>Protocol: await every ANNOUNCE (acquire: every receive buffer and layout); for each j check j's
 * {@code recvCounts[r]} against my {@code sendCounts[j]} (mismatch aborts before writing), for an in-place j
 * await its ARRIVE (it has staged its own outgoing blocks, {@link AlltoallStaging}), write; publish DONE
 * (release; NT copies end with sfence) and await every DONE (every block has arrived).
 */
public final class PushAlltoall extends AlltoallAlgorithm {
    public static final String NAME = "push";

    public PushAlltoall(Collective c) {
        super(c, NAME, "each rank writes its blocks into the receivers' buffers (NT iff W > C)", "[HMPI §1, YHCCL §4.2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2L * p * bytes;
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.pushedCopies(m, bytes, bytes - bytes / p, ws), ws);
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long es = call.dtype().size();
        BlockLayout me = call.blocks();
        MemorySegment src = AlltoallStaging.stage(call);
        boolean nt = call.copy().useNonTemporal(AlltoallStaging.workingSet(call), false);
        if (!me.inPlace()) {
            Transfers.copy(call, src, me.sendDispl(r) * es, call.recv(), me.recvDispl(r) * es, me.recvCount(r) * es, nt);
        }
        if (p == 1) {
            return;
        }
        // acquire: every rank's receive buffer and layout, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int i = 1; i < p; i++) {
            int j = (r + i) % p;
            BlockLayout pj = call.peerBlocks(j);
            call.checkBlock(j, "from me", me.sendCount(j), pj.recvCount(r));
            if (pj.inPlace()) {
                // acquire: j has staged its outgoing blocks; its buffer may be overwritten now
                call.await(j, ControlBlock.ARRIVE, 0);
            }
            call.record("write", j);
            Transfers.copy(call, src, me.sendDispl(j) * es, call.peerRecv(j), pj.recvDispl(r) * es, me.sendCount(j) * es, nt);
        }
        // release: my blocks are in every receive buffer; pairs with every rank's await below
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
