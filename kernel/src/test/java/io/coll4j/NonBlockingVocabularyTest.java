package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.coll4j.NonBlockingCollectivesTest.D;
import static io.coll4j.NonBlockingCollectivesTest.buffer;
import static io.coll4j.NonBlockingCollectivesTest.check;
import static io.coll4j.NonBlockingCollectivesTest.in;
import static io.coll4j.NonBlockingCollectivesTest.run;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The non-blocking and persistent gather, scatter, alltoall, scan and exscan against the scalar reference:
 * staged (≤ 256 B per rank) and sliced sizes, counts 0, 1 and odd, in place (root's block for gather and
 * scatter, the same segment for alltoall (on every rank, or on every other one) and the scans), heap and
 * native, p = 1, 2, 3, 5, 8, posted together and awaited in reverse order. Folds are in rank order: results compared bitwise.
 */
class NonBlockingVocabularyTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 8})
    void everyVocabularyCollectiveMatchesTheReference(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        run(p, 256, rank -> {
            int me = rank.id();
            for (long n : new long[]{0, 1, 5, 301}) {
                for (boolean heap : new boolean[]{false, true}) {
                    long salt = n * 13 + (heap ? 1 : 0);
                    int root = (int) (n % p);
                    long total = n * p;
                    MemorySegment gSend = buffer(rank, 8 * n + 8, heap), gRecv = buffer(rank, 8 * total + 8, heap);
                    MemorySegment gIn = buffer(rank, 8 * total + 8, heap);
                    MemorySegment sSend = buffer(rank, 8 * total + 8, heap), sRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment sIn = buffer(rank, 8 * total + 8, heap);
                    MemorySegment aSend = buffer(rank, 8 * total + 8, heap), aRecv = buffer(rank, 8 * total + 8, heap);
                    MemorySegment aIn = buffer(rank, 8 * total + 8, heap);
                    MemorySegment aMix = buffer(rank, 8 * total + 8, heap), aMixRecv = buffer(rank, 8 * total + 8, heap);
                    boolean mixInPlace = me % 2 == 0;             // even ranks in place, odd ranks not
                    MemorySegment cSend = buffer(rank, 8 * n + 8, heap), cRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment cIn = buffer(rank, 8 * n + 8, heap);
                    MemorySegment xSend = buffer(rank, 8 * n + 8, heap), xRecv = buffer(rank, 8 * n + 8, heap);
                    MemorySegment xIn = buffer(rank, 8 * n + 8, heap);
                    for (long i = 0; i < n; i++) {
                        gSend.setAtIndex(D, i, in(me, i, salt));
                        gIn.setAtIndex(D, me * n + i, in(me, i, salt));
                        cSend.setAtIndex(D, i, in(me, i, salt));
                        cIn.setAtIndex(D, i, in(me, i, salt));
                        xSend.setAtIndex(D, i, in(me, i, salt));
                        xIn.setAtIndex(D, i, in(me, i, salt));
                    }
                    for (long i = 0; i < total; i++) {
                        sSend.setAtIndex(D, i, in(me, i, salt));             // the root's, the rest unused
                        sIn.setAtIndex(D, i, in(me, i, salt));
                        aSend.setAtIndex(D, i, in(me, i, salt + 1));         // block q goes to rank q
                        aIn.setAtIndex(D, i, in(me, i, salt + 1));
                        aMix.setAtIndex(D, i, in(me, i, salt + 1));
                    }
                    MemorySegment rootBlockOfGather = gIn.asSlice(me * n * 8, n * 8);
                    MemorySegment rootBlockOfScatter = sIn.asSlice(me * n * 8, n * 8);
                    Request[] rq = {
                            rank.igather(gSend, gRecv, n, DType.F64, root),
                            me == root ? rank.igather(rootBlockOfGather, gIn, n, DType.F64, root)
                                    : rank.igather(gIn.asSlice(me * n * 8, n * 8), null, n, DType.F64, root),
                            rank.iscatter(me == root ? sSend : null, sRecv, n, DType.F64, root),
                            me == root ? rank.iscatter(sIn, rootBlockOfScatter, n, DType.F64, root)
                                    : rank.iscatter(null, sIn.asSlice(0, n * 8), n, DType.F64, root),
                            rank.ialltoall(aSend, aRecv, n, DType.F64),
                            rank.ialltoall(aIn, aIn, n, DType.F64),
                            rank.ialltoall(aMix, mixInPlace ? aMix : aMixRecv, n, DType.F64),
                            rank.iscan(cSend, cRecv, n, DType.F64, Op.SUM),
                            rank.iscan(cIn, cIn, n, DType.F64, Op.SUM),
                            rank.iexscan(xSend, xRecv, n, DType.F64, Op.SUM),
                            rank.iexscan(xIn, xIn, n, DType.F64, Op.SUM)};
                    for (int k = rq.length - 1; k >= 0; k--) {
                        rq[k].await();
                    }
                    String tag = " p=" + p + " n=" + n + (heap ? " heap" : " native") + " rank " + me;
                    for (long i = 0; i < n; i++) {
                        if (me == root) {
                            for (int q = 0; q < p; q++) {
                                same(problems, "gather" + tag, i, in(q, i, salt), gRecv.getAtIndex(D, q * n + i));
                                same(problems, "gather in place" + tag, i, in(q, i, salt), gIn.getAtIndex(D, q * n + i));
                            }
                        }
                        same(problems, "scatter" + tag, i, in(root, me * n + i, salt), sRecv.getAtIndex(D, i));
                        same(problems, "scatter in place" + tag, i, in(root, me * n + i, salt),
                                me == root ? sIn.getAtIndex(D, me * n + i) : sIn.getAtIndex(D, i));
                        for (int q = 0; q < p; q++) {
                            same(problems, "alltoall" + tag, i, in(q, me * n + i, salt + 1), aRecv.getAtIndex(D, q * n + i));
                            same(problems, "alltoall in place" + tag, i, in(q, me * n + i, salt + 1), aIn.getAtIndex(D, q * n + i));
                            same(problems, "alltoall, some ranks in place" + tag, i, in(q, me * n + i, salt + 1),
                                    (mixInPlace ? aMix : aMixRecv).getAtIndex(D, q * n + i));
                        }
                        double scan = in(0, i, salt);
                        double exscan = 0;
                        for (int q = 1; q <= me; q++) {
                            exscan = q == 1 ? in(0, i, salt) : exscan + in(q - 1, i, salt);
                            scan += in(q, i, salt);
                        }
                        same(problems, "scan" + tag, i, scan, cRecv.getAtIndex(D, i));
                        same(problems, "scan in place" + tag, i, scan, cIn.getAtIndex(D, i));
                        if (me > 0) {
                            same(problems, "exscan" + tag, i, exscan, xRecv.getAtIndex(D, i));
                            same(problems, "exscan in place" + tag, i, exscan, xIn.getAtIndex(D, i));
                        } else {
                            same(problems, "exscan leaves rank 0's recv" + tag, i, 0.0, xRecv.getAtIndex(D, i));
                            same(problems, "exscan in place leaves rank 0's buffer" + tag, i, in(0, i, salt), xIn.getAtIndex(D, i));
                        }
                    }
                }
            }
        });
        check(problems);
    }

    /** Persistent forms: bound once, started three times with new inputs each time; plan-bound too. */
    @Test
    void persistentFormsRepeat() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        int p = 3;
        long n = 777;
        run(p, 1024, rank -> {
            int me = rank.id();
            MemorySegment aSend = rank.allocate(8 * n * p), aRecv = rank.allocate(8 * n * p);
            MemorySegment cSend = rank.allocate(8 * n), cRecv = rank.allocate(8 * n);
            MemorySegment gSend = rank.allocate(8 * n), gRecv = rank.allocate(8 * n * p);
            PersistentRequest a = rank.alltoallInit(aSend, aRecv, n, DType.F64);
            PersistentRequest c = rank.init(rank.plan(Collective.SCAN, n, DType.F64, Op.SUM), cSend, cRecv);
            PersistentRequest g = rank.gatherInit(gSend, gRecv, n, DType.F64, 1);
            for (long round = 0; round < 3; round++) {
                for (long i = 0; i < n * p; i++) {
                    aSend.setAtIndex(D, i, in(me, i, round));
                }
                for (long i = 0; i < n; i++) {
                    cSend.setAtIndex(D, i, in(me, i, round));
                    gSend.setAtIndex(D, i, in(me, i, round + 7));
                }
                a.start();
                c.start();
                g.start();
                g.await();
                c.await();
                a.await();
                for (long i = 0; i < n; i++) {
                    double scan = in(0, i, round);
                    for (int q = 1; q <= me; q++) {
                        scan += in(q, i, round);
                    }
                    same(problems, "persistent scan round " + round, i, scan, cRecv.getAtIndex(D, i));
                    for (int q = 0; q < p; q++) {
                        same(problems, "persistent alltoall round " + round, i, in(q, me * n + i, round), aRecv.getAtIndex(D, q * n + i));
                        if (me == 1) {
                            same(problems, "persistent gather round " + round, i, in(q, i, round + 7), gRecv.getAtIndex(D, q * n + i));
                        }
                    }
                }
            }
            a.close();
            c.close();
            g.close();
        });
        check(problems);
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsShared() {
        run(2, 1024, rank -> {
            if (rank.id() == 0) {     // the root's recv is too small; elsewhere recv is ignored
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> rank.igather(rank.allocate(8), rank.allocate(8), 1, DType.F64, 0));
                assertTrue(e.getMessage().contains("recv"), e.getMessage());
            }
            assertThrows(IllegalArgumentException.class, () -> rank.iscatter(rank.allocate(16), rank.allocate(8), 1, DType.F64, 5));
            assertThrows(IllegalArgumentException.class, () -> rank.iscan(rank.allocate(8), rank.allocate(8), 1, DType.F64, Op.BAND));
            assertThrows(IllegalArgumentException.class, () -> rank.ialltoall(rank.allocate(8), rank.allocate(16), 1, DType.F64));
            assertThrows(IllegalArgumentException.class,
                    () -> rank.init(rank.plan(Collective.GATHERV, 1, DType.F64, null), rank.allocate(8), rank.allocate(16)));
            rank.barrier();
        });
    }

    private static void same(Queue<String> problems, String what, long i, double ref, double got) {
        if (Double.doubleToRawLongBits(ref) != Double.doubleToRawLongBits(got) && problems.size() < 20) {
            problems.add(what + " [" + i + "]: " + got + " != " + ref);
        }
    }
}
