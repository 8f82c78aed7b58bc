package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static io.coll4j.NonBlockingCollectivesTest.D;
import static io.coll4j.NonBlockingCollectivesTest.buffer;
import static io.coll4j.NonBlockingCollectivesTest.check;
import static io.coll4j.NonBlockingCollectivesTest.in;
import static io.coll4j.NonBlockingCollectivesTest.run;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The non-blocking and persistent v-variants against the scalar reference: uneven counts with zero-count
 * ranks, displacements with gaps (and a different layout on every other rank for allgatherv), in place,
 * heap and native, p = 1, 2, 3, 5, 8, all posted together and awaited in reverse order; every dtype of
 * reduce-scatter-v with SUM and MIN, bitwise (the fold is in rank order); mismatched calls.
 */
class NonBlockingVectorTest {
    /** Elements of rank q's block at base count n: uneven, odd, and zero on ranks 1, 4, 7. */
    static long count(int q, long n) {
        return q % 3 == 1 ? 0 : n + 3L * q;
    }

    static long[] counts(int p, long n) {
        long[] c = new long[p];
        for (int q = 0; q < p; q++) {
            c[q] = count(q, n);
        }
        return c;
    }

    /** Packed displacements; with {@code gap}, a gap of two elements before every block. */
    static long[] displs(long[] counts, boolean gap) {
        long[] d = new long[counts.length];
        long at = gap ? 2 : 0;
        for (int q = 0; q < counts.length; q++) {
            d[q] = at;
            at += counts[q] + (gap ? 2 : 0);
        }
        return d;
    }

    static long extent(long[] counts, long[] displs) {
        int last = counts.length - 1;
        return displs[last] + counts[last];
    }

    /** Elements alltoallv's rank r sends to rank j: not what j sends to r (zero for some pairs). */
    static long a2aCount(int r, int j, long n) {
        return count((j + 2 * r) % Math.max(1, 3 * r + j + 1) % 8, n);
    }

    /** The element alltoallv's rank r sends to rank j at index i. */
    private static double a2a(int r, int j, long i, long salt) {
        return in(r, j * 1_000_003L + i, salt);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void everyVariantMatchesTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        run(p, 256, rank -> {
            int me = rank.id();
            for (long n : new long[]{0, 1, 7, 1001}) {
                for (boolean heap : new boolean[]{false, true}) {
                    long salt = n * 17 + (heap ? 1 : 0);
                    int root = (int) (n % p);
                    String tag = " p=" + p + " n=" + n + (heap ? " heap" : " native") + " rank " + me;
                    long[] c = counts(p, n);
                    long[] gapped = displs(c, true);
                    long[] packed = displs(c, false);
                    long ext = extent(c, gapped) + 1;
                    long mine = c[me];
                    // gatherv, and in place at the root
                    MemorySegment gSend = buffer(rank, 8 * mine + 8, heap), gRecv = buffer(rank, 8 * ext, heap);
                    MemorySegment gIn = buffer(rank, 8 * ext, heap);
                    fillOwn(gSend, 0, me, mine, salt);
                    fillOwn(gIn, gapped[me], me, mine, salt);
                    // scatterv: the root's send holds element k at k (gaps included)
                    MemorySegment sSend = buffer(rank, 8 * ext, heap), sRecv = buffer(rank, 8 * mine + 8, heap);
                    MemorySegment sIn = buffer(rank, 8 * ext, heap);
                    fillOwn(sSend, 0, root, ext, salt);
                    fillOwn(sIn, 0, root, ext, salt);
                    // allgatherv: even ranks gapped, odd ranks packed; a second one in place
                    long[] agDispls = me % 2 == 0 ? gapped : packed;
                    MemorySegment agSend = buffer(rank, 8 * mine + 8, heap), agRecv = buffer(rank, 8 * ext, heap);
                    MemorySegment agIn = buffer(rank, 8 * ext, heap);
                    fillOwn(agSend, 0, me, mine, salt);
                    fillOwn(agIn, agDispls[me], me, mine, salt);
                    // reduce-scatter-v: block q of every send at packed[q]
                    long all = extent(c, packed);
                    MemorySegment rsSend = buffer(rank, 8 * all + 8, heap), rsRecv = buffer(rank, 8 * mine + 8, heap);
                    fillOwn(rsSend, 0, me, all, salt);
                    // alltoallv: rank r sends a2aCount(r, j) to j, not what j sends back; packed send, gapped
                    // receive. A second one with counts the same both ways ((r + j) mod p: in place needs the
                    // send layout to be the receive layout), in place on even ranks
                    long[] sc = new long[p], rc = new long[p], mc = new long[p];
                    for (int j = 0; j < p; j++) {
                        sc[j] = a2aCount(me, j, n);
                        rc[j] = a2aCount(j, me, n);
                        mc[j] = count((j + me) % p, n);
                    }
                    long[] sd = displs(sc, false);
                    long[] rd = displs(rc, true);
                    long[] md = displs(mc, true);
                    MemorySegment aSend = buffer(rank, 8 * extent(sc, sd) + 8, heap), aRecv = buffer(rank, 8 * extent(rc, rd) + 8, heap);
                    MemorySegment aMix = buffer(rank, 8 * extent(mc, md) + 8, heap), aMixRecv = buffer(rank, 8 * extent(mc, md) + 8, heap);
                    boolean mixInPlace = me % 2 == 0;
                    for (int j = 0; j < p; j++) {
                        for (long i = 0; i < sc[j]; i++) {
                            aSend.setAtIndex(D, sd[j] + i, a2a(me, j, i, salt));
                        }
                        for (long i = 0; i < mc[j]; i++) {
                            aMix.setAtIndex(D, md[j] + i, a2a(me, j, i, salt));
                        }
                    }
                    Request[] rq = {
                            rank.igatherv(gSend, mine, gRecv, c, gapped, DType.F64, root),
                            rank.igatherv(gIn.asSlice(gapped[me] * 8, mine * 8), mine, me == root ? gIn : null, me == root ? c : null, me == root ? gapped : null, DType.F64, root),
                            rank.iscatterv(me == root ? sSend : null, c, gapped, sRecv, mine, DType.F64, root),
                            rank.iscatterv(me == root ? sIn : null, c, gapped,
                                    me == root ? sIn.asSlice(gapped[me] * 8, mine * 8) : sIn.asSlice(0, mine * 8), mine, DType.F64, root),
                            rank.iallgatherv(agSend, mine, agRecv, c, agDispls, DType.F64),
                            rank.iallgatherv(agIn.asSlice(agDispls[me] * 8, mine * 8), mine, agIn, c, agDispls, DType.F64),
                            rank.ireduceScatterV(rsSend, rsRecv, c, DType.F64, Op.SUM),
                            rank.ialltoallv(aSend, sc, sd, aRecv, rc, rd, DType.F64),
                            mixInPlace ? rank.ialltoallv(aMix, mc, md, aMix, mc, md, DType.F64)
                                    : rank.ialltoallv(aMix, mc, md, aMixRecv, mc, md, DType.F64)};
                    for (int k = rq.length - 1; k >= 0; k--) {
                        rq[k].await();
                    }
                    for (int q = 0; q < p; q++) {
                        for (long i = 0; i < c[q]; i++) {
                            double ownQ = in(q, i, salt);
                            if (me == root) {
                                same(problems, "gatherv" + tag, i, ownQ, gRecv.getAtIndex(D, gapped[q] + i));
                                same(problems, "gatherv in place" + tag, i, ownQ, gIn.getAtIndex(D, gapped[q] + i));
                            }
                            same(problems, "allgatherv" + tag, i, ownQ, agRecv.getAtIndex(D, agDispls[q] + i));
                            same(problems, "allgatherv in place" + tag, i, ownQ, agIn.getAtIndex(D, agDispls[q] + i));
                        }
                        for (long i = 0; i < rc[q]; i++) {
                            same(problems, "alltoallv" + tag, i, a2a(q, me, i, salt), aRecv.getAtIndex(D, rd[q] + i));
                        }
                        for (long i = 0; i < mc[q]; i++) {
                            same(problems, "alltoallv, some ranks in place" + tag, i, a2a(q, me, i, salt),
                                    (mixInPlace ? aMix : aMixRecv).getAtIndex(D, md[q] + i));
                        }
                    }
                    if (me == root && p > 1) {
                        int other = (root + 1) % p;
                        same(problems, "gatherv leaves the gaps" + tag, 0, 0.0, gRecv.getAtIndex(D, gapped[other] - 1));
                    }
                    for (long i = 0; i < mine; i++) {
                        double fromRoot = in(root, gapped[me] + i, salt);
                        same(problems, "scatterv" + tag, i, fromRoot, sRecv.getAtIndex(D, i));
                        same(problems, "scatterv in place" + tag, i, fromRoot,
                                me == root ? sIn.getAtIndex(D, gapped[me] + i) : sIn.getAtIndex(D, i));
                        double sum = in(0, packed[me] + i, salt);
                        for (int q = 1; q < p; q++) {
                            sum += in(q, packed[me] + i, salt);
                        }
                        same(problems, "reduce-scatter-v" + tag, i, sum, rsRecv.getAtIndex(D, i));
                    }
                }
            }
        });
        check(problems);
    }

    /** Reduce-scatter-v in every dtype with SUM and MIN (uneven counts), bitwise against the rank-ordered fold. */
    @Test
    void reduceScatterVEveryDtype() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        int p = 3;
        run(p, 256, rank -> {
            int me = rank.id();
            long[] c = counts(p, 301);
            long[] packed = displs(c, false);
            long all = extent(c, packed);
            for (DType t : DType.values()) {
                if (t.isPair()) {
                    continue;           // pairs take MINLOC/MAXLOC, not SUM/MIN
                }
                for (Op op : new Op[]{Op.SUM, Op.MIN}) {
                    boolean exact = op == Op.MIN;      // MIN: the special values; SUM: arbitrary values, rank order
                    long salt = t.ordinal() * 7L + op.ordinal();
                    MemorySegment send = rank.allocate(all * t.size() + 8);
                    MemorySegment recv = rank.allocate(c[me] * t.size() + 8);
                    Values.fill(send, 0, t, op, me, all, salt, exact);
                    rank.ireduceScatterV(send, recv, c, t, op).await();
                    for (long i = 0; i < c[me]; i++) {
                        long ref = Values.foldBits(t, op, p, packed[me] + i, salt, exact);
                        long got = Values.read(recv, 0, t, i);
                        if (!Values.same(t, ref, got) && problems.size() < 20) {
                            problems.add(t + " " + op + " rank " + me + " [" + i + "]: " + Values.show(t, got) + " != "
                                    + Values.show(t, ref));
                        }
                    }
                }
            }
        });
        check(problems);
    }

    /** Persistent forms bound once (one through a plan) and started five times with new inputs. */
    @Test
    void persistentFormsRepeat() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        int p = 3;
        long n = 2001;
        run(p, 1024, rank -> {
            int me = rank.id();
            long[] c = counts(p, n);
            long[] gapped = displs(c, true);
            long[] packed = displs(c, false);
            long ext = extent(c, gapped) + 1;
            MemorySegment gSend = rank.allocate(8 * c[me] + 8), gRecv = rank.allocate(8 * ext);
            MemorySegment sSend = rank.allocate(8 * ext), sRecv = rank.allocate(8 * c[me] + 8);
            MemorySegment agSend = rank.allocate(8 * c[me] + 8), agRecv = rank.allocate(8 * ext);
            long all = extent(c, packed);
            MemorySegment rsSend = rank.allocate(8 * all + 8), rsRecv = rank.allocate(8 * c[me] + 8);
            long[] sc = new long[p], rc = new long[p];
            for (int j = 0; j < p; j++) {
                sc[j] = a2aCount(me, j, n);
                rc[j] = a2aCount(j, me, n);
            }
            long[] sd = displs(sc, false);
            long[] rd = displs(rc, true);
            MemorySegment aSend = rank.allocate(8 * extent(sc, sd) + 8), aRecv = rank.allocate(8 * extent(rc, rd) + 8);
            int root = 2;
            PersistentRequest[] rq = {
                    rank.gathervInit(gSend, c[me], gRecv, c, gapped, DType.F64, root),
                    rank.scattervInit(sSend, c, gapped, sRecv, c[me], DType.F64, 1),
                    rank.init(rank.plan(Collective.ALLGATHERV, n, DType.F64, null), agSend, new long[]{c[me]}, null, agRecv, c, gapped),
                    rank.reduceScatterVInit(rsSend, rsRecv, c, DType.F64, Op.SUM),
                    rank.alltoallvInit(aSend, sc, sd, aRecv, rc, rd, DType.F64)};
            for (long round = 0; round < 5; round++) {
                fillOwn(gSend, 0, me, c[me], round);
                fillOwn(sSend, 0, 1, ext, round);
                fillOwn(agSend, 0, me, c[me], round);
                fillOwn(rsSend, 0, me, all, round);
                for (int j = 0; j < p; j++) {
                    for (long i = 0; i < sc[j]; i++) {
                        aSend.setAtIndex(D, sd[j] + i, a2a(me, j, i, round));
                    }
                }
                for (PersistentRequest r : rq) {
                    r.start();
                }
                for (int k = rq.length - 1; k >= 0; k--) {
                    rq[k].await();
                }
                String tag = " round " + round + " rank " + me;
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < c[q]; i++) {
                        if (me == root) {
                            same(problems, "persistent gatherv" + tag, i, in(q, i, round), gRecv.getAtIndex(D, gapped[q] + i));
                        }
                        same(problems, "persistent allgatherv (plan)" + tag, i, in(q, i, round), agRecv.getAtIndex(D, gapped[q] + i));
                    }
                    for (long i = 0; i < rc[q]; i++) {
                        same(problems, "persistent alltoallv" + tag, i, a2a(q, me, i, round), aRecv.getAtIndex(D, rd[q] + i));
                    }
                }
                for (long i = 0; i < c[me]; i++) {
                    same(problems, "persistent scatterv" + tag, i, in(1, gapped[me] + i, round), sRecv.getAtIndex(D, i));
                    double sum = in(0, packed[me] + i, round);
                    for (int q = 1; q < p; q++) {
                        sum += in(q, packed[me] + i, round);
                    }
                    same(problems, "persistent reduce-scatter-v" + tag, i, sum, rsRecv.getAtIndex(D, i));
                }
            }
            for (PersistentRequest r : rq) {
                r.close();
            }
        });
        check(problems);
    }

    /** 16 outstanding allgatherv requests per rank, awaited in reverse order, in a team with a progress thread. */
    @Test
    void sixteenOutstandingAwaitedInReverse() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        int p = 3;
        long n = 4099;
        Team.Builder withThread = Team.builder().ranks(p).maxSliceBytes(4096).progressThread(true).timeout(Duration.ofSeconds(30));
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
          try (Team team = withThread.build()) {
           team.run(rank -> {
            int me = rank.id();
            long[] c = counts(p, n);
            long[] d = displs(c, true);
            long ext = extent(c, d);
            MemorySegment[] send = new MemorySegment[16], recv = new MemorySegment[16];
            Request[] rq = new Request[16];
            for (int k = 0; k < 16; k++) {
                send[k] = rank.allocate(8 * c[me] + 8);
                recv[k] = rank.allocate(8 * ext);
                fillOwn(send[k], 0, me, c[me], k);
                rq[k] = rank.iallgatherv(send[k], c[me], recv[k], c, d, DType.F64);
            }
            for (int k = 15; k >= 0; k--) {
                rq[k].await();
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < c[q]; i++) {
                        same(problems, "request " + k + " rank " + me, i, in(q, i, k), recv[k].getAtIndex(D, d[q] + i));
                    }
                }
            }
           });
          }
        });
        check(problems);
    }

    /** A rank that never issues: the others' v requests time out naming it; the future of another outstanding one fails too. */
    @Test
    void aRankThatNeverIssuesTimesOutAndFailsOutstandingFutures() {
        AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(2);
        AtomicReferenceArray<java.util.concurrent.CompletableFuture<Void>> futures = new AtomicReferenceArray<>(2);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Team team = Team.builder().ranks(3).timeout(Duration.ofMillis(300)).build()) {
                assertThrows(CollectiveTimeoutException.class, () -> team.run(rank -> {
                    if (rank.id() == 2) {
                        return;             // never issues
                    }
                    MemorySegment s = rank.allocate(1 << 16), r = rank.allocate(1 << 16);
                    long[] c = {100, 0, 2000};
                    long[] d = {0, 100, 100};
                    Request first = rank.ialltoallv(s, c, d, r, c, d, DType.F64);
                    futures.set(rank.id(), rank.iallgatherv(s, c[rank.id()], r, c, d, DType.F64).toFuture());
                    try {
                        first.await();
                    } catch (RuntimeException e) {
                        seen.set(rank.id(), e);
                        throw e;
                    }
                }));
            }
        });
        for (int r = 0; r < 2; r++) {
            CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, seen.get(r), "rank " + r);
            assertTrue(e.missingRanks().contains(2), e.getMessage());
            assertTrue(futures.get(r).isCompletedExceptionally(), "rank " + r);
        }
    }

    /** An igatherv against an igather, roots that differ, and counts the root does not expect: every rank gets the mismatch. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void mismatchFailsEveryRank(int kind) {
        int p = 3;
        AtomicReferenceArray<Throwable> seen = new AtomicReferenceArray<>(p);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(10)).build()) {
                assertThrows(CollectiveMismatchException.class, () -> team.run(rank -> {
                    MemorySegment s = rank.allocate(1024), r = rank.allocate(1024);
                    long[] c = {4, 4, 4};
                    long[] d = {0, 4, 8};
                    try {
                        Request q = switch (kind) {
                            case 0 -> rank.id() == 2 ? rank.igather(s, r, 4, DType.F64, 0)
                                    : rank.igatherv(s, 4, r, c, d, DType.F64, 0);
                            case 1 -> rank.igatherv(s, 4, r, c, d, DType.F64, rank.id() == 2 ? 1 : 0);
                            default -> rank.igatherv(s, rank.id() == 1 ? 3 : 4, r, c, d, DType.F64, 0);
                        };
                        q.await();
                    } catch (RuntimeException e) {
                        seen.set(rank.id(), e);
                        throw e;
                    }
                }));
            }
        });
        for (int r = 0; r < p; r++) {
            assertInstanceOf(CollectiveMismatchException.class, seen.get(r), "rank " + r);
        }
        if (kind == 2) {
            assertTrue(seen.get(0).getMessage().contains("recvCounts[1] = 4"), seen.get(0).getMessage());
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsShared() {
        run(2, 1024, rank -> {
            long[] c = {1, 1};
            IllegalArgumentException user = assertThrows(IllegalArgumentException.class,
                    () -> rank.ireduceScatterV(rank.allocate(16), rank.allocate(8), c, DType.F64, Op.USER));
            assertTrue(user.getMessage().contains("UserOp"), user.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> rank.iallgatherv(rank.allocate(8), 1, rank.allocate(8), c, new long[]{0, 1}, DType.F64));
            assertThrows(IllegalArgumentException.class,
                    () -> rank.alltoallvInit(rank.allocate(16), c, new long[]{0, 1}, rank.allocate(16), new long[]{1, 2},
                            new long[]{0, 1}, DType.F64));
            assertThrows(IllegalArgumentException.class,
                    () -> rank.init(rank.plan(Collective.ALLREDUCE, 1, DType.F64, Op.SUM), rank.allocate(8), null, null,
                            rank.allocate(8), null, null));
            rank.barrier();
        });
    }

    private static void fillOwn(MemorySegment s, long at, int r, long n, long salt) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(D, at + i, in(r, i, salt));
        }
    }

    private static void same(Queue<String> problems, String what, long i, double ref, double got) {
        if (Double.doubleToRawLongBits(ref) != Double.doubleToRawLongBits(got) && problems.size() < 20) {
            problems.add(what + " [" + i + "]: " + got + " != " + ref);
        }
    }
}
