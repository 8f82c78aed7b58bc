package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The error contract of the new collectives: argument errors name the argument and touch nothing shared;
 * ranks that disagree — on the collective, the root, a count, or a v-count array — all get a
 * {@link CollectiveMismatchException} (never a hang, never a copy out of bounds).
 */
class VocabularyErrorTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    static MemorySegment seg(long bytes) {
        return MemorySegment.ofArray(new byte[(int) bytes]);
    }

    @Test
    void argumentErrorsNameTheArgumentAndTouchNothing() {
        long[] three = {1, 1, 1};
        List<Consumer<Rank>> bad = List.of(
                r -> r.gather(seg(8), seg(24), -1, DType.F64, 0),
                r -> r.gather(seg(8), seg(8), 1, DType.F64, 0),
                r -> r.scatter(seg(24), seg(8), 1, DType.F64, 3),
                r -> r.gatherv(seg(8), 1, seg(24), new long[]{1, 1}, three, DType.F64, 0),
                r -> r.gatherv(seg(8), 1, seg(24), three, new long[]{0, -1, 2}, DType.F64, 0),
                r -> r.gatherv(seg(8), 1, seg(24), three, new long[]{0, 0, 2}, DType.F64, 0),
                r -> r.gatherv(seg(16), 2, seg(24), three, new long[]{0, 1, 2}, DType.F64, 0),
                r -> r.scatterv(seg(24), three, null, seg(8), 1, DType.F64, 0),
                r -> r.allgatherv(seg(8), 1, seg(16), three, new long[]{0, 1, 2}, DType.F64),
                r -> r.reduceScatterV(seg(24), seg(8), three, DType.F32, Op.BAND),
                r -> r.reduceScatterV(seg(16), seg(8), three, DType.F64, Op.SUM),
                r -> r.alltoall(seg(24), seg(16), 1, DType.F64),
                r -> { MemorySegment s = seg(48); r.alltoall(s.asSlice(0, 24), s.asSlice(8, 24), 1, DType.F64); },
                r -> { MemorySegment s = seg(48); r.alltoallv(s, three, new long[]{0, 1, 2}, s, three, new long[]{2, 1, 0}, DType.F64); },
                r -> r.alltoallv(seg(48), new long[]{2, 2, 2}, new long[]{0, 2, 4}, seg(48), three, new long[]{0, 1, 2}, DType.F64),
                r -> r.scan(seg(8), seg(8), 1, DType.F64, null),
                r -> r.exscan(seg(8), seg(4), 1, DType.F64, Op.SUM),
                r -> r.alltoall(new double[4], new double[4]));
        List<String> names = List.of("count", "recv", "root", "recvCounts", "displs[1]", "overlap", "sendCount", "displs",
                "recv", "band", "send", "recv", "overlap", "in place", "differs", "op", "recv", "multiple");
        // arguments only the root reads (MPI: "significant only at root") are validated at the root: those cases
        // are called by the root alone, as the other ranks of a real program would be in the collective
        java.util.Set<Integer> rootOnly = java.util.Set.of(1, 3, 4, 5, 6, 7);
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(10)).build()) {
                team.run(rank -> {
                    for (int i = 0; i < bad.size(); i++) {
                        if (rootOnly.contains(i) && rank.id() != 0) {
                            continue;
                        }
                        try {
                            bad.get(i).accept(rank);
                            problems.add("case " + i + " (rank " + rank.id() + "): no exception");
                        } catch (IllegalArgumentException e) {
                            if (!e.getMessage().contains(names.get(i))) {
                                problems.add("case " + i + ": message does not name '" + names.get(i) + "': " + e.getMessage());
                            }
                        }
                    }
                    double[] v = {rank.id() + 1.0, 10 * (rank.id() + 1.0)};
                    double[] out = new double[2];
                    rank.scan(v, out, Op.SUM);
                    double prefix = (rank.id() + 1) * (rank.id() + 2) / 2.0;
                    if (out[0] != prefix || out[1] != 10 * prefix) {
                        problems.add("scan after the errors gave " + java.util.Arrays.toString(out));
                    }
                });
            }
        });
        assertTrue(problems.isEmpty(), problems::toString);
    }

    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource({
            "collective, auto", "root, auto", "scan-count, direct", "scan-count, chain",
            "gatherv-count, push", "gatherv-count, direct", "gatherv-count, cyclicbarrier",
            "scatterv-count, flat", "scatterv-count, direct", "scatterv-count, two-stage",
            "allgatherv-counts, direct", "allgatherv-counts, push",
            "reduce-scatter-v-counts, direct",
            "alltoallv-counts, direct", "alltoallv-counts, push", "alltoallv-counts, cyclicbarrier",
            "alltoall-count, direct", "alltoall-count, push"})
    void disagreementReachesEveryRank(String what, String algorithm) {
        int p = 4;
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(p);
        Collective forced = switch (what) {
            case "gatherv-count" -> Collective.GATHERV;
            case "scatterv-count" -> Collective.SCATTERV;
            case "allgatherv-counts" -> Collective.ALLGATHERV;
            case "reduce-scatter-v-counts" -> Collective.REDUCE_SCATTER_V;
            case "alltoallv-counts" -> Collective.ALLTOALLV;
            case "alltoall-count" -> Collective.ALLTOALL;
            case "scan-count" -> Collective.SCAN;
            default -> null;
        };
        Throwable thrown = assertTimeoutPreemptively(BOUND, () -> assertThrows(CollectiveMismatchException.class, () -> {
            Team.Builder b = Team.builder().ranks(p).timeout(Duration.ofSeconds(10));
            if (forced != null && !algorithm.equals("auto")) {
                b.algorithm(forced, algorithm);
            }
            try (Team team = b.build()) {
                team.run(rank -> {
                    boolean odd = rank.id() == 2;
                    int r = rank.id();
                    long[] two = {2, 2, 2, 2};
                    long[] packed = {0, 2, 4, 6};
                    try {
                        rank.barrier();
                        switch (what) {
                            case "collective" -> {
                                if (odd) {
                                    rank.alltoall(new double[8], new double[8]);
                                } else {
                                    rank.scatter(new double[8], new double[2], 0);
                                }
                            }
                            case "root" -> rank.gather(new double[2], new double[8], odd ? 1 : 0);
                            case "scan-count" -> rank.scan(new double[odd ? 3 : 2], new double[3], Op.SUM);
                            case "gatherv-count" -> rank.gatherv(seg(24), odd ? 3 : 2, seg(64), two, packed, DType.F64, 0);
                            case "scatterv-count" -> rank.scatterv(seg(64), two, packed, seg(24), odd ? 3 : 2, DType.F64, 0);
                            case "allgatherv-counts" -> {
                                long[] c = odd ? new long[]{2, 2, 2, 1} : two;
                                rank.allgatherv(seg(16), c[r], seg(64), c, packed, DType.F64);
                            }
                            case "reduce-scatter-v-counts" -> rank.reduceScatterV(seg(64), seg(16),
                                    odd ? new long[]{2, 2, 2, 1} : two, DType.F64, Op.SUM);
                            case "alltoallv-counts" -> {
                                long[] rc = odd ? new long[]{1, 2, 2, 2} : two;     // rank 0 sends 2 to rank 2
                                rank.alltoallv(seg(64), two, packed, seg(64), rc, packed, DType.F64);
                            }
                            case "alltoall-count" -> rank.alltoall(seg(96), seg(96), odd ? 3 : 2, DType.F64);
                            default -> throw new AssertionError(what);
                        }
                        rank.barrier();     // a rank whose part ended early (eager sender, flat scatter root) learns here
                    } catch (Throwable t) {
                        got.set(rank.id(), t);
                        throw t;
                    }
                });
            }
        }));
        assertTrue(thrown.getMessage().contains("rank"), thrown.getMessage());
        for (int r = 0; r < p; r++) {
            assertInstanceOf(CollectiveMismatchException.class, got.get(r), "rank " + r + " got " + got.get(r));
        }
    }
}
