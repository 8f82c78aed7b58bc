package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.internal.TeamInternals;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The model sees topology: a team spanning packages is priced with HMPI's two-level terms (each package's
 * DRAM for its ranks, bytes between packages at B_β, hand-overs at a_β [HMPI §2.1]), so {@code auto}
 * picks a two-level allreduce where its cost is the least — {@code ma-socket} for large messages on 2
 * packages, the hierarchical {@code tiled} on 4 — and {@code ma-socket} never on one package, where it is
 * priced as the {@code staged-sliced} it runs there.
 */
class TopologyCostTest {
    static final String TWO = "synthetic:pack:2 numa:1 l3:1 core:4 pu:1";
    /** Four packages of four: with two ranks per package the two-level form moves as much between packages as push. */
    static final String FOUR = "synthetic:pack:4 numa:1 l3:1 core:4 pu:1";
    static final String ONE = "synthetic:pack:1 numa:1 l3:1 core:8 pu:1";

    static String pick(Team team, long bytes) {
        return TeamInternals.selector(team).choose(Collective.ALLREDUCE, team.size(), bytes / 8, DType.F64, Op.SUM, bytes).name();
    }

    @Test
    void autoPicksTheTwoLevelAllreduceWhereTheModelSaysItWins() {
        for (String topo : List.of(TWO, FOUR)) {
            int p = topo.equals(TWO) ? 8 : 16;
            try (Team team = Team.builder().topology(Topology.load(topo)).ranks(p).build()) {
                TeamShape shape = TeamInternals.selector(team).shape(p);
                assertTrue(shape.twoLevel(), shape.toString());
                // 2 x 4: ma-socket; 4 x 4: the hierarchical tiled (its tree moves 2(G-1)s between packages,
                // ma-socket G(G-1)s) — a two-level algorithm either way
                String big = pick(team, 64L << 20);
                assertEquals(topo.equals(TWO) ? "ma-socket" : "tiled", big, topo);
                assertNotEquals("ma-socket", pick(team, 8), topo + ": small messages are latency-bound");
                // where it is picked, its two-level cost is the least of all candidates, and both two-level
                // algorithms beat every flat one
                MachineModel m = TeamInternals.model(team);
                double best = AlgorithmCatalog.find(Collective.ALLREDUCE, big).cost(m, shape, 64L << 20);
                double socket = AlgorithmCatalog.find(Collective.ALLREDUCE, "ma-socket").cost(m, shape, 64L << 20);
                for (CollectiveAlgorithm a : AlgorithmCatalog.of(Collective.ALLREDUCE)) {
                    if (!AlgorithmCatalog.isBaseline(a)) {
                        assertTrue(a.cost(m, shape, 64L << 20) >= best, a.name() + " is cheaper than " + big);
                        if (!a.name().equals("tiled")) {
                            assertTrue(a.cost(m, shape, 64L << 20) >= socket, a.name() + " is cheaper than ma-socket");
                        }
                    }
                }
            }
        }
    }

    @Test
    void onePackageNeverPicksIt() {
        try (Team team = Team.builder().topology(Topology.load(ONE)).ranks(8).build()) {
            assertEquals(TeamShape.flat(8), TeamInternals.selector(team).shape(8));
            for (long bytes = 8; bytes <= 256L << 20; bytes *= 4) {
                assertNotEquals("ma-socket", pick(team, bytes), "at " + bytes + " B");
            }
        }
    }

    @Test
    void compactPlacementOfHalfTheCoresStaysOnOnePackage() {
        try (Team team = Team.builder().topology(Topology.load(TWO)).ranks(4).build()) {
            assertEquals(1, TeamInternals.selector(team).shape(4).packages());
        }
    }

    @Test
    void explainShowsTheTwoLevelTerms() {
        MachineModel m = MachineModel.defaults(Topology.load(TWO));
        TeamShape shape = new TeamShape(8, 2, 4);
        Selector s = new Selector(m, Map.of(), shape);
        List<Selector.Prediction> preds = s.predict(Collective.ALLREDUCE, 8, (64L << 20) / 8, DType.F64, Op.SUM, 64L << 20);
        Selector.Prediction socket = preds.stream().filter(p -> p.algorithm().name().equals("ma-socket")).findFirst().orElseThrow();
        assertTrue(socket.chosen());
        assertTrue(socket.terms().getFirst().startsWith("two-level: phase 1"), socket.terms().toString());
        assertTrue(socket.terms().get(1).startsWith("beta: " + (2L * (64L << 20)) + " B between packages"), socket.terms().toString());
        Selector.Prediction direct = preds.stream().filter(p -> p.algorithm().name().equals("direct")).findFirst().orElseThrow();
        // direct's two all-to-all passes: 2·(p − 1)·s·(p − k)/(p − 1) = 2·4·s between packages
        assertTrue(direct.terms().getFirst().startsWith("beta: " + (8L * (64L << 20)) + " B"), direct.terms().toString());
        // one package: no beta terms, and ma-socket says it runs the one-level protocol
        List<Selector.Prediction> flat = new Selector(m, Map.of(), TeamShape.flat(8))
                .predict(Collective.ALLREDUCE, 8, 1 << 20, DType.F64, Op.SUM, 8 << 20);
        assertTrue(flat.stream().allMatch(p -> p.terms().stream().noneMatch(t -> t.startsWith("beta"))));
    }

    @Test
    void packagesMultiplyTheDramBandwidthOnly() {
        MachineModel m = MachineModel.defaults(Topology.load(TWO));
        assertEquals(m, m.forPackages(1));
        MachineModel two = m.forPackages(2);
        assertEquals(2 * m.memoryBandwidth(), two.memoryBandwidth());
        assertEquals(m.crossPackageBandwidth(), two.crossPackageBandwidth());
        assertEquals(m.cacheCapacity(), two.cacheCapacity());
    }
}
