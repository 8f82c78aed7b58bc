package io.coll4j;

import io.coll4j.kernel.span.ProcessSpan.ThreadLevel;
import org.junit.jupiter.api.Test;

import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which splits of a team across processes {@link TeamSplit} builds, with how many ranks in each process, and which
 * it refuses, from the (color, key) table alone (no MPI: the cross-process suite runs the built ones): 4 processes
 * × 3 ranks, global id = process × 3 + local id, and a parent that is itself uneven.
 */
class TeamSplitTest {
    private static final int T = 3;
    private static final int P = 4;

    private static TeamSplit table(IntUnaryOperator color, IntUnaryOperator key) {
        return table(new int[]{T, T, T, T}, color, key);
    }

    private static TeamSplit table(int[] layout, IntUnaryOperator color, IntUnaryOperator key) {
        int n = java.util.Arrays.stream(layout).sum();
        long[] all = new long[2 * n];
        for (int g = 0; g < n; g++) {
            all[2 * g] = color.applyAsInt(g);
            all[2 * g + 1] = key.applyAsInt(g);
        }
        return new TeamSplit(all, layout, 0);
    }

    private static void refused(String why, TeamSplit s, ThreadLevel level) {
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> s.refuseUnsupported(level));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    @Test
    void evenBlocksOverAnySubsetOfProcessesAreBuilt() {
        // processes 1 and 3, two ranks each, in reversed order; the rest local or undefined
        IntUnaryOperator color = g -> g / T % 2 == 1 && g % T < 2 ? 0 : g % T == 2 ? 1 + g / T : Team.UNDEFINED;
        TeamSplit s = table(color, g -> -g);
        assertDoesNotThrow(() -> s.refuseUnsupported(ThreadLevel.SINGLE));
        assertArrayEquals(new int[]{2, 2}, s.counts(0));
        // one rank per process in every color: each process holds T spanning sub-teams, fine with MULTIPLE only
        TeamSplit local = table(g -> g % T, g -> g);
        assertDoesNotThrow(() -> local.refuseUnsupported(ThreadLevel.MULTIPLE));
        refused("two sub-teams", local, ThreadLevel.SERIALIZED);
        refused("two sub-teams", local, ThreadLevel.FUNNELED);
    }

    @Test
    void unevenBlocksAreBuiltWithTheirCountsInBlockOrder() {
        for (ThreadLevel level : ThreadLevel.values()) {
            // process 0 holds 3 members, the others 2
            TeamSplit a = table(g -> g < T || g % T < 2 ? 0 : Team.UNDEFINED, g -> g);
            assertDoesNotThrow(() -> a.refuseUnsupported(level));
            assertArrayEquals(new int[]{3, 2, 2, 2}, a.counts(0));
            // global id < 4: 3 ranks of process 0, 1 of process 1; reversed keys put process 1's block first
            TeamSplit b = table(g -> g < 4 ? 0 : Team.UNDEFINED, g -> -g);
            assertDoesNotThrow(() -> b.refuseUnsupported(level));
            assertArrayEquals(new int[]{1, 3}, b.counts(0));
        }
        // id mod 2 over 2 processes of 3: {0, 2 | 4} and {1 | 3, 5}, each process in both (MULTIPLE only)
        TeamSplit mod = table(new int[]{3, 3}, g -> g % 2, g -> g);
        assertDoesNotThrow(() -> mod.refuseUnsupported(ThreadLevel.MULTIPLE));
        refused("two sub-teams", mod, ThreadLevel.SERIALIZED);
        assertArrayEquals(new int[]{2, 1}, mod.counts(0));
        assertArrayEquals(new int[]{1, 2}, mod.counts(1));
    }

    @Test
    void anUnevenParentSplitsByItsOwnLayout() {
        // a parent of 1 + 3 + 2 ranks (itself a sub-team from an uneven split): global ids 0 | 1 2 3 | 4 5
        TeamSplit s = table(new int[]{1, 3, 2}, g -> g == 2 ? Team.UNDEFINED : 0, g -> -g);
        assertDoesNotThrow(() -> s.refuseUnsupported(ThreadLevel.SINGLE));
        assertArrayEquals(new int[]{2, 2, 1}, s.counts(0));
        refused("interleaves", table(new int[]{1, 3, 2}, g -> 0, g -> g == 1 ? 10 : g), ThreadLevel.MULTIPLE);
    }

    @Test
    void interleavedBlocksAreRefusedAtEveryLevel() {
        for (ThreadLevel level : ThreadLevel.values()) {
            // keys put process 1's ranks between process 0's
            refused("interleaves", table(g -> g < 2 * T ? 0 : 1, g -> g % T * P + g / T), level);
            // a process's block split in two by another's: 0 0 | 1 1 | 0 ... (keys), same counts
            refused("interleaves", table(g -> g < 2 * T ? 0 : Team.UNDEFINED, g -> g == 2 ? 100 : g), level);
        }
    }
}
