package io.coll4j;

import io.coll4j.kernel.span.ProcessSpan.ThreadLevel;
import org.junit.jupiter.api.Test;

import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which splits of a team across processes {@link TeamSplit} builds and which it refuses, from the (color, key)
 * table alone (no MPI: the cross-process suite runs the built ones): 4 processes × 3 ranks, global id = process × 3
 * + local id.
 */
class TeamSplitTest {
    private static final int T = 3;
    private static final int P = 4;

    private static TeamSplit table(IntUnaryOperator color, IntUnaryOperator key) {
        long[] all = new long[2 * P * T];
        for (int g = 0; g < P * T; g++) {
            all[2 * g] = color.applyAsInt(g);
            all[2 * g + 1] = key.applyAsInt(g);
        }
        return new TeamSplit(all, T, 0);
    }

    private static void refused(String why, TeamSplit s, ThreadLevel level) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> s.refuseUnsupported(level));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void evenBlocksOverAnySubsetOfProcessesAreBuilt() {
        // processes 1 and 3, two ranks each, in reversed order; the rest local or undefined
        IntUnaryOperator color = g -> g / T % 2 == 1 && g % T < 2 ? 0 : g % T == 2 ? 1 + g / T : Team.UNDEFINED;
        assertDoesNotThrow(() -> table(color, g -> -g).refuseUnsupported(ThreadLevel.SINGLE));
        // one rank per process in every color: each process holds T spanning sub-teams, fine with MULTIPLE only
        TeamSplit local = table(g -> g % T, g -> g);
        assertDoesNotThrow(() -> local.refuseUnsupported(ThreadLevel.MULTIPLE));
        refused("two sub-teams", local, ThreadLevel.SERIALIZED);
        refused("two sub-teams", local, ThreadLevel.FUNNELED);
    }

    @Test
    void unevenOrInterleavedBlocksAreRefusedAtEveryLevel() {
        for (ThreadLevel level : ThreadLevel.values()) {
            // process 0 holds 3 members, the others 2
            refused("uneven layout", table(g -> g < T || g % T < 2 ? 0 : Team.UNDEFINED, g -> g), level);
            // keys put process 1's ranks between process 0's
            refused("uneven layout", table(g -> g < 2 * T ? 0 : 1, g -> g % T * P + g / T), level);
            // a process's block split in two by another's: 0 0 | 1 1 | 0 ... (keys), same counts
            refused("uneven layout", table(g -> g < 2 * T ? 0 : Team.UNDEFINED, g -> g == 2 ? 100 : g), level);
        }
    }
}
