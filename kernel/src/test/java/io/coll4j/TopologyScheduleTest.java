package io.coll4j;

import io.coll4j.kernel.algo.Schedule;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The two-stage algorithms use one master per package [HMPI §2.2, Fig. 4]: checked on synthetic
 * 2- and 4-package topologies through the recorded schedule of who copied from whom, not by timing.
 */
class TopologyScheduleTest {
    static final String TWO = "synthetic:pack:2 numa:1 l3:1 core:4 pu:1";
    static final String FOUR = "synthetic:pack:4 numa:1 l3:1 core:2 pu:1";

    /** rank -> the ranks it copied from, in the last collective recorded. */
    static Map<Integer, Set<Integer>> copies(Schedule s, String action) {
        return s.events(action).stream().collect(Collectors.groupingBy(Schedule.Event::rank,
                Collectors.mapping(Schedule.Event::peer, Collectors.toSet())));
    }

    static Schedule run(String topology, Collective c, String algorithm, int root, long count) {
        Schedule s = new Schedule();
        try (Team team = Team.builder().topology(Topology.load(topology)).ranks(8).algorithm(c, algorithm)
                .recordSchedule(s).build()) {
            team.run(rank -> {
                double[] buf = new double[(int) count];
                double[] out = new double[(int) count];
                if (c == Collective.BCAST) {
                    rank.bcast(buf, root);
                } else {
                    rank.allreduce(buf, out, Op.SUM);
                }
            });
        }
        return s;
    }

    @Test
    void twoStageBcastRelaysOncePerPackage() {
        for (long count : new long[]{3, 1000}) {               // inline payload and scratch staging
            Schedule s = run(TWO, Collective.BCAST, "two-stage", 1, count);
            // packages {0..3}, {4..7}; root 1: its package reads it, rank 4 relays for {5,6,7}
            assertEquals(Map.of(0, Set.of(1), 2, Set.of(1), 3, Set.of(1), 4, Set.of(1), 5, Set.of(4), 6, Set.of(4),
                    7, Set.of(4)), copies(s, "copy"), "count " + count);
        }
        Schedule s = run(FOUR, Collective.BCAST, "two-stage", 0, 100);
        // packages {0,1} {2,3} {4,5} {6,7}: masters 2, 4, 6 read the root, their members read them
        assertEquals(Map.of(1, Set.of(0), 2, Set.of(0), 3, Set.of(2), 4, Set.of(0), 5, Set.of(4), 6, Set.of(0), 7, Set.of(6)),
                copies(s, "copy"));
    }

    @Test
    void treeAllreduceCrossesPackagesOnlyAtTheTop() {
        Schedule s = run(TWO, Collective.ALLREDUCE, "tree", 0, 100);
        List<Schedule.Event> folds = s.events("fold");
        List<Schedule.Event> crossFolds = folds.stream().filter(e -> (e.rank() < 4) != (e.peer() < 4)).toList();
        assertEquals(1, crossFolds.size(), "one cross-package fold: " + crossFolds);
        assertEquals(0, crossFolds.get(0).rank());
        assertEquals(4, crossFolds.get(0).peer());
        Map<Integer, Set<Integer>> copies = copies(s, "copy");
        assertEquals(Map.of(1, Set.of(0), 2, Set.of(0), 3, Set.of(0), 4, Set.of(0), 5, Set.of(4), 6, Set.of(4), 7, Set.of(4)),
                copies, "two-stage broadcast of the result");
    }

    @Test
    void scatterPlacementInterleavesPackagesAndTheTreeFollowsThem() {
        Schedule s = new Schedule();
        try (Team team = Team.builder().topology(Topology.load(TWO)).ranks(8)
                .placement(io.coll4j.topology.Placement.SCATTER)
                .algorithm(Collective.ALLREDUCE, "tree").recordSchedule(s).build()) {
            team.run(rank -> rank.allreduce(new double[10], new double[10], Op.SUM));
        }
        // scatter: even ranks on package 0, odd ranks on package 1; only rank 0 folds across, from rank 1
        List<Schedule.Event> cross = s.events("fold").stream().filter(e -> e.rank() % 2 != e.peer() % 2).toList();
        assertEquals(1, cross.size(), cross.toString());
        assertEquals(1, cross.get(0).peer());
    }
}
