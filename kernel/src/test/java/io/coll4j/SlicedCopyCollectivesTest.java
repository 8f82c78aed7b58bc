package io.coll4j;

import io.coll4j.kernel.algo.bcast.DirectBcast;
import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The strip-mined paths of the bcast and allgather algorithms, reached with little data through a small
 * {@code maxSliceBytes} (64 B … 4 KiB): many slices, counts not divisible by p or by the slice, slices
 * shorter than a line at the tail, every dtype, p = 1, 2, 3, 4, 5, 8, heap and native buffers, allgather
 * in place and out of place, roots rotating. Checked against the scalar reference
 * ({@link CollectiveCorrectnessTest#runCase}). (The algorithms that do not slice small messages are
 * covered at every count by {@link CollectiveCorrectnessTest}.)
 */
class SlicedCopyCollectivesTest {
    /** Teams that fit the 2-core test machines: every count and slice size. */
    static final int[] SMALL_TEAMS = {1, 2, 3, 4};
    /** Oversubscribed teams: every hand-over may cost a context switch, so fewer cases. */
    static final int[] LARGE_TEAMS = {5, 8};
    /** Odd counts, counts around one line (8 f64), and a hundred-odd lines. */
    static final long[] COUNTS = {0, 1, 7, 16, 17, 100, 333, 1025};
    static final long[] LARGE_TEAM_COUNTS = {0, 7, 17, 333};
    static final long[] SLICES = {64, 4096};

    static Stream<Arguments> pipelined() {
        return Stream.of(Arguments.of(Collective.BCAST, "pipelined"), Arguments.of(Collective.ALLGATHER, "pipelined"));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("pipelined")
    void manySlicesMatchTheReference(Collective collective, String algorithm) {
        for (long slice : SLICES) {
            for (int p : SMALL_TEAMS) {
                check(collective, algorithm, p, slice, COUNTS);
            }
        }
        for (int p : LARGE_TEAMS) {
            check(collective, algorithm, p, 192, LARGE_TEAM_COUNTS);
        }
    }

    /**
     * Direct bcast's root copies a share of every receive buffer from {@link DirectBcast#SHARE_MIN_BYTES}
     * on (16 KiB: 4096 elements of 4 bytes), strip-mined over the receivers present: counts on both sides
     * of the threshold, slices of one line and of 4 KiB, every root.
     */
    @Test
    void directBcastRootShareMatchesTheReference() {
        long[] counts = {4095, 4096, 4099, 6007};
        for (int p : new int[]{2, 3, 4, 5}) {
            for (long slice : new long[]{64, 4096}) {
                check(Collective.BCAST, "direct", p, slice, counts);
            }
        }
        check(Collective.BCAST, "direct", 8, 1024, new long[]{4099});
    }

    static void check(Collective collective, String algorithm, int p, long slice, long[] counts) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).maxSliceBytes(slice)
                .algorithm(collective, algorithm).build()) {
            long max = 0;
            for (long c : counts) {
                max = Math.max(max, c);
            }
            long maxBytes = max * 8 * p + 64;
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers buffers = new CollectiveCorrectnessTest.Buffers(rank, maxBytes);
                long salt = 1;
                for (long count : counts) {
                    for (DType t : Values.CORE_TYPES) {
                        for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                            if (!v.appliesTo(collective)) {
                                continue;
                            }
                            salt++;
                            CollectiveCorrectnessTest.runCase(rank, buffers, collective, count, t, null, v, salt % p, salt,
                                    failures);
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> collective.cliName() + "/" + algorithm + " p=" + p + " slice=" + slice + ": "
                + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }
}
