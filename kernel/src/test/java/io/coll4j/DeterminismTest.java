package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Float results with order-sensitive inputs: (1) every rank of an allreduce gets bitwise the same
 * result, for every algorithm, p and count; (2) the same inputs give the same bits on every run;
 * (3) with {@code reproducible(true)} every reducing algorithm equals the scalar rank-ordered left fold
 * bitwise (and so all algorithms agree).
 */
class DeterminismTest {
    static final int[] TEAM_SIZES = {2, 3, 5, 8};
    static final long[] COUNTS = {1, 6, 7, 64, 1001, 4099};

    static Stream<String> allreduceAlgorithms() {
        return CollectiveCorrectnessTest.names(Collective.ALLREDUCE).stream();
    }

    @ParameterizedTest
    @MethodSource("allreduceAlgorithms")
    void everyRankGetsTheSameBitsEveryRun(String algorithm) {
        for (int p : TEAM_SIZES) {
            for (DType t : List.of(DType.F64, DType.F32)) {
                long[][][] first = allreduce(algorithm, p, t, false);
                long[][][] second = allreduce(algorithm, p, t, false);
                for (int c = 0; c < COUNTS.length; c++) {
                    for (int r = 1; r < p; r++) {
                        assertArrayEquals(first[0][c], first[r][c], algorithm + " p=" + p + " " + t + " count=" + COUNTS[c]
                                + ": rank " + r + " differs from rank 0");
                    }
                    assertArrayEquals(first[0][c], second[0][c], algorithm + " p=" + p + " " + t + " count=" + COUNTS[c]
                            + ": second run differs");
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("allreduceAlgorithms")
    void reproducibleAllreduceEqualsTheLeftFold(String algorithm) {
        for (int p : TEAM_SIZES) {
            for (DType t : List.of(DType.F64, DType.F32)) {
                long[][][] got = allreduce(algorithm, p, t, true);
                for (int c = 0; c < COUNTS.length; c++) {
                    long[] expected = new long[(int) COUNTS[c]];
                    for (int i = 0; i < expected.length; i++) {
                        expected[i] = Values.foldBits(t, Op.SUM, p, i, 77 + c, false);
                    }
                    for (int r = 0; r < p; r++) {
                        assertArrayEquals(expected, got[r][c], algorithm + " p=" + p + " " + t + " count=" + COUNTS[c] + " rank " + r);
                    }
                }
            }
        }
    }

    @Test
    void reproducibleReduceAndReduceScatterEqualTheLeftFold() {
        for (int p : TEAM_SIZES) {
            for (String alg : CollectiveCorrectnessTest.names(Collective.REDUCE)) {
                CollectiveCorrectnessTest.check(Collective.REDUCE, alg, p, new long[]{5, 999}, true);
                checkRandomReduce(alg, p);
            }
            for (String alg : CollectiveCorrectnessTest.names(Collective.REDUCE_SCATTER)) {
                checkRandomReduceScatter(alg, p);
            }
        }
    }

    private static void checkRandomReduce(String alg, int p) {
        long count = 777;
        long[][] got = new long[1][];
        try (Team team = Team.builder().ranks(p).reproducible(true).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.REDUCE, alg).build()) {
            team.run(rank -> {
                MemorySegment send = rank.allocate(count * 8);
                Values.fill(send, 0, DType.F64, Op.SUM, rank.id(), count, 5, false);
                MemorySegment recv = rank.allocate(count * 8);
                rank.reduce(send, recv, count, DType.F64, Op.SUM, p - 1);
                if (rank.id() == p - 1) {
                    got[0] = bits(recv, DType.F64, count);
                }
            });
        }
        for (int i = 0; i < count; i++) {
            assertEquals(Values.foldBits(DType.F64, Op.SUM, p, i, 5, false), got[0][i], "reduce/" + alg + " p=" + p + " [" + i + "]");
        }
    }

    private static void checkRandomReduceScatter(String alg, int p) {
        long count = 333;
        long[][] got = new long[p][];
        try (Team team = Team.builder().ranks(p).reproducible(true).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.REDUCE_SCATTER, alg).build()) {
            team.run(rank -> {
                MemorySegment send = rank.allocate(count * 8 * p);
                Values.fill(send, 0, DType.F64, Op.SUM, rank.id(), count * p, 9, false);
                MemorySegment recv = rank.allocate(count * 8);
                rank.reduceScatter(send, recv, count, DType.F64, Op.SUM);
                got[rank.id()] = bits(recv, DType.F64, count);
            });
        }
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < count; i++) {
                assertEquals(Values.foldBits(DType.F64, Op.SUM, p, r * count + i, 9, false), got[r][i],
                        "reduce-scatter/" + alg + " p=" + p + " rank " + r + " [" + i + "]");
            }
        }
    }

    /** result[rank][countIndex] = bits of the allreduce of random inputs. */
    static long[][][] allreduce(String algorithm, int p, DType t, boolean reproducible) {
        long[][][] out = new long[p][COUNTS.length][];
        try (Team team = Team.builder().ranks(p).reproducible(reproducible).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.ALLREDUCE, algorithm).build()) {
            team.run(rank -> {
                for (int c = 0; c < COUNTS.length; c++) {
                    long n = COUNTS[c];
                    MemorySegment send = MemorySegment.ofArray(new long[(int) n]);
                    Values.fill(send, 0, t, Op.SUM, rank.id(), n, 77 + c, false);
                    MemorySegment recv = rank.allocate(n * t.size());
                    rank.allreduce(send, recv, n, t, Op.SUM);
                    out[rank.id()][c] = bits(recv, t, n);
                }
            });
        }
        return out;
    }

    static long[] bits(MemorySegment seg, DType t, long n) {
        long[] b = new long[(int) n];
        Arrays.setAll(b, i -> Values.read(seg, 0, t, i));
        return b;
    }
}
