package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.model.MachineModel;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code explain --measure} calibrates o per collective from an 8-byte call of a reference algorithm, less what
 * that algorithm's cost charges besides o: that is o only if the reference exists, prices a call of one element
 * per rank, and charges o exactly once.
 */
class OverheadCalibrationTest {
    static final MachineModel M = new MachineModel(35e-9, 150e-9, 250e-9, 45e9, 18e9, 19e9, 47e9, 40e9, 27e9, 9.7e9,
            16L << 20, 1L << 20, "test");

    @Test
    void theReferenceCallChargesOOnceAtOneElementPerRank() {
        for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.BCAST, Collective.ALLGATHER,
                Collective.REDUCE_SCATTER, Collective.REDUCE}) {
            assertEquals(c, ModelProbe.overheadCollective(c));
            CollectiveAlgorithm ref = AlgorithmCatalog.find(c, ModelProbe.overheadAlgorithm(c));
            for (int p : new int[]{1, 2}) {
                CollectiveBenchmark.Shape sh = ModelProbe.overheadShape(c, p);
                assertEquals(1, sh.callCount(), c + " p=" + p);
                assertEquals(8, Math.min(sh.sendBytes(), sh.recvBytes()), c + " p=" + p);
            }
            long bytes = ModelProbe.overheadShape(c, 2).bytes();
            double without = ref.cost(M.withCallOverhead(0), 2, bytes);
            double with = ref.cost(M.withCallOverhead(100e-9), 2, bytes);
            assertEquals(100e-9, with - without, 1e-15, c + " " + ref.name());
            // what is subtracted is hand-overs (a few a_alpha), not a bandwidth term
            assertTrue(without >= M.lineLatencySameL3() && without < 5 * M.lineLatencySameL3(), c + ": " + without);
        }
        // collectives without a reference call of their own take the allreduce's o
        assertEquals(Collective.ALLREDUCE, ModelProbe.overheadCollective(Collective.BARRIER));
        assertEquals(Collective.ALLREDUCE, ModelProbe.overheadCollective(Collective.ALLTOALL));
    }

    @Test
    void aReMeasuredRateIsTheBestWindowOfRowBatchLength() {
        // 5 us ops at best: windows of 4 (20 us); the best window is ops 2..5 (5, 5, 6, 5), 5.25 us an op, not the single 5
        long[] ns = {9000, 9000, 5000, 5000, 6000, 5000, 9000, 9000, 5000, 9000};
        assertEquals(21_000e-9 / 4, ModelProbe.bestWindowMean(ns), 1e-15);
        // ops longer than a batch: each op is a window
        assertEquals(30_000e-9, ModelProbe.bestWindowMean(new long[]{40_000, 30_000, 50_000}), 1e-15);
        // fewer ops than a window: their mean
        assertEquals(2_000e-9, ModelProbe.bestWindowMean(new long[]{1_000, 3_000}), 1e-15);
    }
}
