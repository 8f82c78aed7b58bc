package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The error contract (docs/design.md, "Error contract"), one test per failure, each finishing in bounded time. */
class ErrorContractTest {
    static final Duration BOUND = Duration.ofSeconds(20);

    // ---------------------------------------------------------------- argument errors

    /**
     * Every bad argument is an IllegalArgumentException naming it, on the calling rank, before any shared
     * state is touched: after catching it, all ranks still complete a correct allreduce together.
     */
    @Test
    void argumentErrorsNameTheArgumentAndTouchNothing() {
        List<Consumer<Rank>> bad = List.of(
                r -> r.allreduce(seg(8), seg(8), -1, DType.F64, Op.SUM),
                r -> r.allreduce(null, seg(8), 1, DType.F64, Op.SUM),
                r -> r.allreduce(seg(8), null, 1, DType.F64, Op.SUM),
                r -> r.allreduce(seg(8), seg(4), 1, DType.F64, Op.SUM),
                r -> r.allreduce(seg(8), seg(8).asReadOnly(), 1, DType.F64, Op.SUM),
                r -> r.allreduce(seg(8), seg(8), 1, null, Op.SUM),
                r -> r.allreduce(seg(8), seg(8), 1, DType.F64, null),
                r -> r.allreduce(seg(8), seg(8), 1, DType.F32, Op.BAND),
                r -> r.bcast(seg(8), 1, DType.F64, r.size()),
                r -> r.bcast(seg(8), 1, DType.F64, -1),
                r -> r.reduce(seg(8), seg(8), 1, DType.I64, Op.SUM, 7),
                r -> r.reduceScatter(seg(8), seg(8), 1, DType.F64, Op.SUM),
                r -> r.allgather(seg(8), seg(8), 1, DType.F64),
                r -> { MemorySegment s = seg(64); r.allreduce(s.asSlice(0, 32), s.asSlice(8, 32), 4, DType.F64, Op.SUM); },
                r -> { try (Arena a = Arena.ofConfined()) { r.allreduce(a.allocate(8), seg(8), 1, DType.F64, Op.SUM); } },
                r -> r.allocate(-5),
                r -> r.allreduce((double[]) null, new double[1], Op.SUM));
        List<String> names = List.of("count", "send", "recv", "recv", "read-only", "dtype", "op", "band", "root", "root",
                "root", "send", "recv", "overlap", "confined", "bytes", "send");
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(10)).build()) {
                team.run(rank -> {
                    for (int i = 0; i < bad.size(); i++) {
                        try {
                            bad.get(i).accept(rank);
                            problems.add("case " + i + ": no exception");
                        } catch (IllegalArgumentException e) {
                            if (!e.getMessage().contains(names.get(i))) {
                                problems.add("case " + i + ": message does not name '" + names.get(i) + "': " + e.getMessage());
                            }
                        }
                    }
                    double[] v = {rank.id() + 1.0};
                    double[] out = new double[1];
                    rank.allreduce(v, out, Op.SUM);
                    if (out[0] != 6.0) {
                        problems.add("allreduce after the errors gave " + out[0]);
                    }
                });
            }
        });
        assertTrue(problems.isEmpty(), problems::toString);
    }

    static MemorySegment seg(long bytes) {
        return MemorySegment.ofArray(new byte[(int) bytes]);
    }

    // ---------------------------------------------------------------- mismatch

    @ParameterizedTest
    @ValueSource(strings = {"collective", "count", "dtype", "op", "root"})
    void mismatchReachesEveryRankWithBothSides(String what) {
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(4);
        Throwable thrown = assertTimeoutPreemptively(BOUND, () -> assertThrows(CollectiveMismatchException.class, () -> {
            try (Team team = Team.builder().ranks(4).timeout(Duration.ofSeconds(10)).build()) {
                team.run(rank -> {
                    boolean odd = rank.id() == 2;
                    try {
                        rank.barrier();                               // one good collective first
                        switch (what) {
                            case "collective" -> {
                                if (odd) {
                                    rank.barrier();
                                } else {
                                    rank.allreduce(new double[4], new double[4], Op.SUM);
                                }
                            }
                            case "count" -> rank.allreduce(new double[odd ? 5 : 4], new double[5], Op.SUM);
                            case "dtype" -> {
                                if (odd) {
                                    rank.allreduce(new long[4], new long[4], Op.SUM);
                                } else {
                                    rank.allreduce(new double[4], new double[4], Op.SUM);
                                }
                            }
                            case "op" -> rank.allreduce(new double[4], new double[4], odd ? Op.MAX : Op.SUM);
                            case "root" -> rank.bcast(new double[4], odd ? 1 : 0);
                            default -> throw new AssertionError(what);
                        }
                        rank.barrier();     // a rank that finished its part early (bcast root) learns here
                    } catch (Throwable t) {
                        got.set(rank.id(), t);
                        throw t;
                    }
                });
            }
        }));
        assertTrue(thrown.getMessage().contains("rank 2") || thrown.getMessage().contains("rank"), thrown.getMessage());
        for (int r = 0; r < 4; r++) {
            assertInstanceOf(CollectiveMismatchException.class, got.get(r), "rank " + r + " got " + got.get(r));
            String m = got.get(r).getMessage();
            assertTrue(m.contains(" called ") && m.indexOf(" called ") != m.lastIndexOf(" called "),
                    "message must describe both sides: " + m);
        }
    }

    // ---------------------------------------------------------------- a rank throws

    @Test
    void aThrowingRankAbortsParkedRanksWithinMilliseconds() {
        RuntimeException boom = new IllegalStateException("boom");
        AtomicLong thrownAt = new AtomicLong();
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(4);
        long[] seenAt = new long[4];
        Throwable thrown = assertTimeoutPreemptively(BOUND, () -> assertThrows(IllegalStateException.class, () -> {
            try (Team team = Team.builder().ranks(4).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    if (rank.id() == 1) {
                        Thread.sleep(300);                         // the others are parked by now
                        thrownAt.set(System.nanoTime());
                        throw boom;
                    }
                    try {
                        rank.barrier();
                    } catch (Throwable t) {
                        seenAt[rank.id()] = System.nanoTime();
                        got.set(rank.id(), t);
                        throw t;
                    }
                });
            }
        }));
        assertSame(boom, thrown, "team.run rethrows the first failure");
        for (int r : new int[]{0, 2, 3}) {
            TeamAbortedException e = assertInstanceOf(TeamAbortedException.class, got.get(r));
            assertSame(boom, e.getCause());
            long ms = (seenAt[r] - thrownAt.get()) / 1_000_000;
            // bounded, not timed: a parked rank sees the abort at its next unpark; the bound only has to
            // separate "woken by the abort" from "ran into the 30 s timeout" on a loaded machine
            assertTrue(ms >= 0 && ms < 10_000, "rank " + r + " saw the abort after " + ms + " ms");
        }
    }

    @Test
    void aCheckedExceptionIsWrapped() {
        Exception checked = new java.io.IOException("disk");
        TeamFailureException e = assertTimeoutPreemptively(BOUND, () -> assertThrows(TeamFailureException.class, () -> {
            try (Team team = Team.builder().ranks(2).build()) {
                team.run(rank -> {
                    if (rank.id() == 0) {
                        throw checked;
                    }
                    rank.barrier();
                });
            }
        }));
        assertSame(checked, e.getCause());
    }

    // ---------------------------------------------------------------- a rank never arrives

    @Test
    void aMissingRankTimesOutListingIt() {
        AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(4);
        long start = System.nanoTime();
        CollectiveTimeoutException e = assertTimeoutPreemptively(BOUND, () -> assertThrows(CollectiveTimeoutException.class, () -> {
            try (Team team = Team.builder().ranks(4).timeout(Duration.ofMillis(400)).build()) {
                team.run(rank -> {
                    if (rank.id() == 3) {
                        Thread.sleep(60_000);                      // never arrives
                    }
                    try {
                        rank.allreduce(new double[3], new double[3], Op.SUM);
                    } catch (Throwable t) {
                        got.set(rank.id(), t);
                        throw t;
                    }
                });
            }
        }));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(List.of(3), e.missingRanks());
        assertTrue(e.getMessage().contains("[3]"), e.getMessage());
        for (int r = 0; r < 3; r++) {
            CollectiveTimeoutException t = assertInstanceOf(CollectiveTimeoutException.class, got.get(r));
            assertEquals(List.of(3), t.missingRanks());
        }
        // never before the timeout; the upper bound is the test's own (BOUND), not a speed claim
        assertTrue(ms >= 400, "took " + ms + " ms");
    }

    @Test
    void aBaselineRankThatNeverArrivesTimesOutToo() {
        CollectiveTimeoutException e = assertTimeoutPreemptively(BOUND, () -> assertThrows(CollectiveTimeoutException.class, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofMillis(300))
                    .algorithm(Collective.ALLREDUCE, "cyclicbarrier").build()) {
                team.run(rank -> {
                    if (rank.id() == 0) {
                        Thread.sleep(60_000);
                    }
                    rank.allreduce(new double[3], new double[3], Op.SUM);
                });
            }
        }));
        assertTrue(e.getMessage().contains("timed out"), e.getMessage());
    }

    // ---------------------------------------------------------------- use after close, wrong thread

    @Test
    void useAfterCloseOrFromTheWrongThreadIsIllegalState() {
        assertTimeoutPreemptively(BOUND, () -> {
            Team team = Team.builder().ranks(2).build();
            Rank[] kept = new Rank[1];
            MemorySegment[] mem = new MemorySegment[1];
            team.run(rank -> {
                if (rank.id() == 0) {
                    kept[0] = rank;
                    mem[0] = rank.allocate(64);
                }
                rank.barrier();
            });
            assertThrows(IllegalStateException.class, kept[0]::barrier, "rank used outside team.run");
            Rank attached = team.attach(0);
            Thread other = new Thread(() -> assertThrows(IllegalStateException.class, attached::barrier, "another thread"));
            other.start();
            other.join();
            attached.close();
            assertThrows(IllegalStateException.class, attached::barrier, "closed rank");
            team.close();
            assertThrows(IllegalStateException.class, () -> team.run(r -> { }));
            assertThrows(IllegalStateException.class, () -> team.attach(1));
            assertThrows(IllegalStateException.class, kept[0]::barrier);
            assertThrows(IllegalStateException.class, () -> mem[0].get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0),
                    "memory from rank.allocate is freed on close");
            team.close();                                          // idempotent
        });
    }

    @Test
    void anAbortedTeamCannotRunAgain() {
        try (Team team = Team.builder().ranks(2).build()) {
            assertThrows(IllegalArgumentException.class, () -> team.run(rank -> {
                throw new IllegalArgumentException("first");
            }));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> team.run(rank -> { }));
            assertTrue(e.getMessage().contains("aborted"), e.getMessage());
        }
    }

    @Test
    void runFromARankThreadIsIllegalState() {
        try (Team team = Team.builder().ranks(1).build()) {
            Throwable[] inner = new Throwable[1];
            team.run(rank -> inner[0] = assertThrows(IllegalStateException.class, () -> team.run(r -> { })));
            assertInstanceOf(IllegalStateException.class, inner[0]);
        }
    }
}
