package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A request that failed stays failed, with the same exception for every way of asking; a failed work item, an
 * interrupt, a future joined on a rank and a closed team end a request as the blocking collectives end a call
 * (issue 30, defects 3, 5, 6, 7, 9). Every test is bounded: before the fixes several of them hung.
 */
class RequestFailureTest {
    /** Bound of one test: generous against a loaded machine, far below a hang. */
    static final Duration BOUND = Duration.ofSeconds(15);
    static final long BIG = 1 << 17;          // 1 MiB of f64: the sliced schedule
    static final long SMALL = 8;              // 64 B: the staged schedule

    enum Kind { TIMEOUT, MISMATCH, ABORT, CLOSED_BUFFER }

    enum Form { ONE_SHOT, PERSISTENT, CHAIN }

    enum Way { AWAIT, AWAIT_DURATION, IS_DONE, FUTURE_GET, FUTURE_JOIN }

    static Stream<Arguments> kindsFormsWays() {
        List<Arguments> all = new ArrayList<>();
        for (Kind k : Kind.values()) {
            for (Form f : Form.values()) {
                for (Way w : Way.values()) {
                    all.add(Arguments.of(k, f, w));
                }
            }
        }
        return all.stream();
    }

    static Request make(Rank rank, Form form, MemorySegment send, MemorySegment recv, long n) {
        return switch (form) {
            case ONE_SHOT -> rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
            case PERSISTENT -> {
                PersistentRequest p = rank.allreduceInit(send, recv, n, DType.F64, Op.SUM);
                p.start();
                yield p;
            }
            case CHAIN -> rank.chain().allreduce(send, recv, n, DType.F64, Op.SUM).start();
        };
    }

    /** The failure that {@code way} reports; fails the test when the request looks complete instead. */
    static Throwable failureBy(Request r, Way way) {
        try {
            switch (way) {
                case AWAIT -> r.await();
                case AWAIT_DURATION -> {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!r.await(Duration.ofMillis(50))) {
                        if (System.nanoTime() > end) {
                            fail("await(Duration) never ended");
                        }
                    }
                }
                case IS_DONE -> {
                    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!r.isDone()) {
                        if (System.nanoTime() > end) {
                            fail("isDone never ended");
                        }
                        Thread.onSpinWait();
                    }
                }
                case FUTURE_GET -> r.toFuture().get();
                case FUTURE_JOIN -> r.toFuture().join();
            }
        } catch (ExecutionException | CompletionException e) {
            assertNotNull(e.getCause(), way + ": " + e);
            return e.getCause();
        } catch (RuntimeException e) {
            return e;
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        fail(way + " reported a failed request as complete");
        return null;
    }

    /** Every way of asking, again and again, gives the first failure itself; a persistent request does not start. */
    static void assertSticky(Request r, Throwable first) {
        for (int round = 0; round < 2; round++) {
            for (Way w : Way.values()) {
                assertSame(first, failureBy(r, w), w + " after the failure");
            }
            RuntimeException again = assertThrows(RuntimeException.class, () -> {
                if (!r.await(Duration.ofSeconds(1))) {
                    fail("await(1 s) returned false");
                }
            });
            assertSame(first, again, "await(1 s)");
            assertTrue(r.toFuture().isCompletedExceptionally(), "the future is failed");
            if (r instanceof PersistentRequest p) {
                assertSame(first, assertThrows(RuntimeException.class, p::start), "start after the failure");
            }
        }
    }

    static void expectKind(Kind kind, int rank, Throwable t) {
        switch (kind) {
            case TIMEOUT -> assertInstanceOf(CollectiveTimeoutException.class, t, String.valueOf(t));
            case MISMATCH -> assertInstanceOf(CollectiveMismatchException.class, t, String.valueOf(t));
            case ABORT -> {
                assertInstanceOf(TeamAbortedException.class, t, String.valueOf(t));
                assertTrue(t.getMessage().contains("rank 1 failed") && t.getMessage().contains("rank 0 cannot continue"),
                        t.getMessage());
            }
            case CLOSED_BUFFER -> {
                if (rank == 0) {
                    assertInstanceOf(IllegalArgumentException.class, t, String.valueOf(t));
                    assertTrue(t.getMessage().contains("send of rank 0 is not alive"), t.getMessage());
                } else {
                    assertInstanceOf(TeamAbortedException.class, t, String.valueOf(t));
                    assertTrue(t.getMessage().contains("rank 0 failed") && t.getMessage().contains("send of rank 0")
                            && t.getMessage().contains("rank 1 cannot continue"), t.getMessage());
                }
            }
        }
    }

    /**
     * Defect 3 (and 5, 7 for the closed buffer and the futures): every failure kind × request form × first way of
     * asking. Before: the second await returned normally, isDone was true and the future completed normally; a
     * closed buffer hung the second await; a future joined on a rank hung.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("kindsFormsWays")
    void aFailedRequestStaysFailedWithTheSameException(Kind kind, Form form, Way way) {
        Queue<Throwable> problems = new ConcurrentLinkedQueue<>();
        AtomicReferenceArray<Throwable> firsts = new AtomicReferenceArray<>(2);
        CountDownLatch closed = new CountDownLatch(1);
        Duration timeout = kind == Kind.TIMEOUT ? Duration.ofMillis(300) : Duration.ofSeconds(5);
        long n = kind == Kind.TIMEOUT || kind == Kind.CLOSED_BUFFER ? BIG : SMALL;
        AtomicReference<Throwable> run = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(timeout).build()) {
                run.set(assertThrows(Throwable.class, () -> team.run(rank -> {
                    int id = rank.id();
                    boolean asks = id == 0 || kind == Kind.CLOSED_BUFFER;
                    MemorySegment recv = rank.allocate(n * 8);
                    Request r;
                    if (id == 0) {
                        Arena arena = Arena.ofShared();
                        MemorySegment send = kind == Kind.CLOSED_BUFFER ? arena.allocate(n * 8, 64) : rank.allocate(n * 8);
                        r = make(rank, form, send, recv, n);
                        if (kind == Kind.CLOSED_BUFFER) {
                            arena.close();
                        }
                        closed.countDown();
                    } else {
                        switch (kind) {
                            case TIMEOUT -> {
                                return;                        // never posts
                            }
                            case MISMATCH -> {
                                closed.await(5, TimeUnit.SECONDS);
                                Thread.sleep(50);
                                MemorySegment s = rank.allocate(2 * n * 8);
                                make(rank, form, s, s, 2 * n);  // throws the mismatch
                                return;
                            }
                            case ABORT -> {
                                closed.await(5, TimeUnit.SECONDS);
                                Thread.sleep(50);
                                throw new RuntimeException("boom");
                            }
                            default -> {
                                assertTrue(closed.await(5, TimeUnit.SECONDS));
                                r = make(rank, form, rank.allocate(n * 8), recv, n);
                            }
                        }
                    }
                    if (!asks) {
                        return;
                    }
                    recv.fill((byte) 0x7f);
                    try {
                        Throwable first = failureBy(r, way);
                        firsts.set(id, first);
                        expectKind(kind, id, first);
                        assertSticky(r, first);
                        assertEquals((byte) 0x7f, recv.get(ValueLayout.JAVA_BYTE, 0), "recv never written");
                    } catch (Throwable t) {
                        problems.add(t);
                    }
                })));
            }
        });
        if (!problems.isEmpty()) {
            AssertionError e = new AssertionError(problems.size() + " problem(s), first: " + problems.peek(), problems.peek());
            problems.forEach(e::addSuppressed);
            throw e;
        }
        assertNotNull(firsts.get(0), "rank 0 saw a failure");
        if (kind == Kind.CLOSED_BUFFER) {
            // team.run reports the rank that closed its buffer (before: a raw "Already closed" without a rank)
            assertInstanceOf(IllegalArgumentException.class, run.get(), String.valueOf(run.get()));
            assertTrue(run.get().getMessage().contains("send of rank 0"), run.get().getMessage());
        }
    }

    /**
     * Defect 5: rank 0 closes its send (or recv) arena after posting a 1 MiB iallreduce; both ranks and a helper
     * thread catch the failure and await again. Before: once the claimed items had failed, await spun for ever,
     * the team was neither aborted nor timed out.
     */
    @ParameterizedTest
    @EnumSource(names = {"SEND", "RECV"})
    void aFailedItemFailsTheRequestAndAbortsTheTeam(Buffer which) {
        Queue<Throwable> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch closed = new CountDownLatch(1);
        AtomicReference<Throwable> run = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(2)).build()) {
                run.set(assertThrows(Throwable.class, () -> team.run(rank -> {
                    Request r;
                    Thread helper = null;
                    AtomicReference<Throwable> helperSaw = new AtomicReference<>();
                    if (rank.id() == 0) {
                        Arena arena = Arena.ofShared();
                        MemorySegment mine = arena.allocate(BIG * 8, 64);
                        MemorySegment other = rank.allocate(BIG * 8);
                        r = which == Buffer.SEND ? rank.iallreduce(mine, other, BIG, DType.F64, Op.SUM)
                                : rank.iallreduce(other, mine, BIG, DType.F64, Op.SUM);
                        arena.close();
                        Request shared = r;
                        helper = Thread.ofPlatform().start(() -> {
                            for (int k = 0; k < 3; k++) {
                                try {
                                    shared.await();
                                    helperSaw.set(new AssertionError("the helper's await returned normally"));
                                    return;
                                } catch (RuntimeException e) {
                                    helperSaw.compareAndSet(null, e);
                                }
                            }
                        });
                        closed.countDown();
                    } else {
                        assertTrue(closed.await(5, TimeUnit.SECONDS));
                        MemorySegment s = rank.allocate(BIG * 8);
                        r = rank.iallreduce(s, s, BIG, DType.F64, Op.SUM);
                    }
                    Throwable first = null;
                    for (int k = 0; k < 4; k++) {
                        try {
                            r.await();
                            problems.add(new AssertionError("rank " + rank.id() + ": await " + k + " returned normally"));
                        } catch (RuntimeException e) {
                            if (first == null) {
                                first = e;
                            } else if (e != first) {
                                problems.add(new AssertionError("rank " + rank.id() + ": another exception " + e, e));
                            }
                        }
                    }
                    String name = (which == Buffer.SEND ? "send" : "recv") + " of rank 0";
                    if (rank.id() == 0) {
                        if (!(first instanceof IllegalArgumentException) || !first.getMessage().contains(name)) {
                            problems.add(new AssertionError("rank 0 got " + first, first));
                        }
                        helper.join(5000);
                        if (!(helperSaw.get() instanceof RuntimeException h) || h != first) {
                            problems.add(new AssertionError("the helper got " + helperSaw.get(), helperSaw.get()));
                        }
                    } else if (!(first instanceof TeamAbortedException) || !first.getMessage().contains("rank 0 failed")
                            || !first.getMessage().contains(name)) {
                        problems.add(new AssertionError("rank 1 got " + first, first));
                    }
                })));
            }
        });
        problems.forEach(Throwable::printStackTrace);
        assertTrue(problems.isEmpty(), problems.toString());
        assertInstanceOf(IllegalArgumentException.class, run.get(), String.valueOf(run.get()));
    }

    enum Buffer { SEND, RECV }

    enum Waiting { AWAIT, AWAIT_DURATION, PERSISTENT, CHAIN }

    static Stream<Arguments> interruptCases() {
        List<Arguments> all = new ArrayList<>();
        for (Waiting w : Waiting.values()) {
            all.add(Arguments.of(w, Duration.ofSeconds(2)));
            all.add(Arguments.of(w, Duration.ZERO));
        }
        return all.stream();
    }

    /**
     * Defect 6: a rank interrupted 300 ms into a request's wait leaves it with CollectiveInterruptedException
     * (interrupt status kept, team aborted, the peer's TeamAbortedException naming it), as the blocking call does,
     * also without a team timeout. Before: the wait went on (spinning) until the peer came or the timeout fired.
     */
    @ParameterizedTest(name = "{0} timeout {1}")
    @MethodSource("interruptCases")
    void anInterruptEndsTheWait(Waiting waiting, Duration timeout) {
        Queue<Throwable> problems = new ConcurrentLinkedQueue<>();
        AtomicReference<Throwable> run = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(timeout).build()) {
                run.set(assertThrows(Throwable.class, () -> team.run(rank -> {
                    MemorySegment s = rank.allocate(BIG * 8);
                    if (rank.id() == 1) {
                        // the peer never posts: it waits in a blocking barrier the abort must end
                        TeamAbortedException e = assertThrows(TeamAbortedException.class, rank::barrier);
                        if (!e.getMessage().contains("rank 0 was interrupted")) {
                            problems.add(new AssertionError("rank 1 got " + e, e));
                        }
                        return;
                    }
                    Request r = switch (waiting) {
                        case AWAIT, AWAIT_DURATION -> rank.iallreduce(s, s, BIG, DType.F64, Op.SUM);
                        case PERSISTENT -> {
                            PersistentRequest p = rank.allreduceInit(s, s, BIG, DType.F64, Op.SUM);
                            p.start();
                            yield p;
                        }
                        case CHAIN -> rank.chain().allreduce(s, s, BIG, DType.F64, Op.SUM).start();
                    };
                    Thread self = Thread.currentThread();
                    Thread.ofPlatform().start(() -> {
                        try {
                            Thread.sleep(300);
                        } catch (InterruptedException e) {
                            return;
                        }
                        self.interrupt();
                    });
                    long t0 = System.nanoTime();
                    RuntimeException e = assertThrows(RuntimeException.class, () -> {
                        if (waiting == Waiting.AWAIT_DURATION) {
                            r.await(Duration.ofSeconds(10));
                        } else {
                            r.await();
                        }
                    });
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    boolean flag = Thread.currentThread().isInterrupted();
                    try {
                        CollectiveInterruptedException ie = assertInstanceOf(CollectiveInterruptedException.class, e,
                                String.valueOf(e));
                        assertEquals(0, ie.rank());
                        assertTrue(flag, "the interrupt status stays set");
                        assertTrue(ms < 1500, "left the wait after " + ms + " ms");
                        assertSame(e, assertThrows(RuntimeException.class, r::await), "sticky");
                    } catch (Throwable t) {
                        problems.add(t);
                    }
                    throw e;
                })));
            }
        });
        assertTrue(problems.isEmpty(), problems.toString());
        assertInstanceOf(CollectiveInterruptedException.class, run.get(), String.valueOf(run.get()));
    }

    /**
     * Defect 7: toFuture().join() (and get()) on every rank of a team without a progress thread drives the request.
     * Before: it never returned and no timeout fired.
     */
    @ParameterizedTest
    @EnumSource(Form.class)
    void joiningTheFutureOnEveryRankDrivesTheRequest(Form form) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(5)).build()) {
                team.run(rank -> {
                    for (long n : new long[]{SMALL, BIG}) {
                        MemorySegment s = rank.allocate(n * 8);
                        s.fill((byte) 0);
                        s.set(ValueLayout.JAVA_DOUBLE, 0, rank.id() + 1);
                        Request r = make(rank, form, s, s, n);
                        if (n == SMALL) {
                            r.toFuture().join();
                        } else {
                            r.toFuture().get();
                        }
                        assertEquals(3.0, s.get(ValueLayout.JAVA_DOUBLE, 0));
                        assertTrue(r.isDone());
                    }
                });
            }
        });
    }

    /**
     * Defect 7: a thread that is not a rank, joining a request's future nobody progresses, is bounded by the team
     * timeout: the request fails (and the team aborts) with a CollectiveTimeoutException. Before: it waited for ever.
     */
    @ParameterizedTest
    @EnumSource(Form.class)
    void aForeignJoinIsBoundedByTheTeamTimeout(Form form) {
        AtomicReference<Throwable> joined = new AtomicReference<>();
        AtomicReference<Throwable> later = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofMillis(500)).build()) {
                assertThrows(Throwable.class, () -> team.run(rank -> {
                    if (rank.id() == 1) {
                        return;                                // never posts
                    }
                    MemorySegment s = rank.allocate(BIG * 8);
                    Request r = make(rank, form, s, s, BIG);
                    var f = r.toFuture();
                    Thread outsider = Thread.ofPlatform().start(() -> {
                        try {
                            f.join();
                            joined.set(new AssertionError("join returned normally"));
                        } catch (CompletionException e) {
                            joined.set(e.getCause());
                        }
                    });
                    outsider.join(5000);                       // this rank does not poll meanwhile
                    assertFalse(outsider.isAlive(), "the outsider's join is bounded by the team timeout");
                    try {
                        r.await();
                    } catch (RuntimeException e) {
                        later.set(e);
                        throw e;
                    }
                }));
            }
        });
        assertInstanceOf(CollectiveTimeoutException.class, joined.get(), String.valueOf(joined.get()));
        assertSame(joined.get(), later.get(), "the rank's await reports the future's failure");
    }

    /**
     * Defect 9: a request left un-awaited when the team closes reports the closed team (an IllegalStateException
     * saying so) for every way of asking. Before: IllegalStateException "Already closed" from the freed buffers.
     */
    @Test
    void awaitingAfterCloseSaysTheTeamIsClosed() {
        AtomicReference<Request> left = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(5)).build();
            team.run(rank -> {
                MemorySegment s = rank.allocate(BIG * 8);
                Request r = rank.iallreduce(s, s, BIG, DType.F64, Op.SUM);
                if (rank.id() == 0) {
                    left.set(r);
                }
            });
            team.close();
            Request r = left.get();
            Throwable first = failureBy(r, Way.AWAIT);
            assertInstanceOf(IllegalStateException.class, first, String.valueOf(first));
            assertTrue(first.getMessage().contains("team is closed"), first.getMessage());
            for (Way w : Way.values()) {
                assertSame(first, failureBy(r, w), w.toString());
            }
        });
    }

    /**
     * Defect 9: a chain's local step that throws aborts the team charged to its rank; the peer's chain names both
     * ranks. Before: the peer was told "rank -1 cannot continue" (and only once the failing body had ended).
     */
    @Test
    void aChainStepFailureNamesTheRealRanks() {
        AtomicReference<Throwable> peer = new AtomicReference<>();
        AtomicReference<Throwable> peerFuture = new AtomicReference<>();
        AtomicReference<Throwable> own = new AtomicReference<>();
        RuntimeException boom = new RuntimeException("step failed");
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(5)).build()) {
                Throwable t = assertThrows(Throwable.class, () -> team.run(rank -> {
                    MemorySegment s = rank.allocate(BIG * 8);
                    Chain c = rank.chain().allreduce(s, s, BIG, DType.F64, Op.SUM);
                    if (rank.id() == 0) {
                        c.then(() -> {
                            throw boom;
                        });
                    }
                    Request r = c.allreduce(s, s, BIG, DType.F64, Op.SUM).start();
                    var future = r.toFuture();
                    try {
                        r.await();
                    } catch (RuntimeException e) {
                        (rank.id() == 0 ? own : peer).set(e);
                        if (rank.id() == 1) {
                            peerFuture.set(assertThrows(CompletionException.class, future::join).getCause());
                        }
                        assertSame(e, assertThrows(RuntimeException.class, r::await));
                        if (rank.id() == 1) {
                            Thread.sleep(200);                  // rank 0's body has long ended: the abort names it
                        }
                        throw e;
                    }
                }));
                assertSame(boom, t);
            }
        });
        assertSame(boom, own.get());
        Throwable p = peer.get();
        assertInstanceOf(TeamAbortedException.class, p, String.valueOf(p));
        assertFalse(p.getMessage().contains("rank -1"), p.getMessage());
        assertTrue(p.getMessage().contains("rank 0 failed") && p.getMessage().contains("rank 1 cannot continue"),
                p.getMessage());
        assertSame(p, peerFuture.get(), "the peer's future fails with the await's exception");
    }
}
