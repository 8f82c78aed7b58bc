package io.coll4j.kernel.algo.bcast;

import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
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
 *
 * <p>As resumable steps (requests, up to {@link ItemSlicing#STAGE_MAX_BYTES}): the root alone stages its message
 * in the engine's staging region, stamped with the round on the same line; every other rank's part copies it out.
 * The root's buffer is free as soon as it posted, and a part reads a copy, never a receive buffer.
 */
public final class FlatBcast extends AbstractAlgorithm implements Resumable {
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

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return dtype == null || count * dtype.size() <= ItemSlicing.STAGE_MAX_BYTES;
    }

    /** One hand-over of flag and data (the root's staged line), then a copy of at most 256 B. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        return p == 1 ? m.callOverhead() : m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, 1);
    }

    @Override
    public Steps steps(StepCall call) {
        return new Parts(call.root(), call.count() * call.elementSize());
    }

    /** The root's staged message, copied out by every other rank's part. */
    private record Parts(int root, long stagedBytes) implements Steps.Parts {
        @Override
        public boolean stages(int rank) {
            return rank == root;
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            if (q != root) {
                MemorySegment.copy(in.segment(), in.at(root), recv[q], 0, stagedBytes);
            }
        }
    }
}
