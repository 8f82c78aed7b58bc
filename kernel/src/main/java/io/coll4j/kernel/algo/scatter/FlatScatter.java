package io.coll4j.kernel.algo.scatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Flat scatter and scatterv through one staging buffer, as the flat broadcast [PAMI §3.4]: the root copies
 * the other ranks' blocks into its staging buffer (the payload of its ARRIVE line when the whole send
 * extent fits 48 bytes, else its scratch, each block at its own displacement) and publishes ARRIVE; every
 * other rank waits for it, checks the root's count for it against its own, and copies its block out. The
 * root returns as soon as it has published — it never waits for a receiver — which is what makes this
 * the latency algorithm; the price is one more copy per byte than {@link DirectScatter}.
 *
 * <p>Root and receivers take the staging place from the same number (the root's send extent, which the
 * receivers read from the root's published layout). The staging buffer of parity s is rewritten at s + 2,
 * after the runtime's lag check has seen every rank enter s + 1. Copies are temporal into the staging
 * buffer (re-read at once) and non-temporal out iff W = 3·(total) exceeds the cache [YHCCL §4.2].
 *
 * <p>As resumable steps (scatter requests whose root's send buffer fits {@link ItemSlicing#STAGE_MAX_BYTES}; a
 * scatterv request runs the engine's {@code VectorBlocks}): the root alone stages its send buffer in its staged
 * line, and part q copies block q out — one hand-over, as {@code FlatBcast}'s steps. Larger requests run
 * {@link DirectScatter}'s.
 */
public final class FlatScatter extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "flat";

    public FlatScatter(Collective c) {
        super(c, NAME, "root stages the blocks in one shared buffer (<= 48 B: its flag line) and returns; each rank copies its block out",
                "[PAMI §3.4]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 3 * bytes;
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, bytes, ws);
        }
        double copies = CopyCost.copyIn(m, bytes - bytes / p, ws) + CopyCost.copyOut(m, bytes / p, ws);
        return m.callOverhead() + CopyCost.flag(m) + Math.max(copies, CopyCost.dram(m, 3 * bytes, ws));
    }

    /** Bytes the root stages: its send extent (blocks keep their displacements). */
    private static long extent(CollectiveCall call, BlockLayout root) {
        return root.sendExtent(call.size()) * call.dtype().size();
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (call.size() == 1 || call.rank() != call.root()) {
            return 0;
        }
        long e = extent(call, call.blocks());
        return Transfers.inline(e) ? 0 : e;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        if (r == root) {
            BlockLayout me = call.blocks();
            Transfers.copy(call, call.send(), me.sendDispl(r) * es, call.recv(), 0, call.count() * es, false);
            if (p == 1) {
                return;
            }
            boolean inline = Transfers.inline(extent(call, me));
            MemorySegment staging = inline ? call.control() : call.scratch();
            long base = inline ? call.inlinePayload(r, ControlBlock.ARRIVE) : 0;
            for (int j = 0; j < p; j++) {
                if (j != r) {
                    long off = me.sendDispl(j) * es;
                    Transfers.copy(call, call.send(), off, staging, base + off, me.sendCount(j) * es, false);
                }
            }
            // release: the staged blocks; pairs with every receiver's await on my ARRIVE
            call.publish(ControlBlock.ARRIVE, 0);
            return;
        }
        call.await(root, ControlBlock.ARRIVE, 0);
        BlockLayout at = call.peerBlocks(root);
        call.checkBlock(root, "from it", call.count(), at.sendCount(r));
        long e = extent(call, at);
        boolean inline = Transfers.inline(e);
        MemorySegment staging = inline ? call.control() : call.peerScratch(root);
        long base = inline ? call.inlinePayload(root, ControlBlock.ARRIVE) : 0;
        boolean nt = !inline && call.copy().useNonTemporal(3 * at.sendTotal(p) * es, false);
        call.record("copy", root);
        Transfers.copy(call, staging, base + at.sendDispl(r) * es, call.recv(), 0, call.count() * es, nt);
    }

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return !collective().vector() && (dtype == null || ItemSlicing.staged(count * dtype.size() * ranks));
    }

    /** One hand-over of flag and data (the root's staged line), then a copy of at most 256 B. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        return ItemSlicing.stagedCost(m, shape.ranks() == 1 ? 0 : 1);
    }

    @Override
    public Steps steps(StepCall call) {
        long block = call.count() * call.elementSize();
        return new Parts(call.root(), block, block * call.ranks());
    }

    /** The root's staged send buffer, block q copied out by part q. */
    private record Parts(int root, long block, long stagedBytes) implements Steps.Parts {
        @Override
        public boolean stages(int rank) {
            return rank == root;
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            // in place at the root, recv_root is its block of send_root: the staged copy is the same bytes
            MemorySegment.copy(in.segment(), in.at(root) + q * block, recv[q], 0, block);
        }
    }
}
