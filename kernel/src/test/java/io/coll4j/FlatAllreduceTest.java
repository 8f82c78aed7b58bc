package io.coll4j;

import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The flat inline allreduce at the edge of a flag line's payload (48 bytes: 6 f64/i64 or 12 f32/i32
 * elements, and one element more, which runs the large-message fallback), every dtype × op, in place and
 * out, heap and native ({@link CollectiveCorrectnessTest} covers counts 0, 1 and the rest); and a count
 * mismatch between ranks that only meet through the ARRIVE lines.
 */
class FlatAllreduceTest {
    @Test
    void matchesReferenceAtTheLineCapacity() {
        for (int p : new int[]{2, 3, 5, 8}) {
            CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "flat", p, new long[]{5, 6, 7, 11, 12, 13}, false);
        }
    }

    @Test
    void countMismatchIsDetected() {
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(3);
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(CollectiveMismatchException.class, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(10))
                    .algorithm(Collective.ALLREDUCE, "flat").build()) {
                team.run(rank -> {
                    try {
                        rank.allreduce(new double[2], new double[2], Op.SUM);
                        rank.allreduce(new double[rank.id() == 1 ? 3 : 2], new double[3], Op.SUM);
                    } catch (RuntimeException e) {
                        got.set(rank.id(), e);
                        throw e;
                    }
                });
            }
        }));
        for (int r = 0; r < 3; r++) {
            assertInstanceOf(CollectiveMismatchException.class, got.get(r), "rank " + r);
        }
    }
}
