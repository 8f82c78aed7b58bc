package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shape of the bcast and allgather cost models under a fixed machine (not the host's, so the
 * assertions do not move when profiles are tuned): finite, growing with the message, the copy counts
 * of the class comments (direct moves the fewest bytes, pipelined and shared-copy one copy more), the
 * adaptive-copy regime change at W = C [YHCCL §4.2], and the selector's picks at the ends of the range.
 */
class CopyCollectiveCostTest {
    /** 80 ns line hand-over, 25 GB/s copies in cache, 10/14 GB/s temporal/NT to DRAM, 40 GB/s DRAM, C = 32 MiB. */
    static final MachineModel M = new MachineModel(80e-9, 150e-9, 250e-9, 25e9, 10e9, 14e9, 40e9, 40e9, 20e9, 8e9,
            32L << 20, 1L << 20, "test");
    static final int[] TEAMS = {1, 2, 3, 4, 8};

    static List<CollectiveAlgorithm> ours(Collective c) {
        return AlgorithmCatalog.of(c).stream().filter(a -> !AlgorithmCatalog.isBaseline(a)).toList();
    }

    static CollectiveAlgorithm find(Collective c, String name) {
        return AlgorithmCatalog.find(c, name);
    }

    @Test
    void finiteAndGrowingWithTheMessage() {
        for (Collective c : new Collective[]{Collective.BCAST, Collective.ALLGATHER}) {
            for (CollectiveAlgorithm a : ours(c)) {
                for (int p : TEAMS) {
                    double last = -1;
                    for (long bytes = 0; bytes <= (1L << 30); bytes = bytes == 0 ? 8 : bytes * 2) {
                        long b = c == Collective.ALLGATHER ? bytes * p : bytes;
                        double t = a.cost(M, p, b);
                        assertTrue(Double.isFinite(t) && t >= 0, a + " p=" + p + " bytes=" + b + ": " + t);
                        assertTrue(t >= last, a + " p=" + p + " shrinks at " + b + " bytes: " + last + " -> " + t);
                        last = t;
                    }
                }
            }
        }
        for (CollectiveAlgorithm a : ours(Collective.BCAST)) {
            assertEquals(0.0, a.cost(M, 1, 1 << 20), a + ": a team of one broadcasts nothing");
        }
    }

    @Test
    void pipelinedBcastIsATwoStagePipeline() {
        // p = 2, two slices of 4 KiB: the root's first copy-in alone, then one slice at the slower stage's pace
        // (the receiver's copy-out of lines the root just wrote), then the last copy-out alone — not three copy-outs
        long slice = 4096;
        double in = CopyCost.copyIn(M, slice, 2 * 2 * slice + 2 * slice);
        double out = CopyCost.copyOut(M, slice, 6 * slice) + CopyCost.peerWritten(M, slice, 2 * slice, 2 * slice);
        double sync = 2 * (CopyCost.flag(M) + CopyCost.poll(M, 1));
        assertEquals(M.callOverhead() + sync + in + 2 * out, find(Collective.BCAST, "pipelined").cost(M, 2, 2 * slice), 1e-12);
    }

    @Test
    void directMovesTheFewestBytes() {
        for (int p : new int[]{2, 3, 4, 8}) {
            for (long bytes = 64 * 1024; bytes <= (256L << 20); bytes *= 4) {
                double direct = find(Collective.BCAST, "direct").cost(M, p, bytes);
                for (String other : new String[]{"pipelined", "flat", "two-stage"}) {
                    assertTrue(direct < find(Collective.BCAST, other).cost(M, p, bytes),
                            "bcast direct vs " + other + " p=" + p + " bytes=" + bytes);
                }
                long out = bytes * p;
                // the single-copy allgathers: direct (readers pull; beyond the cache every reader may read a
                // block from DRAM) and push (owners write; every block read once)
                double directAg = Math.min(find(Collective.ALLGATHER, "direct").cost(M, p, out),
                        find(Collective.ALLGATHER, "push").cost(M, p, out));
                for (String other : new String[]{"pipelined", "shared-copy"}) {
                    assertTrue(directAg < find(Collective.ALLGATHER, other).cost(M, p, out),
                            "allgather direct/push vs " + other + " p=" + p + " bytes=" + out);
                }
            }
        }
    }

    @Test
    void twoStageBcastOnOnePackageIsPricedAsTheFlatProtocolItRuns() {
        for (int p : new int[]{2, 3, 8}) {
            for (long bytes : new long[]{8, 4096, 1L << 20}) {
                io.coll4j.kernel.model.TeamShape one = io.coll4j.kernel.model.TeamShape.flat(p);
                assertEquals(find(Collective.BCAST, "flat").cost(M, p, bytes), find(Collective.BCAST, "two-stage").cost(M, one, bytes));
                // on two packages the relay across the link (a_beta) is on the path
                assertTrue(find(Collective.BCAST, "two-stage").cost(M, p, bytes) > M.lineLatencyCrossPackage());
            }
        }
    }

    @Test
    void rootSharingHalvesTheBcastCriticalPathAtTwoRanks() {
        long bytes = 8L << 20;                               // W = 16 MiB: in cache
        double direct = find(Collective.BCAST, "direct").cost(M, 2, bytes);
        double oneCopy = bytes / M.copyBandwidthCached();
        assertTrue(direct < 0.6 * oneCopy && direct > 0.5 * oneCopy, direct + " vs one copy " + oneCopy);
    }

    @Test
    void copyOutSlowsDownOnceTheWorkingSetLeavesTheCache() {
        CollectiveAlgorithm direct = find(Collective.BCAST, "direct");
        long inCache = 8L << 20;                             // W = 2·8 MiB < C
        long beyond = 32L << 20;                             // W = 2·32 MiB > C
        double perByteIn = direct.cost(M, 2, inCache) / inCache;
        double perByteOut = direct.cost(M, 2, beyond) / beyond;
        assertTrue(perByteOut > 1.5 * perByteIn, perByteIn + " vs " + perByteOut);
    }

    @Test
    void selectorPicksDirectForLargeMessagesAndAStagedCopyForTinyOnes() {
        Selector s = new Selector(M, Map.of());
        for (int p : new int[]{2, 4}) {
            assertEquals("direct", s.choose(Collective.BCAST, p, 1 << 20, DType.F64, null, 8L << 20).name());
            assertEquals("direct", s.choose(Collective.ALLGATHER, p, 1 << 20, DType.F64, null, (8L << 20) * p).name());
            assertEquals("flat", s.choose(Collective.BCAST, p, 1, DType.F64, null, 8).name());
        }
    }
}
