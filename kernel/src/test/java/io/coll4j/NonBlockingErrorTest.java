package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mismatch, abort, timeout and close applied to requests: the exceptions of the blocking collectives, never a hang. */
class NonBlockingErrorTest {
    static final Duration BOUND = Duration.ofSeconds(20);

    /** Ranks issuing different calls under the same issue number: every rank gets the mismatch. */
    @Test
    void mismatchFailsEveryRank() {
        AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(3);
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(10)).build()) {
                assertThrows(CollectiveMismatchException.class, () -> team.run(rank -> {
                    MemorySegment s = rank.allocate(1024);
                    try {
                        Request r = rank.id() == 2
                                ? rank.iallreduce(s, s, 16, DType.F64, Op.SUM)
                                : rank.iallreduce(s, s, 8, DType.F64, Op.SUM);
                        r.await();
                    } catch (RuntimeException e) {
                        seen.set(rank.id(), e);
                        throw e;
                    }
                }));
            }
        });
        for (int r = 0; r < 3; r++) {
            Throwable t = seen.get(r);
            assertInstanceOf(CollectiveMismatchException.class, t, "rank " + r);
            assertTrue(t.getMessage().contains("count=16") || t.getMessage().contains("16"), t.getMessage());
        }
    }

    /**
     * The same after a loop of one shape, when rank 0 has published the next call ahead for that shape
     * (NonBlockingEngine.prepareNext): the rank whose call differs claims the slot over it while the others take it,
     * in either order, and every rank gets the mismatch — the odd rank one of the others, then rank 0 itself.
     */
    @Test
    void mismatchAfterALoopFailsEveryRank() {
        for (int odd : new int[]{2, 0}) {
            AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(3);
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(10)).build()) {
                    assertThrows(CollectiveMismatchException.class, () -> team.run(rank -> {
                        MemorySegment s = rank.allocate(1024);
                        MemorySegment d = rank.allocate(1024);
                        for (int call = 0; call < 20; call++) {
                            rank.iallreduce(s, d, 8, DType.F64, Op.SUM).await();
                        }
                        try {
                            Request r = rank.id() == odd
                                    ? rank.iallreduce(s, d, 16, DType.F64, Op.SUM)
                                    : rank.iallreduce(s, d, 8, DType.F64, Op.SUM);
                            r.await();
                        } catch (RuntimeException e) {
                            seen.set(rank.id(), e);
                            throw e;
                        }
                    }));
                }
            });
            for (int r = 0; r < 3; r++) {
                assertInstanceOf(CollectiveMismatchException.class, seen.get(r), "odd rank " + odd + ", rank " + r);
            }
        }
    }

    /** A rank that fails aborts the team: the waiting rank's await and every future of an outstanding request fail. */
    @Test
    void abortCompletesEveryOutstandingRequestExceptionally() {
        AtomicReference<Throwable> awaited = new AtomicReference<>();
        AtomicReference<CompletableFuture<Void>> future = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                RuntimeException boom = new RuntimeException("boom");
                RuntimeException thrown = assertThrows(RuntimeException.class, () -> team.run(rank -> {
                    MemorySegment s = rank.allocate(1 << 16);
                    if (rank.id() == 1) {
                        Thread.sleep(100);
                        throw boom;
                    }
                    Request first = rank.iallreduce(s, s, 8, DType.F64, Op.SUM);
                    Request second = rank.ibarrier();
                    future.set(second.toFuture());
                    try {
                        first.await();
                    } catch (RuntimeException e) {
                        awaited.set(e);
                        throw e;
                    }
                }));
                assertEquals(boom, thrown);
            }
        });
        assertInstanceOf(TeamAbortedException.class, awaited.get());
        CompletionException c = assertThrows(CompletionException.class, () -> future.get().join());
        assertInstanceOf(TeamAbortedException.class, c.getCause());
    }

    /** A rank that never posts: the waiting rank times out, naming it. */
    @Test
    void aRankThatNeverPostsTimesOut() {
        AtomicReference<Throwable> awaited = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofMillis(300)).build()) {
                assertThrows(CollectiveTimeoutException.class, () -> team.run(rank -> {
                    if (rank.id() == 2) {
                        return;
                    }
                    MemorySegment s = rank.allocate(1 << 16);
                    Request r = rank.iallreduce(s, s, 4096, DType.F64, Op.SUM);
                    try {
                        while (!r.isDone()) {
                            Thread.onSpinWait();
                        }
                    } catch (RuntimeException e) {
                        awaited.compareAndSet(null, e);
                        throw e;
                    }
                }));
            }
        });
        CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, awaited.get());
        assertEquals(java.util.List.of(2), e.missingRanks());
    }

    /** await(Duration) gives up without failing the team; the request can be awaited again and completes. */
    @Test
    void boundedAwaitReturnsFalseAndTheRequestStaysUsable() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                team.run(rank -> {
                    MemorySegment s = rank.allocate(8);
                    s.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0, 1.0);
                    if (rank.id() == 1) {
                        Thread.sleep(200);
                    }
                    Request r = rank.iallreduce(s, s, 1, DType.F64, Op.SUM);
                    if (rank.id() == 0) {
                        assertFalse(r.await(Duration.ofMillis(20)));
                    }
                    r.await();
                    assertEquals(2.0, s.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0));
                    assertTrue(r.await(Duration.ZERO));
                });
            }
        });
    }

    /** Requests nobody awaits do not block close; their futures fail; the team is not left running. */
    @Test
    void neverAwaitedRequestsDoNotBlockClose() throws Exception {
        AtomicReference<CompletableFuture<Void>> future = new AtomicReference<>();
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(BOUND, () -> {
            Team team = Team.builder().ranks(2).progressThread(true).timeout(Duration.ofSeconds(30)).build();
            team.run(rank -> {
                MemorySegment s = rank.allocate(1 << 20);
                for (int k = 0; k < 50; k++) {
                    rank.iallreduce(s, s, 1 << 17, DType.F64, Op.SUM);
                }
                if (rank.id() == 0) {
                    // a call rank 1 never makes: outstanding for ever
                    future.set(rank.ibcast(s, 8, DType.F64, 0).toFuture());
                }
            });
            team.close();
        });
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
        CompletionException c = assertThrows(CompletionException.class, () -> future.get().join());
        assertInstanceOf(IllegalStateException.class, c.getCause());
    }
}
