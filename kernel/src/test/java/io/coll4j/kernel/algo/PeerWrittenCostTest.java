package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.model.MachineModel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lines a peer wrote during the call cost their transfer on top of the copy or fold that reads them
 * ({@link CopyCost#copyOutPeerWritten}, {@link CopyCost#foldPeerWritten}; [HMPI §2.1]: a and b depend on the
 * line's state), under the quiet EPYC profile of {@link ConsumedSelectionTest}: the pull algorithms' costs by
 * hand at p = 2, nothing extra beyond the cache, and the consumed picks unchanged.
 */
class PeerWrittenCostTest {
    static final MachineModel M = ConsumedSelectionTest.EPYC;
    static final double EPS = 1e-12;

    /** {@code bytes} of peer-written lines pulled while the writer's L2 holds them all: a_α / 6 per line. */
    static double pulls(long bytes) {
        return bytes / 64 * M.lineLatencySameL3() / 6;
    }

    @Test
    void aPeerWrittenCopyCostsTheCopyPlusTheLineTransfers() {
        long bytes = 32 * 1024;
        long ws = 4 * bytes;
        assertEquals(bytes / M.copyBandwidthCached() + pulls(bytes), CopyCost.copyOutPeerWritten(M, bytes, ws / 2, ws), EPS);
        assertEquals(1e-6 + pulls(bytes), CopyCost.foldPeerWritten(M, 1e-6, bytes, ws / 2, ws), EPS);
        // beyond the cache the writer's stores were non-temporal: a plain NT copy-out, no transfers
        long big = 64L << 20;
        assertEquals(big / M.ntCopyBandwidth(), CopyCost.copyOutPeerWritten(M, big, 2 * big, 4 * big), EPS);
        assertEquals(0, CopyCost.peerWritten(M, big, 2 * big, 4 * big));
    }

    @Test
    void directAndDisseminationAllreduceAtTwoRanksByHand() {
        long s = 64 * 1024;
        double a = M.lineLatencySameL3();
        double o = M.callOverhead();
        // direct: fold my half of both sends, copy the peer's half out (its owner folded it just now)
        long block = s / 2;
        // one slice (32 KiB is under I_max): ANNOUNCE, ARRIVE, DONE, and 1 + 2 polls of the peer's lines
        double direct = o + 3 * a + 3 * a / 4 + M.foldTime(block, 2, 4 * s)
                + block / M.copyBandwidthCached() + pulls(block);
        assertEquals(direct, AlgorithmCatalog.find(Collective.ALLREDUCE, "direct").cost(M, 2, s), 1e-3 * direct);
        // dissemination: copy-in, one round (2 a_α, fold with the partner's slot, written by it just now), copy-out
        double copy = s / M.copyBandwidthCached();
        double diss = o + 2 * copy + 2 * a + M.foldTime(s, 2, 8 * s) + pulls(s);
        assertEquals(diss, AlgorithmCatalog.find(Collective.ALLREDUCE, "dissemination").cost(M, 2, s), 1e-3 * diss);
        // push and replicated pull nothing during the call: still cheaper, and the consumed pick is unchanged
        Selector sel = new Selector(M, java.util.Map.of());
        assertTrue(AlgorithmCatalog.find(Collective.ALLREDUCE, "replicated").cost(M, 2, s) < direct);
        assertEquals("replicated", ConsumedSelectionTest.pick(sel, 2, s));
    }

    @Test
    void pushAllgatherPricesTheReadersPullAsTheConsumedResult() {
        CollectiveAlgorithm push = AlgorithmCatalog.find(Collective.ALLGATHER, "push");
        CollectiveAlgorithm direct = AlgorithmCatalog.find(Collective.ALLGATHER, "direct");
        long out = 128 * 1024;                                  // 64 KiB blocks, p = 2: in cache
        // the call alone: one read of my block, two writes of it (the peer's pull is no longer in it)
        assertEquals(M.callOverhead() + CopyCost.announceAndDone(M, 2) + out / M.copyBandwidthCached(), push.cost(M, 2, out), EPS);
        // read afterwards: the half the peer pushed is pulled a line transfer each, less the read any result costs
        assertEquals(pulls(out / 2) - (out / 2) / M.copyBandwidthCached(), push.consumeCost(M, 2, out), 1e-3 * pulls(out / 2));
        assertEquals(0, push.consumeCost(M, 2, 256L << 20));
        // --consume measured direct 2.2 us against push 5.5 at 64 KiB (p = 2): the consumed pick is direct
        Selector sel = new Selector(M, java.util.Map.of());
        assertEquals("direct", sel.choose(Collective.ALLGATHER, 2, out / 2 / 8, io.coll4j.reductions.DType.F64, null, out).name());
        assertTrue(push.cost(M, 2, out) + push.consumeCost(M, 2, out) > direct.cost(M, 2, out));
    }
}
