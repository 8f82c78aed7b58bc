package io.coll4j;

import io.coll4j.kernel.algo.Schedule;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ma-socket} [YHCCL §3.3] on synthetic multi-package machines: results against the scalar
 * reference (every dtype × op, in place and out of place, heap and native, counts not divisible by the
 * ranks per package), the two-level schedule read back from the recorded events (only the partials cross
 * packages, one per rank, from its counterpart), all ranks bitwise equal, and the single-level fallback
 * (one package, unequal packages, {@code reproducible(true)}).
 */
class MaSocketAllreduceTest {
    static final String TWO = "synthetic:pack:2 numa:1 l3:1 core:4 pu:1";
    static final String FOUR = "synthetic:pack:4 numa:1 l3:1 core:2 pu:1";
    static final String TWO_BY_THREE = "synthetic:pack:2 numa:1 l3:1 core:3 pu:1";
    static final long[] COUNTS = {0, 1, 7, 17, 100, 333, 1025};

    static Team.Builder team(String topology, int p) {
        return Team.builder().topology(Topology.load(topology)).ranks(p).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.ALLREDUCE, "ma-socket");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"2x4", "4x2", "2x3", "2x4 with 5 ranks", "1x8"})
    void everyDtypeOpAndLayoutMatchesTheReference(String shape) {
        String topology = switch (shape) {
            case "4x2" -> FOUR;
            case "2x3" -> TWO_BY_THREE;
            case "1x8" -> BandwidthReductionTest.CACHED;
            default -> TWO;
        };
        int p = shape.equals("2x3") ? 6 : shape.endsWith("5 ranks") ? 5 : 8;
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = team(topology, p).build()) {
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers buffers = new CollectiveCorrectnessTest.Buffers(rank, 1025 * 8 + 64);
                long salt = 1;
                for (long count : COUNTS) {
                    for (DType t : Values.CORE_TYPES) {
                        for (Op op : BandwidthReductionTest.ops(t)) {
                            for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                salt++;
                                CollectiveCorrectnessTest.runCase(rank, buffers, Collective.ALLREDUCE, count, t, op, v, 0, salt, failures);
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> shape + ": " + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    static Schedule schedule(String topology, int p, boolean reproducible) {
        Schedule s = new Schedule();
        try (Team team = team(topology, p).reproducible(reproducible).recordSchedule(s).build()) {
            team.run(rank -> rank.allreduce(new double[1000], new double[1000], Op.SUM));
        }
        return s;
    }

    @Test
    void onlyThePartialsCrossPackagesOnePerRankFromItsCounterpart() {
        // packages {0..3} {4..7}: rank i's counterpart is i ± 4
        Schedule s = schedule(TWO, 8, false);
        for (Schedule.Event e : s.events("fold")) {
            assertEquals(e.rank() / 4, e.peer() / 4, "phase 1 stays in the package: " + e);
        }
        for (Schedule.Event e : s.events("copy")) {
            assertEquals(e.rank() / 4, e.peer() / 4, "phase 3 stays in the package: " + e);
        }
        List<Schedule.Event> partials = s.events("fold-partial");
        assertEquals(8, partials.size(), "one remote partial per rank: " + partials);
        for (Schedule.Event e : partials) {
            assertEquals((e.rank() + 4) % 8, e.peer(), "the counterpart's partial: " + e);
        }
        // packages {0,1} {2,3} {4,5} {6,7}: every rank reads the 3 partials of its block from the other packages
        Schedule four = schedule(FOUR, 8, false);
        List<Schedule.Event> crossing = four.events().stream().filter(e -> e.rank() / 2 != e.peer() / 2).toList();
        assertEquals(8 * 3, crossing.size(), "G-1 = 3 crossings per rank: " + crossing);
        assertTrue(crossing.stream().allMatch(e -> e.action().equals("fold-partial") && e.rank() % 2 == e.peer() % 2), crossing::toString);
    }

    @Test
    void singleLevelWhereThereIsNoSecondLevel() {
        // reproducible(true): the rank-ordered order of ma-sliced; unequal packages (compact 5 ranks: 4 + 1); one package
        for (Schedule s : List.of(schedule(TWO, 8, true), schedule(TWO, 5, false), schedule(BandwidthReductionTest.CACHED, 4, false))) {
            assertTrue(s.events("fold-partial").isEmpty(), () -> "no second level expected: " + s.events());
            assertTrue(!s.events("fold").isEmpty(), "ma-sliced ran");
        }
    }

    /** Order-sensitive float inputs: every rank's result bitwise identical, the same on a second run. */
    @Test
    void everyRankHoldsTheSameBits() {
        int p = 8;
        long n = 4099;
        long[][] bits = new long[2 * p][];
        for (int run = 0; run < 2; run++) {
            int base = run * p;
            try (Team team = team(TWO, p).build()) {
                team.run(rank -> {
                    MemorySegment send = rank.allocate(n * 8);
                    Values.fill(send, 0, DType.F64, Op.SUM, rank.id(), n, 4242, false);
                    MemorySegment recv = rank.allocate(n * 8);
                    rank.allreduce(send, recv, n, DType.F64, Op.SUM);
                    bits[base + rank.id()] = recv.toArray(java.lang.foreign.ValueLayout.JAVA_LONG);
                });
            }
        }
        for (int q = 1; q < 2 * p; q++) {
            assertTrue(java.util.Arrays.equals(bits[0], bits[q]), "rank/run " + q + " differs from rank 0 of run 0");
        }
    }
}
