package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failures name the rank that caused them, and are reported when they happen rather than at the team timeout
 * (issue 30, defect 9): a sub-team aborted through its parent, a rank whose body returned while its peers wait
 * for it, a split on one rank against an allgather on another. Every team here has a 60 s timeout and every test
 * a 30 s one: a failure found only by the team timeout fails the test.
 */
class FailureAttributionTest {
    private static final Duration TEAM_TIMEOUT = Duration.ofSeconds(60);

    @Test
    @Timeout(30)
    void aSubTeamAbortedThroughItsParentNamesTheParentsFailingRank() {
        AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(3);
        try (Team team = Team.builder().ranks(3).timeout(TEAM_TIMEOUT).build()) {
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> team.run(rank -> {
                Rank sub = rank.split(rank.id() < 2 ? 0 : 1, rank.id());
                try {
                    switch (rank.id()) {
                        case 0 -> sub.barrier();        // waits in the sub-team for rank 1
                        case 1 -> rank.barrier();       // waits in the parent for rank 2
                        default -> {
                            Thread.sleep(200);
                            throw new IllegalStateException("boom");
                        }
                    }
                } catch (RuntimeException e) {
                    seen.set(rank.id(), e);
                    throw e;
                }
            }));
            assertEquals("boom", thrown.getMessage());
        }
        Throwable sub = seen.get(0);
        assertInstanceOf(TeamAbortedException.class, sub);
        assertTrue(sub.getMessage().contains("rank 2 of the parent team failed"), sub.getMessage());
        assertTrue(seen.get(1).getMessage().contains("rank 2 failed"), seen.get(1).getMessage());
    }

    @Test
    @Timeout(30)
    void aRankWhoseBodyReturnedIsNamedAtOnceByThePeersWaitingForIt() {
        try (Team team = Team.builder().ranks(2).timeout(TEAM_TIMEOUT).build()) {
            long start = System.nanoTime();
            CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class, () -> team.run(rank -> {
                rank.barrier();
                rank.allreduce(new double[]{1}, new double[1], Op.SUM);
                if (rank.id() == 0) {
                    rank.allreduce(new double[]{1}, new double[1], Op.SUM);   // rank 1 has gone home
                }
            }));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(e.getMessage().contains("rank 1's body returned after collective #2, without entering #3"), e.getMessage());
            assertEquals(java.util.List.of(1), e.missingRanks());
            assertTrue(ms < 5_000, "reported after " + ms + " ms");
        }
        try (Team team = Team.builder().ranks(3).timeout(TEAM_TIMEOUT).build()) {
            CollectiveTimeoutException e = assertThrows(CollectiveTimeoutException.class, () -> team.run(rank -> {
                if (rank.id() != 2) {
                    rank.barrier();
                }
            }));
            assertTrue(e.getMessage().contains("rank 2's body returned without entering any collective"), e.getMessage());
        }
    }

    @Test
    @Timeout(60)
    void ranksWhoseBodiesEndNormallyAreNotFlagged() {
        // the bcast root leaves its last call without waiting and returns while the others still read its data;
        // ranks end at different times: none of this is a rank that is missing
        for (int round = 0; round < 20; round++) {
            try (Team team = Team.builder().ranks(3).timeout(TEAM_TIMEOUT).build()) {
                team.run(rank -> {
                    double[] v = new double[1 << 12];
                    for (int i = 0; i < 50; i++) {
                        rank.bcast(v, i % 3);
                        rank.allreduce(v, v, Op.MAX);
                    }
                    rank.bcast(v, 0);
                    if (rank.id() != 0) {
                        Thread.sleep(5);
                    }
                });
                team.run(rank -> rank.barrier());   // a second run starts with no rank counted as returned
            }
        }
        // nor do ranks attached after a run: its bodies' returns are forgotten when it ends
        try (Team team = Team.builder().ranks(2).timeout(TEAM_TIMEOUT).build()) {
            team.run(rank -> rank.barrier());
            Thread other = Thread.ofPlatform().start(() -> {
                try (Rank r1 = team.attach(1)) {
                    r1.barrier();
                    r1.barrier();
                }
            });
            try (Rank r0 = team.attach(0)) {
                Thread.sleep(200);   // rank 1 waits long enough for its wait loop to scan
                r0.barrier();
                r0.barrier();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            other.join();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Timeout(30)
    void aSplitAgainstAnAllgatherIsAMismatchOnBothRanksAtOnce() {
        AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(2);
        try (Team team = Team.builder().ranks(2).timeout(TEAM_TIMEOUT).build()) {
            long start = System.nanoTime();
            assertThrows(CollectiveMismatchException.class, () -> team.run(rank -> {
                try {
                    if (rank.id() == 0) {
                        Rank sub = rank.split(0, 0);
                        assertNull(sub, "split completed against an allgather");
                    } else {
                        rank.allgather(new long[]{7, 8}, new long[4]);   // the same shape as split's (color, key)
                    }
                } catch (RuntimeException e) {
                    seen.set(rank.id(), e);
                    throw e;
                }
            }));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertTrue(ms < 5_000, "reported after " + ms + " ms");
        }
        for (int r = 0; r < 2; r++) {
            Throwable t = seen.get(r);
            assertInstanceOf(CollectiveMismatchException.class, t, "rank " + r + ": " + t);
            assertTrue(t.getMessage().contains("split(color, key)") && t.getMessage().contains("allgather(count=2, dtype=i64)"),
                    t.getMessage());
        }
    }
}
