package io.coll4j.jmh;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CollectiveBenchTest {

    @Test
    void ranksMustEqualJmhThreads() {
        assertEquals(3, CollectiveBench.checkThreads("3", 3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CollectiveBench.checkThreads("3", 2));
        assertTrue(e.getMessage().contains("ranks=3 but JMH runs 2 worker threads"), e.getMessage());
        assertTrue(e.getMessage().contains("-t 3 -p ranks=3"), e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CollectiveBench.checkThreads("two", 2))
                .getMessage().contains("'two'"));
        assertThrows(IllegalArgumentException.class, () -> CollectiveBench.checkThreads("0", 0));
    }

    @Test
    void shapesSizeLikeCollbench() {
        assertEquals(new CollectiveBench.Shape(0, 0, 0), CollectiveBench.Shape.of(Collective.BARRIER, 0, 3));
        assertEquals(new CollectiveBench.Shape(1, 8, 8), CollectiveBench.Shape.of(Collective.ALLREDUCE, 8, 3));
        assertEquals(new CollectiveBench.Shape(1, 8, 8), CollectiveBench.Shape.of(Collective.BCAST, 3, 2));
        assertEquals(new CollectiveBench.Shape(512, 4096, 4096), CollectiveBench.Shape.of(Collective.REDUCE, 4096, 2));
        // 64 KiB over 3 ranks: 2730 elements per rank, the remainder dropped as collbench does
        assertEquals(new CollectiveBench.Shape(2730, 2730 * 3 * 8, 2730 * 8),
                CollectiveBench.Shape.of(Collective.REDUCE_SCATTER, 65536, 3));
        assertEquals(new CollectiveBench.Shape(2730, 2730 * 8, 2730 * 3 * 8),
                CollectiveBench.Shape.of(Collective.ALLGATHER, 65536, 3));
        assertEquals(new CollectiveBench.Shape(1, 8, 24), CollectiveBench.Shape.of(Collective.ALLGATHER, 8, 3));
    }

    /** Each suite's default algorithms are exactly the catalogue's for its collective, baseline last. */
    @Test
    void everyAlgorithmOfTheCatalogueIsBenchmarked() throws ReflectiveOperationException {
        Map<Class<? extends CollectiveBench>, Collective> suites = Map.of(
                BarrierBench.class, Collective.BARRIER, BcastBench.class, Collective.BCAST,
                ReduceBench.class, Collective.REDUCE, AllreduceBench.class, Collective.ALLREDUCE,
                ReduceScatterBench.class, Collective.REDUCE_SCATTER, AllgatherBench.class, Collective.ALLGATHER);
        suites = new java.util.HashMap<>(suites);
        suites.putAll(Map.of(GatherBench.class, Collective.GATHER, ScatterBench.class, Collective.SCATTER,
                GathervBench.class, Collective.GATHERV, ScattervBench.class, Collective.SCATTERV,
                AllgathervBench.class, Collective.ALLGATHERV, ReduceScatterVBench.class, Collective.REDUCE_SCATTER_V,
                AlltoallBench.class, Collective.ALLTOALL, AlltoallvBench.class, Collective.ALLTOALLV,
                ScanBench.class, Collective.SCAN, ExscanBench.class, Collective.EXSCAN));
        for (var e : suites.entrySet()) {
            CollectiveBench bench = e.getKey().getConstructor().newInstance();
            assertEquals(e.getValue(), bench.collective(), e.getKey().getSimpleName());
            List<String> params = Arrays.asList(e.getKey().getField("algorithm").getAnnotation(Param.class).value());
            List<String> catalogue = AlgorithmCatalog.of(e.getValue()).stream().map(CollectiveAlgorithm::name).toList();
            assertEquals(catalogue, params, e.getKey().getSimpleName());
        }
    }

    /**
     * Many iteration ends in a real (in-process) JMH run: ranks stop independently at each, and without the
     * catch-up protocol one waits in a collective for a peer already at JMH's teardown latch (this hangs
     * within a few iterations). Bcast at p = 3 (pipelined: a root and receivers that do not wait for each
     * other) and allreduce at p = 2. A hang fails on the separate-thread timeout; JMH's own iteration timeout
     * then interrupts the stuck workers.
     */
    @Test
    @Timeout(value = 50, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void iterationEndsDoNotDeadlock() throws RunnerException {
        assertIterations(run("BcastBench", "pipelined", 3), 40);
        assertIterations(run("AllreduceBench", "tiled", 2), 40);
    }

    private static Collection<RunResult> run(String suite, String algorithm, int ranks) throws RunnerException {
        Options opt = new OptionsBuilder()
                .include("io\\.coll4j\\.jmh\\." + suite + "\\.")
                .param("algorithm", algorithm)
                .param("bytes", "8")
                .param("ranks", Integer.toString(ranks))
                .threads(ranks)
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(40)
                .measurementTime(TimeValue.milliseconds(5))
                .timeout(TimeValue.seconds(10))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        return new Runner(opt).run();
    }

    private static void assertIterations(Collection<RunResult> results, int iterations) {
        assertEquals(1, results.size());
        RunResult r = results.iterator().next();
        assertEquals(iterations, r.getBenchmarkResults().iterator().next().getIterationResults().size());
        assertTrue(r.getPrimaryResult().getScore() > 0);
    }
}
