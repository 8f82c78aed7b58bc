package io.coll4j.kernel.algo.gather;

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
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Eager/rendezvous gather and gatherv, after AMPI's point-to-point protocols [AMPI §5.3]: a block of at
 * most 48 bytes travels <em>eagerly</em> in the payload of its sender's ARRIVE line (flag and data in
 * one cache-line transfer; the sender returns at once), a larger one by <em>rendezvous</em>: the sender
 * waits for the root's ANNOUNCE (its receive buffer published) and writes its block straight into it —
 * one copy per byte, the p − 1 copies made in parallel by their owners, with non-temporal stores iff
 * W = 2·(total) exceeds the cache [YHCCL §4.2].
 *
 * <p>Protocol: sender j — eager: copy into my ARRIVE payload, publish ARRIVE (release); rendezvous:
 * await the root's ANNOUNCE (acquire), check the root's {@code recvCounts[j]} against my count (a
 * v-count mismatch aborts before anything is written), copy, publish ARRIVE. The root awaits every
 * ARRIVE (acquire), checks the count, and copies the eager payloads out. Sender and root decide eager or
 * rendezvous from the same number (the block's bytes), once it is known to agree. No sender waits for the
 * root to finish; a payload of parity s is rewritten at s + 2, after the runtime's lag check has seen the
 * root enter s + 1.
 *
 * <p>As resumable steps (gather requests; a gatherv request runs the engine's {@code VectorBlocks}, whose creator
 * may not know the other ranks' counts): eager is staged parts — up to {@link ItemSlicing#STAGE_MAX_BYTES} a block
 * travels in its rank's staged line and the root's part copies the p of them out, one hand-over — and rendezvous
 * is per-rank items: item q writes send_q into block q of the root's buffer (NT as above), its own rank first, a
 * waiting rank takes a late peer's. In place at the root its own block is skipped.
 */
public final class PushGather extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "push";

    public PushGather(Collective c) {
        super(c, NAME, "blocks <= 48 B eagerly in the sender's flag line, larger ones written into the root's buffer by their owners",
                "[AMPI §5.3, HMPI §1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2 * bytes;
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, bytes, ws);
        }
        long block = bytes / p;
        if (Transfers.inline(block)) {
            // one hand-over per sender (the lines arrive with overlapping misses); the root copies 48 B each
            return m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, p - 1);
        }
        // rendezvous: the root's ANNOUNCE, the senders' parallel copies, their ARRIVEs
        double copies = CopyCost.copyOut(m, block, ws);
        return m.callOverhead() + 2 * CopyCost.flag(m) + CopyCost.poll(m, p - 1)
                + Math.max(copies, CopyCost.dram(m, 2 * bytes, ws));
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return rank == root || ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int root = call.root();
        long es = call.dtype().size();
        if (r != root) {
            long bytes = call.count() * es;
            if (Transfers.inline(bytes)) {
                Transfers.copy(call, call.send(), 0, call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), bytes, false);
            } else {
                // acquire: the root's receive buffer and counts, published with its announce
                call.await(root, ControlBlock.ANNOUNCE, 0);
                BlockLayout at = call.peerBlocks(root);
                call.checkBlock(root, "to it", call.count(), at.recvCount(r));
                boolean nt = call.copy().useNonTemporal(2 * at.recvTotal(p) * es, false);
                call.record("write", root);
                Transfers.copy(call, call.send(), 0, call.peerRecv(root), at.recvDispl(r) * es, bytes, nt);
            }
            // release: my block (in my payload, or in the root's buffer); pairs with the root's await
            call.publish(ControlBlock.ARRIVE, 0);
            return;
        }
        BlockLayout me = call.blocks();
        MemorySegment recv = call.recv();
        Transfers.copy(call, call.send(), 0, recv, me.recvDispl(r) * es, me.count() * es, false);
        for (int j = 0; j < p; j++) {
            if (j == r) {
                continue;
            }
            // acquire: pairs with rank j's ARRIVE release (its block, and its count with its announce)
            call.await(j, ControlBlock.ARRIVE, 0);
            call.checkBlock(j, "from it", me.recvCount(j), call.peerBlocks(j).count());
            long bytes = me.recvCount(j) * es;
            if (Transfers.inline(bytes)) {
                Transfers.copy(call, call.control(), call.inlinePayload(j, ControlBlock.ARRIVE), recv, me.recvDispl(j) * es,
                        bytes, false);
            }
        }
    }

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return !collective().vector();
    }

    /** Eager: one hand-over, the root polls p − 1 staged lines; rendezvous: the blocking protocol's cost. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        return ItemSlicing.staged(bytes / p) ? ItemSlicing.stagedCost(m, p - 1) : cost(m, shape, bytes);
    }

    @Override
    public Steps steps(StepCall call) {
        long block = call.count() * call.elementSize();
        return ItemSlicing.staged(block) ? new Eager(call.ranks(), call.root(), block, call.copy())
                : new Rendezvous(call.ranks(), call.root(), block, call.copy(),
                call.copy().useNonTemporal(2L * call.ranks() * block, false));
    }

    /** The root copies the p staged blocks into its buffer. */
    private record Eager(int p, int root, long stagedBytes, io.coll4j.bindings.copy.Copy copy) implements Steps.Parts {
        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            if (q == root) {
                for (int s = 0; s < p; s++) {
                    ItemWorker.copy(copy, in.segment(), in.at(s), recv[q], s * stagedBytes, stagedBytes, false);
                }
            }
        }
    }

    /** Item q writes send_q into block q of the root's buffer. */
    private record Rendezvous(int ranks, int root, long block, io.coll4j.bindings.copy.Copy copy, boolean nonTemporal)
            implements PerRankItems {
        @Override
        public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
            int q = (int) i;
            // in place at the root, send_root is its block of recv_root: copy() skips a range onto itself
            ItemWorker.copy(copy, send[q], 0, recv[root], q * block, block, nonTemporal);
        }
    }
}
