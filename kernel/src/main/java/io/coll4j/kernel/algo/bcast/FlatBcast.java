package io.coll4j.kernel.algo.bcast;

import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Flat broadcast through one shared buffer [PAMI §3.4]: the root copies the message into its staging
 * buffer (its scratch; for messages up to 48 bytes the payload of its ARRIVE line) and publishes
 * ARRIVE; every other rank waits for it and copies the message out. The root returns as soon as it has
 * published, so back-to-back broadcasts pipeline; the staging buffer of parity s is reused at s+2,
 * when the runtime's lag check has seen every rank enter s+1.
 *
 * <p>Copies: s into the staging buffer, then s out per receiver — p·s in all, s more than
 * {@link DirectBcast}, but the root does not wait for anyone. Copy-out uses non-temporal stores iff the
 * working set (p+1)·s exceeds the cache [YHCCL §4.2]; the copy-in stays temporal (it is read again at
 * once).
 */
public final class FlatBcast extends AbstractAlgorithm {
    public static final String NAME = "flat";

    public FlatBcast() {
        super(Collective.BCAST, NAME, "root stages the message in one shared buffer, everyone copies it out", "[PAMI §3.4]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return 0;
        }
        long ws = (p + 1L) * bytes;
        // root's copy-in, then the receivers' copy-out, one after the other; in DRAM: the root's buffer read,
        // the staging buffer written back and read once (synergy), p−1 receive buffers written
        double copies = CopyCost.copyIn(m, bytes, ws) + CopyCost.copyOut(m, bytes, ws);
        return m.callOverhead() + CopyCost.flag(m) + Math.max(copies, CopyCost.dram(m, (p + 2L) * bytes, ws));
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.size() > 1 && call.rank() == call.root() && !Transfers.inline(call.bytes()) ? call.bytes() : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (p == 1) {
            return;
        }
        long bytes = call.bytes();
        int root = call.root();
        boolean inline = Transfers.inline(bytes);
        if (call.rank() == root) {
            MemorySegment staging = inline ? call.control() : call.scratch();
            long off = inline ? call.inlinePayload(root, ControlBlock.ARRIVE) : 0;
            Transfers.copy(call, call.recv(), 0, staging, off, bytes, false);
            // release: the staged message; pairs with the receivers' await on my ARRIVE
            call.publish(ControlBlock.ARRIVE, 0);
            return;
        }
        call.await(root, ControlBlock.ARRIVE, 0);
        call.record("copy", root);
        MemorySegment staging = inline ? call.control() : call.peerScratch(root);
        long off = inline ? call.inlinePayload(root, ControlBlock.ARRIVE) : 0;
        boolean nt = !inline && call.copy().useNonTemporal((p + 1L) * bytes, false);
        Transfers.copy(call, staging, off, call.recv(), 0, bytes, nt);
    }
}
