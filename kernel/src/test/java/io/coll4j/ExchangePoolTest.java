package io.coll4j;

import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.nb.Exchange;
import io.coll4j.kernel.nb.NonBlockingEngine;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-shot requests take their exchange from the team's pool (kernel/nb/ExchangePool): a loop awaited at once
 * reuses a few exchanges instead of building one per call, and reuse never mixes calls: requests issued back to
 * back before either is awaited, other buffers at each call, an un-awaited request, staged (8 B) and sliced sizes,
 * three shapes in turn on 3 and 5 ranks, and more outstanding calls than the issue window holds; and a rank that
 * issues before rank 0 (which has the first claim on a call's slot) claims the call itself.
 */
class ExchangePoolTest {
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE;

    @Test
    void awaitedAtOnceLoopReusesAFewExchanges() {
        for (long n : new long[]{1, 4099}) {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Set<Exchange> seen = Collections.newSetFromMap(new IdentityHashMap<>());
                    Arena arena = Arena.ofAuto();
                    MemorySegment[] sends = {arena.allocate(n * 8, 64), arena.allocate(n * 8, 64)};
                    MemorySegment recv = arena.allocate(n * 8, 64);
                    for (int call = 0; call < 100; call++) {
                        MemorySegment send = sends[call & 1];            // other buffers at every other call
                        fill(send, n, rank.id() + call);
                        Request r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                        seen.add(((CollectiveRequest) r).exchange());
                        r.await();
                        check(problems, "call " + call, recv, n, 2, call, rank.id());
                    }
                    if (seen.size() > 16) {
                        problems.add("n=" + n + ": 100 calls awaited at once used " + seen.size() + " exchanges");
                    }
                    // items (not staged parts, which each rank finishes for itself): rank 0 publishes call n + 1
                    // ahead while call n runs, on the exchange of call n − 1, whose items it saw done: two serve the loop
                    if (n > 1 && seen.size() != 2) {
                        problems.add("n=" + n + ": 100 calls awaited at once used " + seen.size() + " exchanges, not two");
                    }
                    // the loop's shape changes (rank 0 published the next call ahead for the old one): the ranks
                    // claim the slot over it and the new calls complete with their results
                    MemorySegment wideSend = arena.allocate((n + 3) * 8, 64), wide = arena.allocate((n + 3) * 8, 64);
                    for (int call = 100; call < 110; call++) {
                        fill(wideSend, n + 3, rank.id() + call);
                        rank.iallreduce(wideSend, wide, n + 3, DType.F64, Op.SUM).await();
                        check(problems, "changed shape, call " + call, wide, n + 3, 2, call, rank.id());
                        fill(sends[1], n, rank.id() + call);
                        rank.iallreduce(sends[1], recv, n, DType.F64, Op.SUM).await();
                        check(problems, "old shape again, call " + call, recv, n, 2, call, rank.id());
                    }
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    @Test
    void backToBackAndUnawaitedRequestsKeepTheirOwnRounds() {
        for (long n : new long[]{1, 4099}) {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Arena arena = Arena.ofAuto();
                    for (int call = 0; call < 100; call += 3) {
                        MemorySegment s1 = arena.allocate(n * 8, 64), r1 = arena.allocate(n * 8, 64);
                        MemorySegment s2 = arena.allocate(n * 8, 64), r2 = arena.allocate(n * 8, 64);
                        MemorySegment s3 = arena.allocate(n * 8, 64), r3 = arena.allocate(n * 8, 64);
                        fill(s1, n, rank.id() + call);
                        fill(s2, n, rank.id() + call + 1);
                        fill(s3, n, rank.id() + call + 2);
                        Request a = rank.iallreduce(s1, r1, n, DType.F64, Op.SUM);
                        Request b = rank.iallreduce(s2, r2, n, DType.F64, Op.SUM);
                        // issued and never awaited on one rank (polled once on the other): its exchange must not serve
                        // a later call while the team's other rank may still be in it
                        Request c = rank.iallreduce(s3, r3, n, DType.F64, Op.SUM);
                        if (rank.id() == 1) {
                            c.isDone();
                        }
                        b.await();                                       // completed out of issue order
                        a.await();
                        check(problems, "call " + call, r1, n, 2, call, rank.id());
                        check(problems, "call " + (call + 1), r2, n, 2, call + 1, rank.id());
                    }
                    rank.barrier();
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    @Test
    void interleavedShapesOnThreeAndFiveRanksReuseTheirOwnExchanges() {
        for (int p : new int[]{3, 5}) {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Set<Exchange> seen = Collections.newSetFromMap(new IdentityHashMap<>());
                    Arena arena = Arena.ofAuto();
                    long big = 4099;
                    MemorySegment s1 = arena.allocate(8, 64), r1 = arena.allocate(8, 64);
                    MemorySegment s2 = arena.allocate(big * 8, 64), r2 = arena.allocate(big * 8, 64);
                    MemorySegment b = arena.allocate(big * 8, 64);
                    for (int call = 0; call < 60; call++) {
                        // three shapes in turn: a period the pool's slots do not divide
                        fill(s1, 1, rank.id() + call);
                        Request a = rank.iallreduce(s1, r1, 1, DType.F64, Op.SUM);
                        seen.add(((CollectiveRequest) a).exchange());
                        a.await();
                        check(problems, "p=" + p + " small call " + call, r1, 1, p, call, rank.id());
                        fill(s2, big, rank.id() + call);
                        Request c = rank.iallreduce(s2, r2, big, DType.F64, Op.SUM);
                        seen.add(((CollectiveRequest) c).exchange());
                        c.await();
                        check(problems, "p=" + p + " large call " + call, r2, big, p, call, rank.id());
                        if (rank.id() == call % p) {
                            fill(b, big, 1000 * call);
                        }
                        Request d = rank.ibcast(b, big, DType.F64, call % p);
                        seen.add(((CollectiveRequest) d).exchange());
                        d.await();
                        if (b.getAtIndex(D, big - 1) != 1000 * call + big - 1) {
                            problems.add("p=" + p + " bcast call " + call + " on rank " + rank.id() + ": " + b.getAtIndex(D, big - 1));
                        }
                    }
                    if (seen.size() > 24) {
                        problems.add("p=" + p + ": 180 calls of three shapes awaited at once used " + seen.size() + " exchanges");
                    }
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    /**
     * A rank that issues more calls than the issue window holds before its peer issues any: the window's slots come
     * round again only once the peer has found their calls (the issuer waits for it), every pooled exchange is still
     * in use so each call gets a new one, and every request completes with its own result.
     */
    @Test
    void moreOutstandingCallsThanTheWindowHolds() {
        int calls = NonBlockingEngine.WINDOW + 100;
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
            Queue<String> problems = new ConcurrentLinkedQueue<>();
            team.run(rank -> {
                Arena arena = Arena.ofAuto();
                MemorySegment send = arena.allocate(8L * calls, 64), recv = arena.allocate(8L * calls, 64);
                if (rank.id() == 1) {
                    try {
                        Thread.sleep(50);                        // rank 0 fills the window and waits for this rank
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                Request[] r = new Request[calls];
                for (int i = 0; i < calls; i++) {
                    send.setAtIndex(D, i, rank.id() + i);
                    r[i] = rank.iallreduce(send.asSlice(8L * i, 8), recv.asSlice(8L * i, 8), 1, DType.F64, Op.SUM);
                }
                for (int i = calls - 1; i >= 0; i--) {
                    r[i].await();
                }
                for (int i = 0; i < calls; i++) {
                    if (recv.getAtIndex(D, i) != 2.0 * i + 1) {
                        problems.add("call " + i + " on rank " + rank.id() + ": " + recv.getAtIndex(D, i));
                        return;
                    }
                }
            });
            assertTrue(problems.isEmpty(), problems.toString());
        }
    }

    /**
     * Rank 0 has the first claim on a free issue slot, but a rank that issues while rank 0 does not must not wait for
     * it (an issue is local, as in MPI): rank 1 issues each call before rank 0, which waits until rank 1's issue has
     * returned, and every call completes with its result, staged and sliced.
     */
    @Test
    void aRankIssuingBeforeRankZeroClaimsTheCallItself() {
        for (long n : new long[]{1, 4099}) {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                java.util.concurrent.atomic.AtomicInteger issuedByOne = new java.util.concurrent.atomic.AtomicInteger();
                team.run(rank -> {
                    Arena arena = Arena.ofAuto();
                    MemorySegment send = arena.allocate(n * 8, 64), recv = arena.allocate(n * 8, 64);
                    for (int call = 0; call < 20; call++) {
                        fill(send, n, rank.id() + call);
                        if (rank.id() == 0) {
                            long deadline = System.nanoTime() + 10_000_000_000L;
                            while (issuedByOne.get() <= call && System.nanoTime() < deadline) {
                                Thread.onSpinWait();
                            }
                            if (issuedByOne.get() <= call) {
                                problems.add("n=" + n + " call " + call + ": rank 1's issue did not return before rank 0 issued");
                            }
                        }
                        Request r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                        if (rank.id() == 1) {
                            issuedByOne.incrementAndGet();
                        }
                        r.await();
                        check(problems, "n=" + n + " call " + call, recv, n, 2, call, rank.id());
                    }
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    private static void fill(MemorySegment s, long n, int v) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(D, i, v + i);
        }
    }

    /** Sum over p ranks of (rank + call + i). */
    private static void check(Queue<String> problems, String what, MemorySegment recv, long n, int p, int call, int rank) {
        for (long i = 0; i < n; i++) {
            double want = p * (call + i) + p * (p - 1) / 2.0;
            if (recv.getAtIndex(D, i) != want) {
                problems.add(what + " element " + i + " on rank " + rank + ": " + recv.getAtIndex(D, i) + ", expected " + want);
                return;
            }
        }
    }
}
