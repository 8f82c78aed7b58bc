package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A 0-element reducing call under {@code reproducible(true)}, on heap arrays and native segments, for
 * every algorithm: it returns on every rank and leaves the team usable. The rank-ordered dissemination
 * fold has no scratch at 0 elements, and the heap-array fold path dereferenced it (found by a
 * 10^6-call {@code collbench soak}, seed 20261124).
 */
class ZeroCountReproducibleTest {
    static Stream<String> allreduceAlgorithms() {
        return CollectiveCorrectnessTest.names(Collective.ALLREDUCE).stream();
    }

    @ParameterizedTest
    @MethodSource("allreduceAlgorithms")
    void zeroElementsThenOne(String algorithm) {
        for (boolean reproducible : new boolean[]{true, false}) {
            for (int p : new int[]{2, 3}) {
                try (Team team = Team.builder().ranks(p).reproducible(reproducible).timeout(Duration.ofSeconds(30))
                        .algorithm(Collective.ALLREDUCE, algorithm).build()) {
                    team.run(rank -> {
                        double[] none = new double[0];
                        rank.allreduce(none, none, Op.SUM);
                        var seg = rank.allocate(8);
                        rank.allreduce(seg, seg, 0, DType.F64, Op.SUM);
                        double[] one = {rank.id() + 1};
                        rank.allreduce(one, one, Op.SUM);
                        assertEquals(p * (p + 1) / 2.0, one[0], algorithm + " p=" + p + " reproducible=" + reproducible);
                    });
                }
            }
        }
    }
}
