package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The selector prices the consumed result (docs/design.md, "Machine model and selection"): given the
 * profile {@code collbench tune} wrote on a quiet 2-core EPYC (the machine the allreduce targets were
 * measured on), {@code auto} picks at p = 2 what {@code collbench allreduce --consume} measured fastest —
 * {@code replicated} (every rank writes its own result) from 1 KiB to 512 KiB, {@code push} from 1 to 4 MiB —
 * and the consumed term is what makes the difference in cache.
 */
class ConsumedSelectionTest {
    /** {@code collbench tune} on the 2-core EPYC, quiet: a_α 36.5 ns, o 108.5 ns, L2 1 MiB, C = 32 MiB LLC + 2 L2. */
    static final MachineModel EPYC = new MachineModel(36.5e-9, 150e-9, 250e-9, 43.1e9, 19.4e9, 20.3e9, 48e9, 40e9,
            22.4e9, 8.8e9, 32L * 1024 * 1024 + 2L * 1024 * 1024, 1024L * 1024, "tune on a 2-core EPYC", null, null, 108.5e-9);

    static CollectiveAlgorithm allreduce(String name) {
        return AlgorithmCatalog.find(Collective.ALLREDUCE, name);
    }

    static String pick(Selector s, int p, long bytes) {
        return s.choose(Collective.ALLREDUCE, p, bytes / 8, DType.F64, Op.SUM, bytes).name();
    }

    @Test
    void givenTheProfileAutoPicksWhatTheConsumedSweepMeasuredFastest(@TempDir Path dir) throws IOException {
        Path profile = dir.resolve("epyc.json");
        Files.writeString(profile, EPYC.toProfileJson(Map.of()));
        Selector s = new Selector(MachineModel.load(profile), Map.of());
        for (long bytes = 1024; bytes <= 512 * 1024; bytes *= 2) {
            assertEquals("replicated", pick(s, 2, bytes), bytes + " B");
        }
        // from 1 MiB the writer's L2 no longer holds most of what it pushed (best batch 48 against 54 us)
        assertEquals("push", pick(s, 2, 1L << 20));
        assertEquals("push", pick(s, 2, 2L << 20));
        assertEquals("push", pick(s, 2, 4L << 20));
    }

    @Test
    void theConsumedResultIsWhatMakesPushLoseInCache() {
        Selector s = new Selector(EPYC, Map.of());
        long bytes = 64 * 1024;
        CollectiveAlgorithm push = allreduce("push");
        CollectiveAlgorithm replicated = allreduce("replicated");
        // the call alone: push folds half the vector per rank, so a loop that never reads its results favours it
        assertTrue(push.cost(EPYC, 2, bytes) < replicated.cost(EPYC, 2, bytes));
        // read afterwards: half the result was written by the other core, and pulling it costs more than the fold saved
        assertTrue(push.consumeCost(EPYC, 2, bytes) > 0);
        assertEquals(0, replicated.consumeCost(EPYC, 2, bytes));
        assertEquals("replicated", pick(s, 2, bytes));
        // explain's two views price the same pick: with and without the consumed term
        for (boolean consumed : new boolean[]{true, false}) {
            List<Selector.Prediction> preds = s.predict(Collective.ALLREDUCE, 2, bytes / 8, DType.F64, Op.SUM, bytes, consumed);
            Selector.Prediction pp = preds.stream().filter(x -> x.algorithm() == push).findFirst().orElseThrow();
            Selector.Prediction pr = preds.stream().filter(x -> x.algorithm() == replicated).findFirst().orElseThrow();
            assertTrue(pr.chosen() && !pp.chosen(), "consumed=" + consumed);
            assertEquals(consumed, pp.seconds() > pr.seconds(), "consumed=" + consumed);
            assertTrue(pp.terms().stream().anyMatch(t -> t.startsWith("consumed result:")), pp.terms().toString());
        }
    }

    @Test
    void peersResultLinesCostNothingExtraBeyondTheCacheOrOnOneRank() {
        CollectiveAlgorithm push = allreduce("push");
        // W = 2ps > C: the owners stream the results to DRAM, every reader finds its lines there alike
        assertEquals(0, push.consumeCost(EPYC, 2, 64L << 20));
        assertEquals(0, push.consumeCost(EPYC, 1, 64 * 1024));
        // the direct reduce's root reads the blocks the other ranks folded into it
        assertTrue(AlgorithmCatalog.find(Collective.REDUCE, "direct").consumeCost(EPYC, 4, 64 * 1024) > 0);
        // the pull falls off once the writer's L2 no longer holds what it wrote: per byte, 4 MiB costs less than 64 KiB
        assertTrue(push.consumeCost(EPYC, 2, 4L << 20) / (4L << 20) < push.consumeCost(EPYC, 2, 64 * 1024) / (64 * 1024));
    }
}
