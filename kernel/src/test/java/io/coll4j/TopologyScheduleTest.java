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
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    // ---- topology-aware tiled and dissemination allreduce [HMPI §2.3, §2.4] ----

    static int pkg(String topology, int rank) {
        return topology.equals(TWO) ? rank / 4 : rank / 2;
    }

    @Test
    void tiledAllreduceTilesInsidePackagesAndATreeAcross() {
        for (String topo : List.of(TWO, FOUR)) {
            int packages = topo.equals(TWO) ? 2 : 4;
            int q = 8 / packages;
            Schedule s = run(topo, Collective.ALLREDUCE, "tiled", 0, 100);
            List<Schedule.Event> crossFolds = s.events("fold").stream().filter(e -> pkg(topo, e.rank()) != pkg(topo, e.peer())).toList();
            assertEquals(List.of(), crossFolds, topo + ": the tiles are folded inside each package");
            // the tree: every partial of a package other than 0 is folded once, by the same tile's owner elsewhere
            List<Schedule.Event> tree = s.events("fold-partial");
            assertEquals((packages - 1) * q, tree.size(), topo + ": " + tree);
            for (Schedule.Event e : tree) {
                assertEquals(e.rank() % q, e.peer() % q, "the same tile: " + e);
                assertTrue(pkg(topo, e.peer()) > pkg(topo, e.rank()), "lower package folds the higher: " + e);
            }
            if (packages == 4) {
                // binomial: package 0 folds packages 1 and 2, package 2 folds package 3
                assertEquals(Set.of(1, 2), tree.stream().filter(e -> pkg(topo, e.rank()) == 0).map(e -> pkg(topo, e.peer()))
                        .collect(Collectors.toSet()));
                assertEquals(Set.of(3), tree.stream().filter(e -> pkg(topo, e.rank()) == 2).map(e -> pkg(topo, e.peer()))
                        .collect(Collectors.toSet()));
            }
            // broadcast: one cross-package copy per rank outside package 0, from the owner of its tile in package 0
            List<Schedule.Event> crossCopies = s.events("copy").stream().filter(e -> pkg(topo, e.rank()) != pkg(topo, e.peer())).toList();
            assertEquals((packages - 1) * q, crossCopies.size(), topo + ": " + crossCopies);
            for (Schedule.Event e : crossCopies) {
                assertEquals(e.rank() % q, e.peer(), "from tile " + (e.rank() % q) + "'s owner in package 0: " + e);
            }
        }
    }

    /** Scatter placement: rank r on package r mod G. Rounds inside a package come first, crossing rounds last. */
    @Test
    void disseminationAllreduceKeepsEarlyRoundsInsideAPackage() {
        for (String topo : List.of(TWO, FOUR)) {
            int packages = topo.equals(TWO) ? 2 : 4;
            int inside = Integer.numberOfTrailingZeros(8 / packages);
            for (long count : new long[]{3, 100}) {          // pushed inline, pulled from scratch
                Schedule s = new Schedule();
                try (Team team = Team.builder().topology(Topology.load(topo)).ranks(8)
                        .placement(io.coll4j.topology.Placement.SCATTER)
                        .algorithm(Collective.ALLREDUCE, "dissemination").recordSchedule(s).build()) {
                    team.run(rank -> rank.allreduce(new double[(int) count], new double[(int) count], Op.SUM));
                }
                for (int r = 0; r < 8; r++) {
                    int rank = r;
                    List<Boolean> crosses = s.events("fold").stream().filter(e -> e.rank() == rank)
                            .map(e -> e.peer() % packages != rank % packages).toList();
                    assertEquals(3, crosses.size(), topo + " rank " + r + ": " + crosses);
                    for (int k = 0; k < 3; k++) {
                        assertEquals(k >= inside, crosses.get(k), topo + " count " + count + " rank " + r + " round " + k
                                + " (first " + inside + " rounds inside the package): " + crosses);
                    }
                }
            }
        }
    }

    /** The two-level tiled and the package-major dissemination compute the right values (exact inputs). */
    @Test
    void topologyAwareAllreducesAreCorrect() {
        for (String topo : List.of(TWO, FOUR)) {
            for (io.coll4j.topology.Placement placement : List.of(io.coll4j.topology.Placement.COMPACT, io.coll4j.topology.Placement.SCATTER)) {
                for (String alg : List.of("tiled", "dissemination")) {
                    java.util.Queue<String> failures = new java.util.concurrent.ConcurrentLinkedQueue<>();
                    try (Team team = Team.builder().topology(Topology.load(topo)).ranks(8).placement(placement)
                            .algorithm(Collective.ALLREDUCE, alg).build()) {
                        team.run(rank -> {
                            CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, 1025 * 8 + 64);
                            long salt = 3;
                            for (long count : new long[]{0, 1, 5, 17, 1025}) {
                                for (io.coll4j.reductions.DType t : Values.CORE_TYPES) {
                                    for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                        salt++;
                                        CollectiveCorrectnessTest.runCase(rank, b, Collective.ALLREDUCE, count, t, Op.SUM, v, 0, salt, failures);
                                    }
                                }
                            }
                        });
                    }
                    assertTrue(failures.isEmpty(), topo + " " + placement + " " + alg + ": " + failures.stream().limit(5).toList());
                }
            }
        }
    }
}
