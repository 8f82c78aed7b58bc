package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Non-blocking and persistent collectives against the scalar reference: every collective, staged
 * (small) and sliced sizes, odd counts, in place, heap and native buffers, p = 1, 2, 3, 5 and 8
 * (oversubscribed). Every fold is in ascending rank order, so float results are compared bitwise.
 */
class NonBlockingCollectivesTest {
    static final Duration BOUND = Duration.ofSeconds(60);
    static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    /** Input element i of rank r: arbitrary doubles, so a wrong fold order shows in the bits. */
    static double in(int r, long i, long salt) {
        long b = Values.mix(salt * 31 + r * 1_000_003L + i);
        return ((b >>> 11) * 0x1.0p-53 - 0.5) * (1 + (b & 7));
    }

    static double sum(int p, long i, long salt) {
        double s = in(0, i, salt);
        for (int r = 1; r < p; r++) {
            s += in(r, i, salt);
        }
        return s;
    }

    static MemorySegment buffer(Rank rank, long bytes, boolean heap) {
        return heap ? MemorySegment.ofArray(new double[(int) (bytes / 8)]) : rank.allocate(bytes);
    }

    static void fill(MemorySegment s, int r, long off, long n, long salt) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(D, off + i, in(r, i, salt));
        }
    }

    static void run(int p, long maxSlice, RankBody body) {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(p).maxSliceBytes(maxSlice).timeout(Duration.ofSeconds(30)).build()) {
                team.run(body);
            }
        });
    }

    static void check(Queue<String> problems) {
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, e.g. " + problems.peek());
    }

    /** Every collective in one non-blocking batch (posted together, awaited in reverse order), then checked. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void everyCollectiveMatchesTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        long[] counts = {0, 1, 5, 32, 1001};
        run(p, 256, rank -> {
            int me = rank.id();
            for (long n : counts) {
                for (boolean heap : new boolean[]{false, true}) {
                    long salt = n * 7 + (heap ? 1 : 0);
                    int root = (int) (n % p);
                    MemorySegment arSend = buffer(rank, 8 * n + 8, heap), arRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment inPlace = buffer(rank, 8 * n + 8, heap);
                    MemorySegment bc = buffer(rank, 8 * n + 8, heap);
                    MemorySegment rdSend = buffer(rank, 8 * n + 8, heap), rdRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment rsSend = buffer(rank, 8 * n * p + 8, heap), rsRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment agSend = buffer(rank, 8 * n + 8, heap), agRecv = buffer(rank, 8 * n * p + 8, heap);
                    MemorySegment agInPlace = buffer(rank, 8 * n * p + 8, heap);
                    fill(arSend, me, 0, n, salt);
                    fill(inPlace, me, 0, n, salt);
                    if (me == root) {
                        fill(bc, root, 0, n, salt);
                    }
                    fill(rdSend, me, 0, n, salt);
                    for (int q = 0; q < p; q++) {
                        for (long i = 0; i < n; i++) {
                            rsSend.setAtIndex(D, q * n + i, in(me, q * n + i, salt));
                        }
                    }
                    fill(agSend, me, 0, n, salt);
                    fill(agInPlace, me, me * n, n, salt);
                    Request[] rq = {
                            rank.iallreduce(arSend, arRecv, n, DType.F64, Op.SUM),
                            rank.iallreduce(inPlace, inPlace, n, DType.F64, Op.SUM),
                            rank.ibcast(bc, n, DType.F64, root),
                            rank.ireduce(rdSend, rdRecv, n, DType.F64, Op.SUM, root),
                            rank.ireduceScatter(rsSend, rsRecv, n, DType.F64, Op.SUM),
                            rank.iallgather(agSend, agRecv, n, DType.F64),
                            rank.iallgather(agInPlace.asSlice(me * n * 8, n * 8), agInPlace, n, DType.F64),
                            rank.ibarrier()};
                    for (int k = rq.length - 1; k >= 0; k--) {
                        rq[k].await();
                    }
                    for (long i = 0; i < n; i++) {
                        double ref = sum(p, i, salt);
                        expect(problems, "allreduce", p, n, heap, i, ref, arRecv.getAtIndex(D, i));
                        expect(problems, "allreduce in place", p, n, heap, i, ref, inPlace.getAtIndex(D, i));
                        expect(problems, "bcast", p, n, heap, i, in(root, i, salt), bc.getAtIndex(D, i));
                        if (me == root) {
                            expect(problems, "reduce", p, n, heap, i, ref, rdRecv.getAtIndex(D, i));
                        }
                        double rs = in(0, me * n + i, salt);
                        for (int q = 1; q < p; q++) {
                            rs += in(q, me * n + i, salt);
                        }
                        expect(problems, "reduce-scatter", p, n, heap, i, rs, rsRecv.getAtIndex(D, i));
                        for (int q = 0; q < p; q++) {
                            expect(problems, "allgather", p, n, heap, q * n + i, in(q, i, salt), agRecv.getAtIndex(D, q * n + i));
                            expect(problems, "allgather in place", p, n, heap, q * n + i, in(q, i, salt),
                                    agInPlace.getAtIndex(D, q * n + i));
                        }
                    }
                }
            }
        });
        check(problems);
    }

    /**
     * The push allreduce as a request folds a rank's block in 8 KiB tiles and copies each to the other receive
     * buffers while it is in L1: blocks of several tiles and a partial last one (non-blocking and persistent, in
     * place and out of place, heap and native), bitwise the reference.
     */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void pushRequestsOverSeveralTilesMatchTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        long[] counts = {1024L * p + 3, 3000L * p + 7};
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(p).algorithm(Collective.ALLREDUCE, "push")
                    .timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    int me = rank.id();
                    for (long n : counts) {
                        for (boolean heap : new boolean[]{false, true}) {
                            long salt = n * 11 + (heap ? 1 : 0);
                            MemorySegment send = buffer(rank, 8 * n, heap), recv = buffer(rank, 8 * n, heap);
                            MemorySegment inPlace = buffer(rank, 8 * n, heap);
                            fill(send, me, 0, n, salt);
                            fill(inPlace, me, 0, n, salt);
                            Request a = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                            Request b = rank.iallreduce(inPlace, inPlace, n, DType.F64, Op.SUM);
                            b.await();
                            a.await();
                            for (long i = 0; i < n; i++) {
                                double ref = sum(p, i, salt);
                                expect(problems, "push iallreduce", p, n, heap, i, ref, recv.getAtIndex(D, i));
                                expect(problems, "push iallreduce in place", p, n, heap, i, ref, inPlace.getAtIndex(D, i));
                            }
                            fill(inPlace, me, 0, n, salt);
                            PersistentRequest pr = rank.allreduceInit(inPlace, inPlace, n, DType.F64, Op.SUM);
                            pr.start();
                            pr.await();
                            for (long i = 0; i < n; i++) {
                                expect(problems, "push persistent in place", p, n, heap, i, sum(p, i, salt), inPlace.getAtIndex(D, i));
                            }
                            pr.close();
                        }
                    }
                });
            }
        });
        check(problems);
    }

    private static void expect(Queue<String> problems, String what, int p, long n, boolean heap, long i, double ref, double got) {
        if (Double.doubleToRawLongBits(ref) != Double.doubleToRawLongBits(got) && problems.size() < 20) {
            problems.add(what + " p=" + p + " n=" + n + (heap ? " heap" : " native") + " [" + i + "]: " + got + " != " + ref);
        }
    }

    /** Must-show: 16 outstanding iallreduce of 64 KiB per rank, awaited in reverse order, at p = 2, 3, 4. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void sixteenOutstandingAwaitedInReverse(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        long n = 64 * 1024 / 8;
        run(p, 16 * 1024, rank -> {
            MemorySegment[] send = new MemorySegment[16], recv = new MemorySegment[16];
            Request[] rq = new Request[16];
            for (int k = 0; k < 16; k++) {
                send[k] = rank.allocate(n * 8);
                recv[k] = rank.allocate(n * 8);
                fill(send[k], rank.id(), 0, n, k);
                rq[k] = rank.iallreduce(send[k], recv[k], n, DType.F64, Op.SUM);
            }
            for (int k = 15; k >= 0; k--) {
                rq[k].await();
                for (long i = 0; i < n; i += 7) {
                    expect(problems, "iallreduce #" + k, p, n, false, i, sum(p, i, k), recv[k].getAtIndex(D, i));
                }
            }
        });
        check(problems);
    }

    /**
     * A rank that posts and then stays away finds its result complete when it comes back: the rank that
     * waits does every slice (work stealing), and the returning rank's first isDone is true.
     */
    @Test
    void aWaitingRankDoesTheAbsentRanksWork() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch rank0Returned = new CountDownLatch(1);
        long n = 1 << 16;
        run(2, 4096, rank -> {
            MemorySegment send = rank.allocate(n * 8), recv = rank.allocate(n * 8);
            fill(send, rank.id(), 0, n, 3);
            Request r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
            if (rank.id() == 0) {
                r.await();
                rank0Returned.countDown();
            } else {
                if (!rank0Returned.await(30, TimeUnit.SECONDS)) {
                    problems.add("rank 0 did not complete the allreduce alone");
                }
                // nothing has been done on this rank since the post: the result must already be there
                for (long i = 0; i < n; i += 101) {
                    expect(problems, "stolen", 2, n, false, i, sum(2, i, 3), recv.getAtIndex(D, i));
                }
                if (!r.isDone()) {
                    problems.add("isDone false after rank 0 completed every slice");
                }
            }
        });
        check(problems);
    }

    /** Persistent requests of every collective, staged and sliced, restarted with new data each round. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void persistentRoundsMatchTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        run(p, 512, rank -> {
            int me = rank.id();
            for (long n : new long[]{1, 3, 777}) {
                MemorySegment send = rank.allocate(8 * n), recv = rank.allocate(8 * n);
                MemorySegment rsSend = rank.allocate(8 * n * p), rsRecv = rank.allocate(8 * n);
                MemorySegment agRecv = rank.allocate(8 * n * p), bc = rank.allocate(8 * n);
                PersistentRequest ar = rank.allreduceInit(send, recv, n, DType.F64, Op.SUM);
                PersistentRequest rs = rank.reduceScatterInit(rsSend, rsRecv, n, DType.F64, Op.SUM);
                PersistentRequest ag = rank.allgatherInit(send, agRecv, n, DType.F64);
                PersistentRequest b = rank.bcastInit(bc, n, DType.F64, p - 1);
                PersistentRequest bar = rank.barrierInit();
                PersistentRequest planned = rank.init(rank.plan(Collective.REDUCE, n, DType.F64, Op.SUM, 0), send, recv);
                for (int round = 0; round < 5; round++) {
                    long salt = round * 1000 + n;
                    fill(send, me, 0, n, salt);
                    for (long i = 0; i < n * p; i++) {
                        rsSend.setAtIndex(D, i, in(me, i, salt));
                    }
                    if (me == p - 1) {
                        fill(bc, me, 0, n, salt);
                    }
                    ar.start();
                    rs.start();
                    ag.start();
                    b.start();
                    bar.start();
                    if (round == 0) {
                        IllegalStateException e = assertThrows(IllegalStateException.class, ar::start);
                        assertTrue(e.getMessage().contains("still active"));
                    }
                    bar.await();
                    b.await();
                    ag.await();
                    rs.await();
                    ar.await();
                    assertFalse(ar.isActive());
                    for (long i = 0; i < n; i++) {
                        expect(problems, "persistent allreduce r" + round, p, n, false, i, sum(p, i, salt), recv.getAtIndex(D, i));
                        expect(problems, "persistent bcast r" + round, p, n, false, i, in(p - 1, i, salt), bc.getAtIndex(D, i));
                        double x = in(0, me * n + i, salt);
                        for (int q = 1; q < p; q++) {
                            x += in(q, me * n + i, salt);
                        }
                        expect(problems, "persistent reduce-scatter r" + round, p, n, false, i, x, rsRecv.getAtIndex(D, i));
                        for (int q = 0; q < p; q++) {
                            expect(problems, "persistent allgather r" + round, p, n, false, q * n + i, in(q, i, salt),
                                    agRecv.getAtIndex(D, q * n + i));
                        }
                    }
                    // the reduce plan, bound to the same buffers, after the allreduce read them
                    planned.start();
                    planned.await();
                    if (me == 0) {
                        for (long i = 0; i < n; i++) {
                            expect(problems, "persistent planned reduce r" + round, p, n, false, i, sum(p, i, salt),
                                    recv.getAtIndex(D, i));
                        }
                    }
                }
                for (PersistentRequest r : new PersistentRequest[]{ar, rs, ag, b, bar, planned}) {
                    r.close();
                }
                assertThrows(IllegalStateException.class, ar::start);
            }
        });
        check(problems);
    }

    /** reduce-scatter → a local step on the rank's own block → allgather, as one request; and a pipelined allreduce. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void chainsMatchTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        long n = 1003;
        run(p, 1024, rank -> {
            int me = rank.id();
            MemorySegment grad = rank.allocate(8 * n * p), block = rank.allocate(8 * n), out = rank.allocate(8 * n * p);
            for (long i = 0; i < n * p; i++) {
                grad.setAtIndex(D, i, in(me, i, 5));
            }
            Request r = rank.chain()
                    .reduceScatter(grad, block, n, DType.F64, Op.SUM)
                    .then(() -> {
                        for (long i = 0; i < n; i++) {
                            block.setAtIndex(D, i, block.getAtIndex(D, i) * 0.5);
                        }
                    })
                    .allgather(block, out, n, DType.F64)
                    .start();
            r.await();
            for (long i = 0; i < n * p; i++) {
                double x = in(0, i, 5);
                for (int q = 1; q < p; q++) {
                    x += in(q, i, 5);
                }
                expect(problems, "chain", p, n, false, i, x * 0.5, out.getAtIndex(D, i));
            }
            long m = 50_001;
            MemorySegment send = rank.allocate(8 * m), recv = rank.allocate(8 * m);
            fill(send, me, 0, m, 9);
            long[] seen = new long[1];
            Request pipe = rank.chain().allreducePipelined(send, recv, m, DType.F64, Op.SUM, 7, (first, count) -> {
                if (first != seen[0]) {
                    problems.add("pipeline chunk out of order: " + first + " after " + seen[0]);
                }
                seen[0] = first + count;
                for (long i = first; i < first + count; i++) {
                    recv.setAtIndex(D, i, recv.getAtIndex(D, i) + 1);
                }
            }).start();
            while (!pipe.isDone()) {
                Thread.onSpinWait();
            }
            if (seen[0] != m) {
                problems.add("pipeline covered " + seen[0] + " of " + m);
            }
            for (long i = 0; i < m; i += 3) {
                expect(problems, "pipeline", p, m, false, i, sum(p, i, 9) + 1, recv.getAtIndex(D, i));
            }
        });
        check(problems);
    }

    /** With a progress thread, ranks that only post and then wait on futures (never polling) complete. */
    @Test
    void progressThreadCompletesFutures() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        long n = 20_000;
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(3).progressThread(true).maxSliceBytes(4096).build()) {
                assertTrue(team.hasProgressThread());
                team.run(rank -> {
                    MemorySegment send = rank.allocate(8 * n), recv = rank.allocate(8 * n);
                    MemorySegment small = rank.allocate(8);
                    fill(send, rank.id(), 0, n, 11);
                    small.setAtIndex(D, 0, rank.id() + 1);
                    Request big = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                    Request tiny = rank.iallreduce(small, small, 1, DType.F64, Op.SUM);
                    big.toFuture().get(20, TimeUnit.SECONDS);
                    tiny.toFuture().get(20, TimeUnit.SECONDS);
                    for (long i = 0; i < n; i += 13) {
                        expect(problems, "progress thread", 3, n, false, i, sum(3, i, 11), recv.getAtIndex(D, i));
                    }
                    expect(problems, "progress thread tiny", 3, 1, false, 0, 6.0, small.getAtIndex(D, 0));
                });
            }
        });
        check(problems);
    }

    /** Arguments are checked as by the blocking methods, before anything is issued. */
    @Test
    void badArgumentsAreRejectedBeforeIssuing() {
        run(2, 4096, rank -> {
            MemorySegment s = rank.allocate(64);
            assertThrows(IllegalArgumentException.class, () -> rank.iallreduce(s, s, -1, DType.F64, Op.SUM));
            assertThrows(IllegalArgumentException.class, () -> rank.iallreduce(s, s, 1, DType.F32, Op.BAND));
            assertThrows(IllegalArgumentException.class, () -> rank.ibcast(s, 1, DType.F64, 2));
            assertThrows(IllegalArgumentException.class, () -> rank.allreduceInit(null, s, 1, DType.F64, Op.SUM));
            assertThrows(IllegalArgumentException.class, () -> rank.iallgather(s, s.asSlice(0, 8), 1, DType.F64));
            try (Arena confined = Arena.ofConfined()) {
                MemorySegment c = confined.allocate(8);
                assertThrows(IllegalArgumentException.class, () -> rank.iallreduce(c, s, 1, DType.F64, Op.SUM));
            }
            // nothing was issued: the next call matches on both ranks
            s.setAtIndex(D, 0, 1.0);
            rank.iallreduce(s, s, 1, DType.F64, Op.SUM).await();
            assertEquals(2.0, s.getAtIndex(D, 0));
        });
    }
}
