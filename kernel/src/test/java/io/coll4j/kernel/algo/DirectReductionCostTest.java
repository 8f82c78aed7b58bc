package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The direct allreduce and reduce cost models under the fixed machine of {@link CopyCollectiveCostTest}:
 * finite and growing with the message; cheaper than the algorithms that move more bytes (tiled
 * allreduce copies every tile once more, the tree reduce folds on one core per level) for large
 * messages; and the selector picks them (push for an allreduce) for large messages and a latency
 * algorithm for 8 bytes.
 */
class DirectReductionCostTest {
    static final Selector SELECTOR = new Selector(CopyCollectiveCostTest.M, Map.of());

    static CollectiveAlgorithm direct(Collective c) {
        return AlgorithmCatalog.find(c, "direct");
    }

    @Test
    void finiteAndGrowingWithTheMessage() {
        for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE}) {
            for (int p : CopyCollectiveCostTest.TEAMS) {
                double last = -1;
                for (long bytes = 0; bytes <= (1L << 30); bytes = bytes == 0 ? 8 : bytes * 2) {
                    double t = direct(c).cost(CopyCollectiveCostTest.M, p, bytes);
                    assertTrue(Double.isFinite(t) && t >= 0, c + " p=" + p + " bytes=" + bytes + ": " + t);
                    assertTrue(t >= last, c + " p=" + p + " shrinks at " + bytes + " bytes: " + last + " -> " + t);
                    last = t;
                }
            }
        }
    }

    @Test
    void cheaperThanTheAlgorithmsThatMoveMoreBytes() {
        for (int p : new int[]{2, 3, 4, 8}) {
            for (long bytes = 1L << 20; bytes <= (256L << 20); bytes *= 4) {
                double allreduce = direct(Collective.ALLREDUCE).cost(CopyCollectiveCostTest.M, p, bytes);
                double tiled = AlgorithmCatalog.find(Collective.ALLREDUCE, "tiled").cost(CopyCollectiveCostTest.M, p, bytes);
                assertTrue(allreduce < tiled, "allreduce p=" + p + " bytes=" + bytes + ": direct " + allreduce + " >= tiled " + tiled);
                double push = AlgorithmCatalog.find(Collective.ALLREDUCE, "push").cost(CopyCollectiveCostTest.M, p, bytes);
                assertTrue(push < tiled, "allreduce p=" + p + " bytes=" + bytes + ": push " + push + " >= tiled " + tiled);
                double reduce = direct(Collective.REDUCE).cost(CopyCollectiveCostTest.M, p, bytes);
                double tree = AlgorithmCatalog.find(Collective.REDUCE, "tree").cost(CopyCollectiveCostTest.M, p, bytes);
                assertTrue(reduce < tree, "reduce p=" + p + " bytes=" + bytes + ": direct " + reduce + " >= tree " + tree);
            }
        }
    }

    @Test
    void selectedForLargeMessagesOnly() {
        for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE}) {
            for (int p : new int[]{2, 4}) {
                for (long bytes : new long[]{2L << 20, 64L << 20, 256L << 20}) {
                    // the allreduce's owners push their results into every receive buffer: the direct
                    // allreduce's work without its per-slice hand-overs
                    String expected = c == Collective.ALLREDUCE ? "push" : "direct";
                    assertEquals(expected, SELECTOR.choose(c, p, bytes / 8, DType.F64, Op.SUM, bytes).name(),
                            c + " p=" + p + " bytes=" + bytes);
                }
                assertNotEquals("direct", SELECTOR.choose(c, p, 1, DType.F64, Op.SUM, 8).name(), c + " p=" + p + " 8 bytes");
            }
        }
    }
}
