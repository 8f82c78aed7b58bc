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
}
