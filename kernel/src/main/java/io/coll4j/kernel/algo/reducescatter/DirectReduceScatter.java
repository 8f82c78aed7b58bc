package io.coll4j.kernel.algo.reducescatter;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

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
 */
public final class DirectReduceScatter extends AbstractAlgorithm {
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
        foldOwnBlock(call, call.rank() * call.bytes(), workingSet(call.size(), call.bytes()));
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
}
