package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * Direct reduce-scatter: rank i reads block i of every rank's send buffer in place (thread ranks share
 * one address space, no copy-in) and folds them in ONE k-ary pass, ascending rank order, straight into
 * its receive buffer. Data access volume per rank: p·s/p reads + s/p writes — the minimum; YHCCL's MA
 * reduce-scatter moves s(3p−1) per node because processes must copy in [YHCCL §3.3, Table 1].
 *
 * <p>Stores [YHCCL §4.1–4.2]: when W = p·s + s exceeds the cache C the fold streams its result with
 * non-temporal stores ({@link CollectiveCall#foldIntoNonTemporal}): a temporal store would first read
 * every receive line for ownership, s more DRAM traffic on (p + 2)·s. In cache it stores temporally.
 *
 * <p>Protocol: wait for every rank's entry (send buffers are published with the announce), fold,
 * publish DONE, and wait for every rank's DONE before returning — peers read my send buffer until then.
 * Reduction order: the scalar left fold (bitwise the reference).
 *
 * <h2>As resumable steps (requests)</h2>
 * The same blocks, one per rank ({@link Steps.Items#perRank}): item q folds block q of send_0..send_{p−1} into
 * recv_q in one pass, NT iff W = p·s + s (s the input per rank) exceeds the cache; a rank posts, does its own
 * block, and a rank that waits takes a late peer's whole. Up to {@link ItemSlicing#STAGE_MAX_BYTES} of input per
 * rank the inputs travel in the ranks' staged lines ({@link Steps.Parts}) and part q folds block q of the p staged
 * copies: one hand-over, and a rank's request completes with its own block. AVG is divided once a block is folded
 * ({@link Averaging}); rank order on both shapes.
 */
public final class DirectReduceScatter extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "direct";

    public DirectReduceScatter() {
        super(Collective.REDUCE_SCATTER, NAME, "each rank folds its block of all send buffers in place, one pass", "[YHCCL §3.3]");
    }

    /** W of [YHCCL §4.2]: the p send buffers and the p receive blocks. */
    static long workingSet(int p, long bytes) {
        return (long) p * bytes + bytes;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return foldCost(m, p, bytes, (bytes + p - 1) / p, workingSet(p, bytes));
    }

    /** The cost of {@link #foldOwnBlock} for a {@code bytes} input per rank whose own block is {@code block}. */
    public static double foldCost(MachineModel m, int p, long bytes, long block, long ws) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, ws);
        }
        // announce (a_α), one k = p fold of my block (all ranks at once: B_α·(p·s + s) in DRAM, the
        // receive blocks streamed; a_α first for the peers' first lines), DONE (a_α)
        double fold = Math.max(m.foldTime(block, p, ws), m.dramTime((long) p * bytes + bytes, ws));
        return m.callOverhead() + 3 * m.lineLatencySameL3() + CopyCost.poll(m, p - 2) + fold;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        // call.bytes() is one block; the input per rank is p blocks, as cost() and the items count it
        foldOwnBlock(call, call.rank() * call.bytes(), workingSet(call.size(), (long) call.size() * call.bytes()));
    }

    /**
     * Folds bytes [off, off + my count) of every rank's send buffer into my receive buffer in one k = p pass
     * (rank order), non-temporal iff the working set exceeds the cache; shared with the v-variant, whose
     * own block sits at its displacement.
     */
    public static void foldOwnBlock(CollectiveCall call, long off, long workingSet) {
        int p = call.size();
        int r = call.rank();
        if (p > 1) {
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        }
        call.foldStart();
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
            }
            call.foldAdd(call.sendOf(q), off);
        }
        if (call.copy().useNonTemporal(workingSet, false)) {
            call.foldIntoNonTemporal(call.recv(), 0, call.count());
        } else {
            call.foldInto(call.recv(), 0, call.count());
        }
        if (p > 1) {
            // release: I no longer read other ranks' send buffers
            call.publish(ControlBlock.DONE, 0);
            call.awaitAllPeers(ControlBlock.DONE, 0);
        }
    }

    /** Staged: one hand-over, p − 1 staged lines polled; in place: the blocking protocol's cost. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        return ItemSlicing.staged(bytes) ? ItemSlicing.stagedCost(m, shape.ranks() - 1) : cost(m, shape, bytes);
    }

    @Override
    public Steps steps(StepCall call) {
        long block = call.count() * call.elementSize();
        return ItemSlicing.staged(block * call.ranks()) ? new Parts(call, block * call.ranks()) : new Items(call);
    }

    /** Part q folds block q of the staged inputs (see the class comment). */
    private record Parts(int p, long count, DType dtype, Op op, Reducer reducer, long block, long stagedBytes)
            implements Steps.Parts {
        Parts(StepCall c, long staged) {
            this(c.ranks(), c.count(), c.dtype(), c.op(), c.reducer(), c.count() * c.elementSize(), staged);
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            for (int s = 0; s < p; s++) {
                w.source(s, in.segment(), in.at(s) + q * block);
            }
            w.fold(reducer, dtype, recv[q], 0, p, count);
            Averaging.divide(Collective.REDUCE_SCATTER, op, dtype, q, p, recv[q], 0, count);
        }
    }

    /** Block q of every send buffer folded into recv_q, one item per rank (see the class comment). */
    private static final class Items implements PerRankItems {
        private final StepCall c;
        private final int p;
        private final long count;
        private final long block;
        private final boolean nonTemporal;

        Items(StepCall c) {
            this.c = c;
            this.p = c.ranks();
            this.count = c.count();
            this.block = count * c.elementSize();
            this.nonTemporal = c.copy().useNonTemporal(workingSet(p, p * block), false);
        }

        @Override
        public int ranks() {
            return p;
        }

        @Override
        public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
            int q = (int) i;
            for (int s = 0; s < p; s++) {
                w.source(s, send[s], q * block);
            }
            w.dest(0, recv[q], 0);
            c.foldToAll(w, 1, count, nonTemporal);
            c.divide(q, recv[q], 0, count);
        }
    }
}
