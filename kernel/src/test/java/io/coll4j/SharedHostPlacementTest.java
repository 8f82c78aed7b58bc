package io.coll4j;

import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Processes of a shared-mapping job bind their ranks to disjoint PUs when every rank of the host has one; under MPI,
 * with more ranks than PUs, or with a placement that does not bind, nothing changes or nothing is bound.
 */
class SharedHostPlacementTest {
    private static final Topology FOUR = Topology.load("synthetic:pack:1 numa:1 l3:1 core:4 pu:1");

    private static String pus(Placement p, int ranks) {
        return p.plan(FOUR, ranks).pus().stream().map(u -> String.valueOf(u.osIndex())).reduce((a, b) -> a + "," + b)
                .orElse("");
    }

    @Test
    void eachProcessTakesItsSliceOfTheHostsPlan() {
        assertEquals("0", pus(SharedHostPlacement.of(Placement.COMPACT, FOUR, 1, 2, 0, false, "h"), 1));
        assertEquals("1", pus(SharedHostPlacement.of(Placement.COMPACT, FOUR, 1, 2, 1, false, "h"), 1));
        assertEquals("2,3", pus(SharedHostPlacement.of(Placement.COMPACT, FOUR, 2, 2, 1, false, "h"), 2));
        assertEquals("3", pus(SharedHostPlacement.of(Placement.COMPACT, FOUR, 1, 4, 3, false, "h"), 1));
    }

    @Test
    void nothingIsBoundUnderMpiOrBeyondThePus() {
        assertSame(Placement.NONE, SharedHostPlacement.of(Placement.COMPACT, FOUR, 1, 2, 1, true, "h"));
        assertSame(Placement.NONE, SharedHostPlacement.of(Placement.COMPACT, FOUR, 2, 3, 0, false, "h"));
        assertSame(Placement.NONE, SharedHostPlacement.of(Placement.COMPACT, FOUR, 1, 5, 4, false, "h"));
    }

    @Test
    void aSingleProcessOrAnUnboundPlacementIsKept() {
        assertSame(Placement.COMPACT, SharedHostPlacement.of(Placement.COMPACT, FOUR, 4, 1, 0, false, "h"));
        assertSame(Placement.NONE, SharedHostPlacement.of(Placement.NONE, FOUR, 1, 2, 1, false, "h"));
    }
}
