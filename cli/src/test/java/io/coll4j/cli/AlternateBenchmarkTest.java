package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --alternate}: the contenders' batches run in turns (A B C A B C …), not one contender after another. */
class AlternateBenchmarkTest {

    @Test
    void contendersTakeTurnsBatchByBatch() {
        for (int p : new int[]{1, 2, 3}) {
            try (Team team = Team.builder().ranks(p).build()) {
                CollectiveBenchmark bench = new CollectiveBenchmark(Collective.ALLREDUCE, DType.F64, Op.SUM, 0, false, List.of(),
                        1024, p, 0);
                bench.consumeResults();
                List<String> names = List.of("push", CollectiveBenchmark.BARRIER_CONTENDER, "direct");
                List<BenchRow> rows = bench.measureAlternated(team, 1000, names, "direct", 200, 5);
                assertEquals(names, rows.stream().map(BenchRow::algorithm).toList());
                assertEquals(List.of(Collective.ALLREDUCE, Collective.BARRIER, Collective.ALLREDUCE),
                        rows.stream().map(BenchRow::collective).toList());
                assertEquals(List.of(false, false, true), rows.stream().map(BenchRow::autoPick).toList());
                assertTrue(rows.stream().allMatch(r -> r.iterations() == 200 && r.bytes() == 1000 && r.avgUs() > 0
                        && r.minUs() <= r.avgUs() && r.avgUs() <= r.maxUs()), rows.toString());
                long[][] starts = bench.lastBatchStarts();
                assertEquals(3, starts.length);
                assertEquals(CollectiveBenchmark.BATCHES, starts[0].length);
                long last = Long.MIN_VALUE;
                for (int b = 0; b < starts[0].length; b++) {
                    for (int c = 0; c < 3; c++) {
                        assertTrue(starts[c][b] > last, "p=" + p + " contender " + c + " batch " + b + " started before the one before it");
                        last = starts[c][b];
                    }
                }
            }
        }
    }
}
