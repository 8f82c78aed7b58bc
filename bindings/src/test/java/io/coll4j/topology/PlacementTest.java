package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Placement plans on synthetic machines: compact, scatter, explicit, oversubscription, parsing. */
class PlacementTest {
    private static Topology twoPack;
    private static Topology fourPack;

    @BeforeAll
    static void load() {
        assumeTrue(Hwloc.isAvailable(), "skipped: synthetic topologies need hwloc: " + Hwloc.unavailableReason());
        twoPack = Topology.load("synthetic:pack:2 numa:2 l3:1 core:4 pu:2");
        fourPack = Topology.load("synthetic:pack:4 numa:1 l3:1 core:2 pu:1");
    }

    private static List<Integer> os(PlacementPlan p) {
        return p.pus().stream().map(Pu::osIndex).toList();
    }

    @Test
    void compactFollowsLogicalOrder() {
        PlacementPlan p = Placement.COMPACT.plan(twoPack, 5);
        assertEquals(List.of(0, 1, 2, 3, 4), os(p));
        assertEquals(5, p.ranks());
        assertFalse(p.oversubscribed());
        assertTrue(p.placement().binds());
        assertEquals(twoPack.pus().get(4), p.pu(4));
        assertThrows(IllegalArgumentException.class, () -> p.pu(5));
        assertEquals("compact, 5 ranks on P#0,1,2,3,4 (1 package, 1 NUMA node)", p.describe());
    }

    @Test
    void scatterRoundRobinsPackagesThenNumaThenCores() {
        PlacementPlan p = Placement.SCATTER.plan(twoPack, 8);
        // pkg0/numa0/core0, pkg1/numa2/core8, pkg0/numa1/core4, pkg1/numa3/core12, then the next core of each
        assertEquals(List.of(0, 16, 8, 24, 2, 18, 10, 26), os(p));
        assertEquals("scatter, 8 ranks on P#0,16,8,24,2,18,10,26 (2 packages, 4 NUMA nodes)", p.describe());

        PlacementPlan all = Placement.SCATTER.plan(twoPack, 32);
        assertEquals(32, new HashSet<>(os(all)).size(), "every PU once");
        Set<Integer> coresOfFirstHalf = new HashSet<>();
        all.pus().subList(0, 16).forEach(pu -> coresOfFirstHalf.add(pu.core()));
        assertEquals(16, coresOfFirstHalf.size(), "SMT siblings only after every core has a rank");
        for (int r = 0; r < 32; r++) {
            assertEquals(r % 2, all.pu(r).pkg(), "rank " + r + " alternates packages");
        }

        assertEquals(List.of(0, 2, 4, 6, 1, 3, 5, 7), os(Placement.SCATTER.plan(fourPack, 8)));
        // several L3 per NUMA node: spread over the L3s before filling one
        Topology l3s = Topology.load("synthetic:pack:1 numa:1 l3:2 core:3 pu:1");
        assertEquals(List.of(0, 3, 1, 4, 2, 5), os(Placement.SCATTER.plan(l3s, 6)));
    }

    @Test
    void describeAbbreviatesLongPlans() {
        PlacementPlan p = Placement.COMPACT.plan(twoPack, 32);
        assertEquals("compact, 32 ranks on P#0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,… (16 more) (2 packages, 4 NUMA nodes)",
                p.describe());
    }

    @Test
    void explicitListAndUnknownPu() {
        Placement p = Placement.explicit(5, 9, 17);
        assertEquals(List.of(5, 9, 17, 5), os(p.plan(twoPack, 4)));
        assertTrue(p.plan(twoPack, 4).oversubscribed());
        assertFalse(p.plan(twoPack, 3).oversubscribed());
        assertEquals("5,9,17", p.name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Placement.explicit(3, 99).plan(twoPack, 2));
        assertTrue(e.getMessage().startsWith("placement: PU P#99 is not in the topology"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Placement.explicit());
        assertThrows(IllegalArgumentException.class, () -> Placement.explicit(-1));
    }

    @Test
    void moreRanksThanPusWrapsAndSaysOversubscribed() {
        PlacementPlan p = Placement.COMPACT.plan(fourPack, 20);
        assertTrue(p.oversubscribed());
        assertEquals(20, p.ranks());
        assertEquals(fourPack.pus().get(0), p.pu(8));
        assertEquals(fourPack.pus().get(3), p.pu(19));
        assertEquals(3, p.maxRanksPerPu());
        assertTrue(p.describe().endsWith("oversubscribed: up to 3 ranks per PU"), p.describe());
        PlacementPlan s = Placement.SCATTER.plan(fourPack, 9);
        assertEquals(s.pu(0), s.pu(8));
        assertTrue(s.oversubscribed());
    }

    @Test
    void noneLaysOutLikeCompactButDoesNotBind() {
        PlacementPlan p = Placement.NONE.plan(twoPack, 6);
        assertFalse(p.placement().binds());
        assertEquals(Placement.COMPACT.plan(twoPack, 6).pus(), p.pus());
        assertTrue(p.describe().contains("not bound"), p.describe());
    }

    @Test
    void parse() {
        assertSame(Placement.COMPACT, Placement.parse("compact"));
        assertSame(Placement.SCATTER, Placement.parse(" Scatter "));
        assertSame(Placement.NONE, Placement.parse("none"));
        assertEquals(Placement.explicit(0, 1, 3), Placement.parse("0,1,3"));
        assertEquals(Placement.explicit(0, 1, 2, 3, 8), Placement.parse("0-3,8"));
        for (String bad : List.of("", "spread", "1,,2", "3-1", "a,b", "99999999999")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Placement.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("placement: ") || e.getMessage().startsWith("unknown placement '"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Placement.COMPACT.plan(twoPack, 0));
    }

    @Test
    @org.junit.jupiter.api.Timeout(10)
    void aPuListLongerThanAnyMachineIsRefusedBeforeItIsExpanded() {
        for (String huge : List.of("0-2000000000", "0-65536", "0-40000,40000-80000")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Placement.parse(huge), huge);
            assertTrue(e.getMessage().contains("at most " + Placement.MAX_LIST), e.getMessage());
        }
        assertEquals(Placement.MAX_LIST, ((Placement.Explicit) Placement.parse("0-65535")).osIndices().length);
    }

    @Test
    void everyPlanUsesOnlyPusOfItsTopology() {
        for (Placement p : List.of(Placement.COMPACT, Placement.SCATTER, Placement.NONE)) {
            for (int ranks : IntStream.rangeClosed(1, 40).toArray()) {
                for (Pu pu : p.plan(twoPack, ranks).pus()) {
                    assertEquals(pu, twoPack.pus().get(pu.index()));
                }
            }
        }
    }
}
