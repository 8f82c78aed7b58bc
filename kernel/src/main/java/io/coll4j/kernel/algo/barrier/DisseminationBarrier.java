package io.coll4j.kernel.algo.barrier;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Oversubscription;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Dissemination barrier [HMPI §4 and its ref. 7, Hensgen/Finkel/Manber]: ⌈log2 p⌉ rounds; in round k rank r signals
 * rank (r + 2^k) mod p on that rank's dissemination line k and waits for the signal of (r − 2^k) mod p
 * on its own. After the last round every rank has (transitively) heard from every rank, for any p.
 *
 * <p>Line layout (owned here, in the control block's peer-written lines): {@link #line line(k)} of rank
 * r, k &lt; ⌈log2 p⌉, is written only by (r − 2^k) mod p, in every collective, so each line has one
 * fixed writer. Latency: ⌈log2 p⌉ one-way line transfers, all ranks in parallel — at p = 2 a single
 * exchange, the minimum possible.
 */
public final class DisseminationBarrier extends AbstractAlgorithm {
    public static final String NAME = "dissemination";

    public DisseminationBarrier() {
        super(Collective.BARRIER, NAME, "log2(p) rounds of pairwise signals, any p", "[HMPI §2.3, §4]");
    }

    /** ⌈log2 p⌉: the rounds of the barrier. */
    public static int rounds(int p) {
        return p <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(p - 1);
    }

    /** Peer-written control lines this barrier needs per rank: one per round. */
    public static int peerLines(int p) {
        return rounds(p);
    }

    /** The control line of round {@code k}: the first of the peer-written lines. */
    static int line(int k) {
        return ControlBlock.FIRST_PEER_LINE + k;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return m.callOverhead() + rounds(p) * m.lineLatencySameL3();
    }

    /** Oversubscribed: every one of its ⌈log2 p⌉ rounds waits for one given peer [{@link Oversubscription}]. */
    @Override
    public int waitRounds(int ranks) {
        return rounds(ranks);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    /** Its first act is round 0's signal, which carries the check word; a barrier has no buffers. */
    @Override
    public boolean announcesAfterFirstPublish(CollectiveCall call) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int rounds = rounds(p);
        for (int k = 0; k < rounds; k++) {
            int to = (r + (1 << k)) % p;
            // release: carries everything I have seen so far to rank `to`; pairs with its awaitFrom below
            call.publishTo(to, line(k), 0);
            call.awaitFrom((r - (1 << k) + p) % p, line(k), 0);
        }
    }
}
