package io.coll4j;

import io.coll4j.kernel.algo.Schedule;
import io.coll4j.reductions.DType;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who reads whose memory in the bcast and allgather algorithms, from recorded schedules (not timing):
 * the shared-copy allgather bridges packages through their leaders only [MPI+MPI §4.1] (synthetic
 * 2- and 4-package topologies, compact and scatter placement, results checked as well); the pipelined
 * algorithms read only staging buffers, direct reads the owners.
 */
class CopyCollectiveScheduleTest {
    static final String TWO = "synthetic:pack:2 numa:1 l3:1 core:4 pu:1";
    static final String FOUR = "synthetic:pack:4 numa:1 l3:1 core:2 pu:1";

    /** rank -> the ranks whose memory it read ("copy" events). */
    static Map<Integer, Set<Integer>> reads(Schedule s) {
        return s.events("copy").stream().collect(Collectors.groupingBy(Schedule.Event::rank,
                Collectors.mapping(Schedule.Event::peer, Collectors.toSet())));
    }

    /** Runs allgathers of {@code count} f64 per rank (out of place, then in place) and checks every block. */
    static Schedule allgather(String topology, Placement placement, String algorithm, long count, int p) {
        Schedule s = new Schedule();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().topology(Topology.load(topology)).placement(placement).ranks(p)
                .algorithm(Collective.ALLGATHER, algorithm).recordSchedule(s).build()) {
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, count * 8 * p + 64);
                CollectiveCorrectnessTest.runCase(rank, b, Collective.ALLGATHER, count, DType.F64, null,
                        CollectiveCorrectnessTest.Variant.NATIVE, 0, 11, failures);
                CollectiveCorrectnessTest.runCase(rank, b, Collective.ALLGATHER, count, DType.I32, null,
                        CollectiveCorrectnessTest.Variant.HEAP_IN_PLACE, 0, 12, failures);
            });
        }
        assertTrue(failures.isEmpty(), () -> algorithm + " on " + topology + ": " + failures.stream().limit(5).toList());
        return s;
    }

    @Test
    void sharedCopyCrossesPackagesOnlyBetweenLeaders() {
        // packages {0..3}, {4..7}: members read their leader's shared copy, the leaders read each other's
        Schedule s = allgather(TWO, Placement.COMPACT, "shared-copy", 1000, 8);
        assertEquals(Map.of(0, Set.of(4), 1, Set.of(0), 2, Set.of(0), 3, Set.of(0), 4, Set.of(0), 5, Set.of(4),
                6, Set.of(4), 7, Set.of(4)), reads(s));
        // four packages {0,1} {2,3} {4,5} {6,7}: every leader reads every other leader, once per collective
        s = allgather(FOUR, Placement.COMPACT, "shared-copy", 333, 8);
        assertEquals(Map.of(0, Set.of(2, 4, 6), 1, Set.of(0), 2, Set.of(0, 4, 6), 3, Set.of(2), 4, Set.of(0, 2, 6),
                5, Set.of(4), 6, Set.of(0, 2, 4), 7, Set.of(6)), reads(s));
        long leaderReads = s.events("copy").stream().filter(e -> e.rank() % 2 == 0 && e.peer() % 2 == 0).count();
        assertEquals(2 * 4 * 3, leaderReads, "one copy per foreign package per leader per collective (two collectives)");
    }

    @Test
    void sharedCopyBridgesInterleavedPackages() {
        // scatter: even ranks on package 0, odd on package 1; leaders 0 and 1 copy the foreign blocks one by one
        Schedule s = allgather(TWO, Placement.SCATTER, "shared-copy", 17, 8);
        assertEquals(Map.of(0, Set.of(1), 1, Set.of(0), 2, Set.of(0), 3, Set.of(1), 4, Set.of(0), 5, Set.of(1),
                6, Set.of(0), 7, Set.of(1)), reads(s));
        // p = 3 on two packages: package 0 = {0, 1, 2}; one package, no bridge
        s = allgather(TWO, Placement.COMPACT, "shared-copy", 5, 3);
        assertEquals(Map.of(1, Set.of(0), 2, Set.of(0)), reads(s));
        // p = 6 on two packages of 4: the second package has two ranks
        s = allgather(TWO, Placement.COMPACT, "shared-copy", 100, 6);
        assertEquals(Map.of(0, Set.of(4), 1, Set.of(0), 2, Set.of(0), 3, Set.of(0), 4, Set.of(0), 5, Set.of(4)), reads(s));
    }

    @Test
    void directAllgatherReadsEveryOwnerAndPipelinedEveryStagingBuffer() {
        for (String algorithm : new String[]{"direct", "pipelined"}) {
            Schedule s = allgather(TWO, Placement.COMPACT, algorithm, 100, 4);
            assertEquals(Map.of(0, Set.of(1, 2, 3), 1, Set.of(0, 2, 3), 2, Set.of(0, 1, 3), 3, Set.of(0, 1, 2)), reads(s),
                    algorithm);
        }
    }

    @Test
    void bcastReceiversReadOnlyTheRoot() {
        for (String algorithm : new String[]{"pipelined", "direct"}) {
            for (long count : new long[]{3, 1000, 5000}) {
                Schedule s = new Schedule();
                try (Team team = Team.builder().ranks(4).maxSliceBytes(512).algorithm(Collective.BCAST, algorithm)
                        .recordSchedule(s).build()) {
                    team.run(rank -> {
                        MemorySegment buf = rank.allocate(count * 8);
                        rank.bcast(buf, count, DType.F64, 2);
                    });
                }
                assertEquals(Map.of(0, Set.of(2), 1, Set.of(2), 3, Set.of(2)), reads(s), algorithm + " count " + count);
                assertEquals(3, s.events("copy").size(), algorithm + ": one event per receiver");
            }
        }
    }
}
