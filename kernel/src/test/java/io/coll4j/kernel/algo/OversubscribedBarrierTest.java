package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.internal.TeamInternals;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ranks that share PUs take turns on them: every dependent round of a barrier waits for the scheduler, so the
 * one-round central barrier is priced below the ⌈log2 p⌉-round dissemination barrier exactly when the team is
 * oversubscribed (and is then picked), and the line-latency order stands when every rank has its PU.
 */
class OversubscribedBarrierTest {
    /** Two PUs: 3, 4 and 8 ranks share them. */
    static final String TWO_PUS = "synthetic:pack:1 numa:1 l3:1 core:2 pu:1";
    static final String EIGHT_PUS = "synthetic:pack:1 numa:1 l3:1 core:8 pu:1";

    static String barrierPick(Team team) {
        return TeamInternals.selector(team).choose(Collective.BARRIER, team.size(), 0, null, null, 0).name();
    }

    @Test
    void theShapeCountsRanksPerPuAndTheCentralBarrierIsPickedWhenRanksShareThem() {
        for (int p : new int[]{2, 3, 4, 8}) {
            try (Team team = Team.builder().topology(Topology.load(TWO_PUS)).ranks(p).build()) {
                TeamShape shape = TeamInternals.selector(team).shape(p);
                assertEquals((p + 1) / 2, shape.ranksPerPu(), shape.toString());
                assertEquals(p == 2 ? "dissemination" : "central", barrierPick(team), "p=" + p);
                barriersHold(team);
            }
            try (Team team = Team.builder().topology(Topology.load(EIGHT_PUS)).ranks(p).build()) {
                assertEquals(1, TeamInternals.selector(team).shape(p).ranksPerPu());
                assertEquals("dissemination", barrierPick(team), "p=" + p + " with a PU each");
            }
        }
    }

    @Test
    void everyBarrierPaysItsDependentRoundsOnSharedPusOnly() {
        MachineModel m = MachineModel.defaults(Topology.load(EIGHT_PUS));
        TeamShape own = TeamShape.flat(8);
        TeamShape shared = own.withRanksPerPu(4);
        for (String name : new String[]{"dissemination", "tree", "central"}) {
            CollectiveAlgorithm a = AlgorithmCatalog.find(Collective.BARRIER, name);
            assertEquals(a.cost(m, 8, 0), a.cost(m, own, 0), name);
            assertTrue(a.costTerms(m, own, 0).isEmpty(), name);
            int rounds = switch (name) {
                case "dissemination" -> 3;
                case "tree" -> 4;
                default -> 1;
            };
            assertEquals(a.cost(m, 8, 0) + rounds * 3 * Oversubscription.HAND_OVER_US * 1e-6, a.cost(m, shared, 0), 1e-12, name);
            assertTrue(a.costTerms(m, shared, 0).getFirst().contains(rounds + " dependent round"), a.costTerms(m, shared, 0).toString());
        }
        assertThrows(IllegalArgumentException.class, () -> new TeamShape(2, 1, 2, 3));
        assertThrows(IllegalArgumentException.class, () -> new TeamShape(2, 1, 2, 0));
    }

    /** 300 barriers: nobody leaves one before everyone has arrived at it. */
    static void barriersHold(Team team) {
        int p = team.size();
        AtomicInteger arrived = new AtomicInteger();
        AtomicReference<String> wrong = new AtomicReference<>();
        team.run(rank -> {
            for (int i = 0; i < 300; i++) {
                arrived.incrementAndGet();
                rank.barrier();
                int seen = arrived.get();
                if (seen < p * (i + 1)) {
                    wrong.compareAndSet(null, "rank " + rank.id() + " left barrier " + i + " having seen " + seen + " arrivals");
                }
                rank.barrier();   // nobody arrives at barrier i + 1 before everyone has checked barrier i
            }
        });
        assertNull(wrong.get());
    }
}
