package io.coll4j.kernel.algo.bcast;

import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Two-stage broadcast with one socket master per package [HMPI §2.2, Fig. 4, Eq. 4]: the root stages
 * the message; in each other package the master (its lowest rank) copies it across the package link
 * once into its own staging buffer and publishes; every other rank copies from its own package's
 * staging buffer (the root's, in the root's package). Cross-package traffic: one copy per package
 * instead of one per rank. With one package it degenerates to {@link FlatBcast}.
 *
 * <p>Copies: s into the root's staging buffer, s across the link per other package (into its master's
 * staging buffer), s out per receiver. Copy-out uses NT stores iff W = (p+2)·s exceeds the cache
 * [YHCCL §4.2]; the staging copies stay temporal (they are read again at once).
 */
public final class TwoStageBcast extends AbstractAlgorithm {
    public static final String NAME = "two-stage";

    public TwoStageBcast() {
        super(Collective.BCAST, NAME, "root stages, one master per package relays, members copy locally", "[HMPI §2.2]");
    }

    @Override
    public double cost(MachineModel m, TeamShape shape, long bytes) {
        // one package: no master to relay to, the flat protocol runs, and costs what it costs (the relay's a_β
        // priced anyway made two-stage 2.5-3.7x its measured time at 8-512 B, p = 2)
        return shape.packages() < 2 ? FLAT.cost(m, shape.ranks(), bytes) : cost(m, shape.ranks(), bytes);
    }

    private static final FlatBcast FLAT = new FlatBcast();

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return 0;
        }
        long ws = (p + 2L) * bytes;
        // [HMPI Eq. 4, first term] a_β + b_β·m (the relay across the package link) + a_α + B_α(q−1)m (local
        // fan-out); the root's staging copy before it, all three one after the other
        double relay = Math.max(CopyCost.copyIn(m, bytes, ws), bytes / m.crossPackageBandwidth());
        double copies = CopyCost.copyIn(m, bytes, ws) + relay + CopyCost.copyOut(m, bytes, ws);
        double sync = 2 * CopyCost.flag(m) + m.lineLatencyCrossPackage();
        return m.callOverhead() + sync + Math.max(copies, CopyCost.dram(m, (p + 3L) * bytes, ws));
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.size() > 1 && !Transfers.inline(call.bytes()) && call.team().layout().twoStageRelay(call.rank(), call.root())
                ? call.bytes() : 0;
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
        int r = call.rank();
        int root = call.root();
        boolean inline = Transfers.inline(bytes);
        TeamLayout layout = call.team().layout();
        boolean nt = !inline && call.copy().useNonTemporal((p + 2L) * bytes, false);
        if (r == root) {
            stage(call, call.recv(), 0, inline, bytes);
            return;
        }
        int src = layout.twoStageSource(r, root);
        call.await(src, ControlBlock.ARRIVE, 0);
        call.record("copy", src);
        MemorySegment from = inline ? call.control() : call.peerScratch(src);
        long fromOff = inline ? call.inlinePayload(src, ControlBlock.ARRIVE) : 0;
        if (layout.twoStageRelay(r, root)) {
            // I am a package master: relay into my own staging buffer first, then serve my package
            stage(call, from, fromOff, inline, bytes);
            from = inline ? call.control() : call.scratch();
            fromOff = inline ? call.inlinePayload(r, ControlBlock.ARRIVE) : 0;
        }
        Transfers.copy(call, from, fromOff, call.recv(), 0, bytes, nt);
    }

    private static void stage(CollectiveCall call, MemorySegment src, long srcOff, boolean inline, long bytes) {
        MemorySegment staging = inline ? call.control() : call.scratch();
        long off = inline ? call.inlinePayload(call.rank(), ControlBlock.ARRIVE) : 0;
        Transfers.copy(call, src, srcOff, staging, off, bytes, false);
        // release: the staged message; pairs with the awaits of the ranks that copy from me
        call.publish(ControlBlock.ARRIVE, 0);
    }
}
