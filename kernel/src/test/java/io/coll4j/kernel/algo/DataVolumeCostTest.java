package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.model.MachineModel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bytes each allreduce moves, as its cost counts them [YHCCL §3.4 (data-access volume), §4.1 (a temporal store
 * reads its line for ownership first); HMPI §2.1 (B·d·m)]: {@code replicated} beyond the cache reads the sends
 * once and streams its results, {@code dissemination}'s whole-message copies stream, and {@code staged-sliced}
 * pulls the slots and slices its peers wrote one step ago at every size. Each case is written out by hand, so the
 * formula it replaced fails it.
 */
class DataVolumeCostTest {
    /** The EPYC of {@link ConsumedSelectionTest} with a memory slow enough that every DRAM term decides. */
    static final MachineModel SLOW_DRAM = new MachineModel(36.5e-9, 150e-9, 250e-9, 43.1e9, 19.4e9, 20.3e9, 4e9, 40e9,
            22.4e9, 8.8e9, 16L << 20, 1L << 20, "slow DRAM", null, null, 108.5e-9);
    /** The same with a memory fast enough that no DRAM term decides: the per-core terms show. */
    static final MachineModel FAST_DRAM = new MachineModel(36.5e-9, 150e-9, 250e-9, 43.1e9, 19.4e9, 20.3e9, 4e12, 40e9,
            22.4e9, 8.8e9, 16L << 20, 1L << 20, "fast DRAM", null, null, 108.5e-9);
    static final long BIG = 64L << 20;

    static CollectiveAlgorithm allreduce(String name) {
        return AlgorithmCatalog.find(Collective.ALLREDUCE, name);
    }

    /** The two hand-overs and their polls an entry-and-exit algorithm pays. */
    static double twoRounds(MachineModel m, int p) {
        return 2 * m.lineLatencySameL3() + 2 * (p - 1) * m.lineLatencySameL3() / 4;
    }

    @Test
    void replicatedBeyondTheCacheReadsTheSendsOnceAndStreamsItsResults() {
        MachineModel m = SLOW_DRAM;
        for (int p : new int[]{2, 3, 4, 8}) {
            // p·s of sends (the ranks read the same lines together: once from DRAM), p·s of results (NT): 2ps.
            // The old p²·s counted every rank's reads and no writes: equal at p = 2 only
            double expected = m.callOverhead() + twoRounds(m, p) + 2.0 * p * BIG / m.memoryBandwidth();
            assertEquals(expected, allreduce("replicated").cost(m, p, BIG), 1e-9 * expected, "p=" + p);
        }
        // in cache nothing changes: one k = p fold of the whole vector
        long s = 64 * 1024;
        assertEquals(m.callOverhead() + twoRounds(m, 4) + m.foldTime(s, 4, 5 * s), allreduce("replicated").cost(m, 4, s), 1e-15);
    }

    @Test
    void disseminationsWholeMessageCopiesStreamBeyondTheCache() {
        MachineModel m = SLOW_DRAM;
        int p = 2;
        long ws = p * BIG * 4;
        // copy-in and copy-out: s read + s written per rank (MemorySegment.copy streams ranges this large, no read
        // for ownership): 2ps each, where 3ps priced the 16-64 MiB rows 22-25% over; the fold reads both slots and
        // writes its own temporally: 4ps
        double copy = 2.0 * p * BIG / m.memoryBandwidth();
        double round = 2 * m.lineLatencySameL3() + 4.0 * p * BIG / m.memoryBandwidth();
        double expected = m.callOverhead() + 2 * copy + round;
        assertEquals(expected, allreduce("dissemination").cost(m, p, BIG), 1e-9 * expected);
        assertTrue(copy > BIG / m.copyBandwidthStream(), "the DRAM term decides in this model");
        assertTrue(ws > m.cacheCapacity());
    }

    /** One step of staged-sliced at p ranks: p slices staged, p read — what the writer touches before the pull. */
    static long step(MachineModel m, int p, long bytes) {
        long block = (bytes + p - 1) / p;
        return 2L * p * Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice();
    }

    @Test
    void aLineWrittenOneStepAgoIsPulledAtAnyWorkingSet() {
        MachineModel m = FAST_DRAM;
        double perLine = m.peerLinePrice();
        // the writer touched at most half its L2 since: the whole price; twice the L2: a quarter
        assertEquals(1024 * perLine, CopyCost.peerWrittenRecently(m, 64 * 1024, 512 * 1024), 1e-15);
        assertEquals(1024 * perLine / 4, CopyCost.peerWrittenRecently(m, 64 * 1024, 2L << 20), 1e-15);
        assertEquals(0, CopyCost.peerWrittenRecently(m, 0, 1 << 20));
        // peerWritten is for stores that go non-temporal beyond the cache: nothing there; these were temporal
        assertEquals(0, CopyCost.peerWritten(m, 64 * 1024, 512 * 1024, 2 * m.cacheCapacity()));
    }

    @Test
    void stagedSlicedPullsWhatItsPeersStagedAndFoldedOneStepAgo() {
        MachineModel m = FAST_DRAM;
        int p = 2;
        // in cache (1 and 4 MiB: the whole call's footprint, a quarter and a sixteenth of the price) and beyond it
        // (64 MiB: one step's, half the price; it was nothing, as if the stores had been non-temporal)
        for (long bytes : new long[]{1L << 20, 4L << 20, BIG}) {
            long block = bytes / p;
            long slice = Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice();
            long n = Math.ceilDiv(block, slice);
            long ws = 2L * p * bytes;
            long step = step(m, p, bytes);
            // one step at p = 2 with I = L2/4: the writer touched L2 bytes since, half of them still its own;
            // in cache the share of the whole call's footprint (2s per core): a quarter at 1 MiB, 1/16 at 4 MiB
            assertEquals(1L << 20, step);
            long touched = ws > m.cacheCapacity() ? step : ws / p;
            double share = ws > m.cacheCapacity() ? 0.5 : Math.min(1.0, m.l2Bytes() / (2.0 * touched));
            double pulls = CopyCost.peerWrittenRecently(m, (p - 1) * block, touched) + CopyCost.peerWrittenRecently(m, bytes - block, touched);
            assertEquals(bytes / 64.0 * m.peerLinePrice() * share, pulls, 1e-9 * pulls);
            double a = m.lineLatencySameL3();
            double sync = (2.0 * n + 1) * (a + a / 4) + a;
            double work = CopyCost.copyIn(m, bytes, ws) + m.foldTime(block, p, step) + CopyCost.copyOut(m, bytes - block, ws) + pulls;
            double expected = m.callOverhead() + sync + work;
            assertEquals(expected, allreduce("staged-sliced").cost(m, p, bytes), 1e-9 * expected, bytes + " B");
        }
    }
}
