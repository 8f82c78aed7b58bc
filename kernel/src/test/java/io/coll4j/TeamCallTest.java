package io.coll4j;

import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Team#call}: every rank's value back to the caller; and a sub-team closed by its members alone. */
class TeamCallTest {
    static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void callReturnsEveryRanksValueInRankOrder() {
        assertTimeoutPreemptively(BOUND, () -> {
            for (int p : new int[]{1, 2, 3, 5}) {
                try (Team team = Team.builder().ranks(p).build()) {
                    List<Double> sums = team.call(rank -> rank.allreduce(rank.id() + 1.0, Op.SUM));
                    List<Integer> ids = team.call(Rank::id);
                    assertEquals(p, sums.size());
                    for (int r = 0; r < p; r++) {
                        assertEquals(p * (p + 1) / 2.0, sums.get(r));
                        assertEquals(r, ids.get(r));
                    }
                    assertThrows(UnsupportedOperationException.class, () -> ids.set(0, 7), "the list is read-only");
                }
            }
        });
    }

    @Test
    void callRethrowsARanksFailure() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> team.call(rank -> {
                    if (rank.id() == 1) {
                        throw new IllegalStateException("rank 1 says no");
                    }
                    rank.barrier();
                    return 1;
                }));
                assertEquals("rank 1 says no", e.getMessage());
            }
        });
    }

    /** try-with-resources on the split rank frees the sub-team: no second close by anyone. */
    @Test
    void subTeamClosesWhenEveryMemberClosedItsRank() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(4).timeout(Duration.ofSeconds(10)).build()) {
                List<Team> subs = team.call(rank -> {
                    Team sub;
                    try (Rank s = rank.split(rank.id() % 2, 0)) {
                        s.barrier();
                        sub = s.team();
                    }
                    rank.barrier();
                    return sub;
                });
                for (Team sub : subs) {
                    assertTrue(sub.isClosed(), "closed by its members");
                }
                assertFalse(team.isClosed());
            }
        });
    }
}
