package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Faults at p = 2, 3, 4, 8: every one ends in bounded time with the right exception on every rank —
 * mismatches of collective, root and algorithm (also where the ranks never compare words in the
 * mismatched call), a rank that never arrives (the timeout names it), an interrupted rank, a closed
 * buffer. {@code -Dcoll4j.trials=N} repeats the mismatch cases N times (default 3).
 */
class FaultMatrixTest {
    static final Duration BOUND = Duration.ofSeconds(60);
    static final int TRIALS = Integer.getInteger("coll4j.trials", 3);
    /** Trials of each of the 126 (p = 2) or 252 (p = 2, 3) algorithm pairs: {@code -Dcoll4j.pairTrials=N}. */
    static final int PAIR_TRIALS = Integer.getInteger("coll4j.pairTrials", 1);

    /** Runs {@code body} on a team of p; returns what each rank threw (null: returned normally). */
    static Throwable[] outcomes(Team.Builder b, RankBody body) {
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(64);
        int[] size = new int[1];
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = b.build()) {
                size[0] = team.size();
                try {
                    team.run(rank -> {
                        try {
                            body.run(rank);
                        } catch (Throwable t) {
                            got.set(rank.id(), t);
                            throw t;
                        }
                    });
                } catch (RuntimeException | Error e) {
                    // the per-rank outcomes are checked by the caller
                }
            }
        });
        Throwable[] out = new Throwable[size[0]];
        for (int r = 0; r < out.length; r++) {
            out[r] = got.get(r);
        }
        return out;
    }

    static void assertEveryRank(Throwable[] got, Class<? extends Throwable> type, String what) {
        for (int r = 0; r < got.length; r++) {
            if (!type.isInstance(got[r])) {
                fail(what + ": rank " + r + " got " + got[r] + " instead of " + type.getSimpleName(), got[r]);
            }
        }
    }

    // ---------------------------------------------------------------- defect 2: mismatches that passed unnoticed

    /**
     * Two roots: the roots never wait, so the bcast itself cannot see it; the next barrier must. 100 trials at least:
     * a root that entered the barrier while the other root was still in the bcast used to compare nothing (the
     * central barrier reads no peer's check word) and return normally, about once in 100–300 trials.
     */
    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void differentBcastRootsAreCaughtAtTheLatestByTheNextCollective(int p) {
        for (int t = 0; t < Math.max(TRIALS, 100); t++) {
            Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofSeconds(20)), rank -> {
                double[] buf = new double[16];
                rank.bcast(buf, rank.id() == 1 ? 1 : 0);
                rank.barrier();
            });
            assertEveryRank(got, CollectiveMismatchException.class, "p=" + p + " bcast root 0 vs root 1, trial " + t);
            String m = got[0].getMessage();
            assertTrue(m.contains("root=0") && m.contains("root=1"), m);
        }
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void bcastAgainstReduceIsCaught(int p) {
        for (int t = 0; t < TRIALS; t++) {
            Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofSeconds(20)), rank -> {
                double[] buf = new double[16];
                if (rank.id() == p - 1) {
                    rank.reduce(buf, null, Op.SUM, 0);
                } else {
                    rank.bcast(buf, 0);
                }
                rank.barrier();
            });
            assertEveryRank(got, CollectiveMismatchException.class, "p=" + p + " bcast vs reduce, trial " + t);
            String m = got[0].getMessage();
            assertTrue(m.contains("bcast") && m.contains("reduce"), m);
        }
    }

    // ---------------------------------------------------------------- defect 3: different algorithms

    static final long COUNT = 1000;

    /**
     * Every ordered pair of different algorithms of every collective, at p = 2 (and 3 with more trials): a
     * mismatch naming both, on every rank.
     */
    @Test
    void ranksThatChoseDifferentAlgorithmsAreAMismatchNamingBoth() {
        List<String> problems = new ArrayList<>();
        int pairs = 0;
        for (int p : PAIR_TRIALS > 1 ? new int[]{2, 3} : new int[]{2}) {
            for (Collective c : Collective.values()) {
                List<CollectiveAlgorithm> algs = AlgorithmCatalog.of(c).stream()
                        .filter(a -> a.supports(p, COUNT, DType.F64, Op.SUM)).toList();
                for (CollectiveAlgorithm a : algs) {
                    for (CollectiveAlgorithm b : algs) {
                        if (a == b) {
                            continue;
                        }
                        pairs++;
                        for (int t = 0; t < PAIR_TRIALS; t++) {
                            String problem = algorithmPair(p, c, a.name(), b.name());
                            if (problem != null) {
                                problems.add(problem);
                                break;
                            }
                        }
                    }
                }
            }
        }
        assertTrue(pairs > 50, "pairs tried: " + pairs);
        assertTrue(problems.isEmpty(), problems.size() + " of " + pairs + " pairs:\n" + String.join("\n", problems));
    }

    /** The pairs that returned wrong data without an exception before (allreduce and allgather, direct vs push), TRIALS times. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ALLREDUCE", "ALLGATHER"})
    void directAgainstPushNeverReturns(Collective c) {
        for (int t = 0; t < TRIALS; t++) {
            for (int p : new int[]{2, 3}) {
                String problem = algorithmPair(p, c, "direct", "push");
                assertEquals(null, problem, "trial " + t);
                problem = algorithmPair(p, c, "push", "direct");
                assertEquals(null, problem, "trial " + t);
            }
        }
    }

    /**
     * One element: the inline allreduces (flat, dissemination) publish their value before the rest of their entry
     * (the ANNOUNCE a peer's scan reads when its wait overruns), so a mismatch must still be named when the first
     * thing a peer sees of the call is that publish: every ordered pair of allreduce algorithms at p = 2 and 3, and
     * an 8-byte allreduce against a barrier (whose dissemination signal is published first too).
     */
    @Test
    void inlineCallsThatPublishBeforeAnnouncingAreStillAMismatch() {
        List<String> problems = new ArrayList<>();
        for (int p : new int[]{2, 3}) {
            List<CollectiveAlgorithm> algs = AlgorithmCatalog.of(Collective.ALLREDUCE).stream()
                    .filter(a -> a.supports(p, 1, DType.F64, Op.SUM)).toList();
            for (CollectiveAlgorithm a : algs) {
                for (CollectiveAlgorithm b : algs) {
                    if (a != b && (a.name().equals("flat") || a.name().equals("dissemination")
                            || b.name().equals("flat") || b.name().equals("dissemination"))) {
                        String problem = algorithmPair(p, Collective.ALLREDUCE, a.name(), b.name(), 1);
                        if (problem != null) {
                            problems.add(problem);
                        }
                    }
                }
            }
            for (int t = 0; t < Math.max(TRIALS, 20); t++) {
                Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofSeconds(10)), rank -> {
                    if (rank.id() == 0) {
                        rank.allreduce(1.0, Op.SUM);
                    } else {
                        rank.barrier();
                    }
                    rank.barrier();
                });
                for (int r = 0; r < p; r++) {
                    if (!(got[r] instanceof CollectiveMismatchException m)
                            || !m.getMessage().contains("allreduce") || !m.getMessage().contains("barrier")) {
                        problems.add("p=" + p + " allreduce vs barrier, trial " + t + ": rank " + r + " got " + got[r]);
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), problems.size() + " problems:\n" + String.join("\n", problems));
    }

    /** Rank 0 runs {@code a}, the others {@code b}; null when every rank got a mismatch naming both. */
    static String algorithmPair(int p, Collective c, String a, String b) {
        return algorithmPair(p, c, a, b, COUNT);
    }

    /** {@link #algorithmPair(int, Collective, String, String)} with {@code count} elements per block. */
    static String algorithmPair(int p, Collective c, String a, String b, long count) {
        Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofSeconds(10)), rank -> {
            int n = rank.size();
            MemorySegment send = rank.allocate(count * 8 * n);
            MemorySegment recv = rank.allocate(count * 8 * n);
            CollectivePlan plan = rank.plan(c, count, DType.F64, Op.SUM, 0, rank.id() == 0 ? a : b);
            if (c.vector()) {
                // the v-variants take their counts per call: uniform blocks of count elements
                long[] counts = new long[n];
                long[] displs = new long[n];
                for (int j = 0; j < n; j++) {
                    counts[j] = count;
                    displs[j] = j * count;
                }
                plan.execute(send, counts, displs, recv, counts, displs);
            } else {
                plan.execute(send, c == Collective.BCAST ? null : recv);
            }
            rank.barrier();
        });
        String what = c.cliName() + " p=" + p + " " + a + " vs " + b + ": ";
        for (int r = 0; r < got.length; r++) {
            if (!(got[r] instanceof CollectiveMismatchException m)) {
                return what + "rank " + r + " got " + got[r];
            }
            if (!m.getMessage().contains(a) || !m.getMessage().contains(b)) {
                return what + "rank " + r + ": " + m.getMessage();
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- defect 4: the timeout names the missing rank

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {3, 4, 8})
    void aRankThatSkipsACollectiveIsNamedByTheTimeout(int p) {
        int missing = 2;
        Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofMillis(500)), rank -> {
            if (rank.id() == missing) {
                Thread.sleep(60_000);           // skips the bcast; interrupted by team.run after the abort
            }
            rank.bcast(new double[4], 0);
            rank.barrier();
        });
        for (int r = 0; r < p; r++) {
            if (r == missing) {
                continue;
            }
            CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, got[r], "rank " + r);
            assertEquals(List.of(missing), e.missingRanks(), e.getMessage());
            assertTrue(e.getMessage().contains("rank " + missing + " has entered no collective"), e.getMessage());
            // and where its thread is: asleep in the body, not in coll4j
            assertTrue(e.getMessage().contains("is at java.base/java.lang.Thread.sleep"), e.getMessage());
        }
    }

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void aRankThatNeverArrivesIsNamed(int p) {
        Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofMillis(500)), rank -> {
            if (rank.id() == p - 1) {
                Thread.sleep(60_000);
            }
            rank.allreduce(new double[5], new double[5], Op.SUM);
        });
        for (int r = 0; r < p - 1; r++) {
            CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, got[r], "rank " + r);
            assertEquals(List.of(p - 1), e.missingRanks(), e.getMessage());
        }
    }

    // ---------------------------------------------------------------- defect 5: interrupts

    /**
     * The contract: an interrupted waiting rank leaves the call with a CollectiveInterruptedException naming
     * it, its interrupt status still set; the team is aborted, the others get a TeamAbortedException naming
     * it, and team.run rethrows the interrupted rank's exception.
     */
    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void anInterruptedRankAbortsTheCallAndTheTeam(int p) {
        int victim = p - 1;
        AtomicReference<Thread> victimThread = new AtomicReference<>();
        CountDownLatch waiting = new CountDownLatch(1);
        boolean[] stillInterrupted = new boolean[1];
        AtomicReference<Throwable> fromRun = new AtomicReference<>();
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(p);
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                Thread runner = new Thread(() -> {
                    try {
                        team.run(rank -> {
                            try {
                                if (rank.id() == 0) {
                                    Thread.sleep(60_000);    // never arrives: the others wait in the barrier
                                }
                                if (rank.id() == victim) {
                                    victimThread.set(Thread.currentThread());
                                    waiting.countDown();
                                }
                                rank.barrier();
                            } catch (Throwable t) {
                                got.set(rank.id(), t);
                                if (rank.id() == victim) {
                                    stillInterrupted[0] = Thread.currentThread().isInterrupted();
                                }
                                throw t;
                            }
                        });
                    } catch (Throwable t) {
                        fromRun.set(t);
                    }
                });
                runner.start();
                waiting.await();
                Thread.sleep(50);                 // let it reach the wait loop (an earlier interrupt is caught as well)
                victimThread.get().interrupt();
                runner.join();
            }
        });
        CollectiveInterruptedException e = assertInstanceOf(CollectiveInterruptedException.class, got.get(victim));
        assertEquals(victim, e.rank());
        assertTrue(e.getMessage().contains("rank " + victim), e.getMessage());
        assertTrue(stillInterrupted[0], "the interrupt status is preserved");
        for (int r = 1; r < p - 1; r++) {
            TeamAbortedException a = assertInstanceOf(TeamAbortedException.class, got.get(r), "rank " + r);
            assertTrue(a.getMessage().contains("rank " + victim + " was interrupted"), a.getMessage());
        }
        assertInstanceOf(CollectiveInterruptedException.class, fromRun.get(), "team.run reports the interrupted rank");
    }

    /** Interrupting the thread that called team.run stops the ranks; run says so (not "rank -1 failed"). */
    @Test
    void interruptingTheCallerOfRunAbortsTheRanks() {
        AtomicReference<Throwable> fromRun = new AtomicReference<>();
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(3);
        boolean[] status = new boolean[1];
        CountDownLatch started = new CountDownLatch(2);
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(30)).build()) {
                Thread runner = new Thread(() -> {
                    try {
                        team.run(rank -> {
                            try {
                                if (rank.id() == 0) {
                                    Thread.sleep(60_000);
                                }
                                started.countDown();
                                rank.barrier();
                            } catch (Throwable t) {
                                got.set(rank.id(), t);
                                throw t;
                            }
                        });
                    } catch (Throwable t) {
                        fromRun.set(t);
                    }
                    status[0] = Thread.currentThread().isInterrupted();
                });
                runner.start();
                started.await();
                runner.interrupt();
                runner.join();
            }
        });
        CollectiveInterruptedException e = assertInstanceOf(CollectiveInterruptedException.class, fromRun.get());
        assertEquals(-1, e.rank());
        assertTrue(e.getMessage().contains("team.run was interrupted"), e.getMessage());
        assertTrue(status[0], "the caller's interrupt status is preserved");
        for (int r = 1; r < 3; r++) {
            TeamAbortedException a = assertInstanceOf(TeamAbortedException.class, got.get(r));
            assertTrue(a.getMessage().contains("team.run was interrupted"), a.getMessage());
        }
    }

    // ---------------------------------------------------------------- defect 7: a closed buffer blames its rank

    @ParameterizedTest(name = "p={0}")
    @ValueSource(ints = {2, 3, 4, 8})
    void aClosedBufferIsIllegalArgumentOnItsRankAndNamedToTheOthers(int p) {
        int bad = 1;
        for (long count : new long[]{1, 1000, 128 * 1024}) {
            Throwable[] got = outcomes(Team.builder().ranks(p).timeout(Duration.ofSeconds(20)), rank -> {
                MemorySegment send = rank.allocate(count * 8);
                MemorySegment recv = rank.allocate(count * 8);
                if (rank.id() == bad) {
                    Arena a = Arena.ofShared();
                    send = a.allocate(count * 8);
                    a.close();
                }
                rank.allreduce(send, recv, count, DType.F64, Op.SUM);
            });
            IllegalArgumentException e = assertInstanceOf(IllegalArgumentException.class, got[bad], "count " + count);
            assertTrue(e.getMessage().contains("send") && e.getMessage().contains("rank " + bad), e.getMessage());
            for (int r = 0; r < p; r++) {
                if (r != bad) {
                    TeamAbortedException a = assertInstanceOf(TeamAbortedException.class, got[r], "rank " + r);
                    assertTrue(a.getMessage().contains("rank " + bad + " failed"), a.getMessage());
                }
            }
        }
    }

    // ---------------------------------------------------------------- one validator (issue 16)

    /** The plan path validates exactly as the method: an allgather send overlapping recv off its block is refused. */
    @Test
    void thePlanPathValidatesLikeTheMethods() {
        try (Team team = Team.builder().ranks(1).build()) {
            team.run(rank -> {
                MemorySegment recv = rank.allocate(64);
                MemorySegment overlapping = recv.asSlice(8, 16);
                IllegalArgumentException m = assertThrows(IllegalArgumentException.class,
                        () -> rank.allgather(overlapping, recv, 2, DType.F64));
                CollectivePlan plan = rank.plan(Collective.ALLGATHER, 2, DType.F64, null);
                IllegalArgumentException viaPlan = assertThrows(IllegalArgumentException.class,
                        () -> plan.execute(overlapping, recv));
                assertEquals(m.getMessage(), viaPlan.getMessage());
                MemorySegment dead;
                try (Arena a = Arena.ofShared()) {
                    dead = a.allocate(64);
                }
                MemorySegment d = dead;
                assertThrows(IllegalArgumentException.class, () -> plan.execute(d, recv));
            });
        }
    }
}
