package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Push allgather: every rank writes its own block into block r of EVERY rank's receive buffer — thread
 * ranks share one address space, so the owner of a block can deliver it [HMPI §1]. When W &gt; C the
 * block goes through the streaming fold with one source: each 1 KiB is read once, from the owner's own
 * (NUMA-local) send buffer, and streamed to the p destinations with non-temporal stores [YHCCL §4.1–4.2].
 *
 * <h2>Why, next to {@link DirectAllgather}</h2>
 * The DRAM traffic is the minimum by construction: each send buffer is read exactly once and each
 * receive buffer written once, p·b + p·p·b. The direct allgather reaches it only when its p readers of a
 * block stay close enough for the later ones to hit the first one's lines in the L3 (HMPI's synergy,
 * [HMPI §2.2]); beyond the cache a reader that drifts a few MiB behind reads the block from DRAM again.
 * In cache the pushed lines stay in the writer's cache until their reader fetches them — the same work as
 * the direct allgather's copies, moved after the call — so the model prefers push only beyond the cache.
 *
 * <h2>Protocol (rank r)</h2>
 * <pre>
 * await every rank's ANNOUNCE        // acquire: every receive buffer published
 * write my send block into block r of recv_0..recv_{p-1}
 * publish DONE; await every DONE     // every block has arrived, nobody writes my receive buffer any more
 * </pre>
 * The streaming copy ends with {@code sfence}, so its NT stores are ordered before the DONE release.
 * In place (my send buffer is block r of my receive buffer) that destination is skipped; no other rank
 * reads or writes block r of any buffer. No scratch.
 *
 * <h2>As resumable steps (requests)</h2>
 * The same blocks, one per rank ({@link Steps.Items#perRank}): item q writes send_q into block q of every receive
 * buffer (NT iff W exceeds the cache, as above; in place its own destination is skipped); a rank posts, pushes its
 * own block, and a rank that waits pushes a late peer's. Up to {@link ItemSlicing#STAGE_MAX_BYTES} per rank the
 * blocks travel in the ranks' staged lines ({@link Steps.Parts}) and part q copies the p staged blocks into recv_q:
 * one hand-over, and a rank's request completes with its own copy-out.
 */
public final class PushAllgather extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "push";

    public PushAllgather() {
        super(Collective.ALLGATHER, NAME, "each rank writes its block into every receive buffer (NT iff W > C)", "[HMPI §1, YHCCL §4.2]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long block = bytes / p;
        long ws = DirectAllgather.workingSet(p, block);
        // one read of my block and p writes of it: the call alone. The readers' fetch of the p − 1 pushed blocks
        // after the call is consumeCost's, as for push allreduce: priced here as a streaming copy-out, it made push
        // 25–80% dearer than predicted from 16 KiB to 512 KiB with --consume (lines still modified in the
        // writer's cache cost a transfer each [HMPI §2.1]) and dearer than the call without it
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.copyOut(m, bytes, ws), (long) p * block + (long) p * bytes);
    }

    /** The p − 1 blocks of my result the other ranks wrote into my buffer, still in their caches (beyond C: none). */
    @Override
    public double consumeCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        long block = bytes / p;
        long ws = DirectAllgather.workingSet(p, block);
        return p == 1 ? 0 : CopyCost.consumedPeerLines(m, bytes - block, ws / p, ws, shape.otherLlcPeerShare());
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (Transfers.alone(call)) {
            return;
        }
        int r = call.rank();
        long block = call.bytes();
        boolean nt = call.copy().useNonTemporal(DirectAllgather.workingSet(p, block), false);
        // acquire: every rank's receive buffer, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("write", q);
            }
        }
        call.copyIntoEveryRecv(call.send(), 0, r * block, block, nt);
        // release: my block is in every receive buffer; pairs with every rank's await below
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }

    /** Staged: one hand-over, p − 1 staged lines polled; in place: the blocking protocol's cost. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        return ItemSlicing.staged(bytes / shape.ranks()) ? ItemSlicing.stagedCost(m, shape.ranks() - 1) : cost(m, shape, bytes);
    }

    @Override
    public Steps steps(StepCall call) {
        long block = call.count() * call.elementSize();
        return ItemSlicing.staged(block) ? new Parts(call.ranks(), block) : new Items(call, block);
    }

    /** Part q copies the staged blocks into recv_q, in rank order (see the class comment). */
    private record Parts(int p, long stagedBytes) implements Steps.Parts {
        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            for (int s = 0; s < p; s++) {
                MemorySegment.copy(in.segment(), in.at(s), recv[q], s * stagedBytes, stagedBytes);
            }
        }
    }

    /** send_q into block q of every receive buffer, one item per rank (see the class comment). */
    private static final class Items implements PerRankItems {
        private final int p;
        private final long block;
        private final io.coll4j.bindings.copy.Copy copy;
        private final boolean nonTemporal;

        Items(StepCall c, long block) {
            this.p = c.ranks();
            this.block = block;
            this.copy = c.copy();
            this.nonTemporal = copy.useNonTemporal(DirectAllgather.workingSet(p, block), false);
        }

        @Override
        public int ranks() {
            return p;
        }

        @Override
        public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
            int q = (int) i;
            for (int d = 0; d < p; d++) {
                // in place, send_q is block q of recv_q: copy() skips a range onto itself
                ItemWorker.copy(copy, send[q], 0, recv[d], q * block, block, nonTemporal);
            }
        }
    }
}
