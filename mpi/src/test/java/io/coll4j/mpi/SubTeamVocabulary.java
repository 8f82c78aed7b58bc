package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.LongToDoubleFunction;

/**
 * The collectives of the vocabulary that {@link SplitChecker}'s core set leaves out, on one sub-team across
 * processes — reduce, gather, scatter, alltoall, scan, exscan, the five v-forms, the shared views and the
 * non-blocking forms — at counts 0, 1 and odd, heap and native in turn, checked element by element against a
 * scalar reference over the members' parent ids (small integers: exact in every fold order). Run on the sub-teams
 * whose processes hold different numbers of ranks, where every leader algorithm takes its per-process blocks.
 */
final class SubTeamVocabulary {
    private static final ValueLayout.OfDouble F = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private final Rank sub;
    private final int[] members;
    private final String at;
    private final int s;
    private final int me;
    private final Buffers buffers;

    SubTeamVocabulary(Rank sub, int[] members, String at) {
        this.sub = sub;
        this.members = members;
        this.at = at;
        this.s = members.length;
        this.me = sub.id();
        this.buffers = new Buffers(sub);
    }

    /** Element i of sub-team rank r's contribution. */
    private double value(int r, long i) {
        return (members[r] * 31L + i * 7) % 13 - 6;
    }

    void run() {
        for (long n : new long[]{0, 1, 5}) {
            int root = (int) ((n + s - 1) % s);   // the last rank, the first, the one after: roots in every process
            reduce(n, root);
            gather(n, root);
            scatter(n, root);
            alltoall(n, n == 1);
            scan(n, false);
            scan(n, true);
            allgatherv(n);
            gatherv(n, root);
            scatterv(n, root);
            reduceScatterV(n);
            alltoallv(n);
            shared(n);
            nonBlocking(n, root);
            layoutRequests(n, root);
        }
    }

    private double sumUpTo(int last, long i) {
        double v = 0;
        for (int r = 0; r <= last; r++) {
            v += value(r, i);
        }
        return v;
    }

    private MemorySegment mine(long n) {
        MemorySegment m = buffers.of(DType.F64, n);
        fill(m, 0, n, i -> value(me, i));
        return m;
    }

    private void reduce(long n, int root) {
        MemorySegment recv = buffers.of(DType.F64, n);
        sub.reduce(mine(n), recv, n, DType.F64, Op.SUM, root);
        if (me == root) {
            expect("reduce root " + root, recv, 0, n, i -> sumUpTo(s - 1, i));
        }
    }

    private void gather(long n, int root) {
        MemorySegment recv = buffers.of(DType.F64, n * s);
        sub.gather(mine(n), recv, n, DType.F64, root);
        if (me == root) {
            expect("gather root " + root, recv, 0, n * s, i -> value((int) (i / n), i % n));
        }
    }

    private void scatter(long n, int root) {
        MemorySegment send = buffers.of(DType.F64, n * s);
        fill(send, 0, n * s, i -> value(root, i));
        MemorySegment recv = buffers.of(DType.F64, n);
        sub.scatter(send, recv, n, DType.F64, root);
        expect("scatter root " + root, recv, 0, n, i -> value(root, me * n + i));
    }

    private void alltoall(long n, boolean inPlace) {
        MemorySegment send = buffers.of(DType.F64, n * s);
        fill(send, 0, n * s, i -> value(me, i));   // block d goes to rank d
        MemorySegment recv = inPlace ? send : buffers.of(DType.F64, n * s);
        sub.alltoall(send, recv, n, DType.F64);
        expect("alltoall" + (inPlace ? " in place" : ""), recv, 0, n * s, i -> value((int) (i / n), me * n + i % n));
    }

    private void scan(long n, boolean exclusive) {
        MemorySegment recv = buffers.of(DType.F64, n);
        if (exclusive) {
            sub.exscan(mine(n), recv, n, DType.F64, Op.SUM);
            if (me > 0) {
                expect("exscan", recv, 0, n, i -> sumUpTo(me - 1, i));
            }
        } else {
            sub.scan(mine(n), recv, n, DType.F64, Op.SUM);
            expect("scan", recv, 0, n, i -> sumUpTo(me, i));
        }
    }

    /** Rank r's count in the v-forms: 0 to 2, so some ranks give nothing; all 0 when n is. */
    private static long count(long n, int r) {
        return n == 0 ? 0 : (n + r) % 3;
    }

    private long[] counts(long n) {
        long[] c = new long[s];
        for (int r = 0; r < s; r++) {
            c[r] = count(n, r);
        }
        return c;
    }

    /** Displacements packing the blocks in reverse rank order (not the rank order the leaders use). */
    private static long[] reversed(long[] counts) {
        long[] d = new long[counts.length];
        long at = 0;
        for (int r = counts.length - 1; r >= 0; r--) {
            d[r] = at;
            at += counts[r];
        }
        return d;
    }

    private static long total(long[] counts) {
        return java.util.Arrays.stream(counts).sum();
    }

    private void expectBlocks(String what, MemorySegment recv, long[] counts, long[] displs, IntBlock want) {
        for (int r = 0; r < s; r++) {
            int src = r;
            expect(what + " block " + r, recv, displs[r], counts[r], i -> want.value(src, i));
        }
    }

    @FunctionalInterface
    private interface IntBlock {
        double value(int rank, long i);
    }

    private void allgatherv(long n) {
        long[] c = counts(n);
        long[] d = reversed(c);
        MemorySegment recv = buffers.of(DType.F64, total(c));
        sub.allgatherv(mine(c[me]), c[me], recv, c, d, DType.F64);
        expectBlocks("allgatherv", recv, c, d, this::value);
    }

    private void gatherv(long n, int root) {
        long[] c = counts(n);
        long[] d = reversed(c);
        MemorySegment recv = buffers.of(DType.F64, total(c));
        sub.gatherv(mine(c[me]), c[me], recv, c, d, DType.F64, root);
        if (me == root) {
            expectBlocks("gatherv root " + root, recv, c, d, this::value);
        }
    }

    private void scatterv(long n, int root) {
        long[] c = counts(n);
        long[] d = reversed(c);
        MemorySegment send = buffers.of(DType.F64, total(c));
        for (int r = 0; r < s; r++) {
            int dest = r;
            fill(send, d[r], c[r], i -> value(root, 100 * dest + i));
        }
        MemorySegment recv = buffers.of(DType.F64, c[me]);
        sub.scatterv(send, c, d, recv, c[me], DType.F64, root);
        expect("scatterv root " + root, recv, 0, c[me], i -> value(root, 100L * me + i));
    }

    private void reduceScatterV(long n) {
        long[] c = counts(n);
        long whole = total(c);
        MemorySegment send = mine(whole);
        MemorySegment recv = buffers.of(DType.F64, c[me]);
        sub.reduceScatterV(send, recv, c, DType.F64, Op.SUM);
        long from = 0;
        for (int r = 0; r < me; r++) {
            from += c[r];
        }
        long start = from;
        expect("reduce-scatter-v", recv, 0, c[me], i -> sumUpTo(s - 1, start + i));
    }

    private void alltoallv(long n) {
        // rank a sends (n + a + b) % 3 elements to rank b: value(a, 10·b + i)
        long[] sc = new long[s];
        long[] rc = new long[s];
        for (int r = 0; r < s; r++) {
            sc[r] = n == 0 ? 0 : (n + me + r) % 3;
            rc[r] = n == 0 ? 0 : (n + r + me) % 3;
        }
        long[] sd = reversed(sc);
        long[] rd = reversed(rc);
        MemorySegment send = buffers.of(DType.F64, total(sc));
        for (int r = 0; r < s; r++) {
            int dest = r;
            fill(send, sd[r], sc[r], i -> value(me, 10L * dest + i));
        }
        MemorySegment recv = buffers.of(DType.F64, total(rc));
        sub.alltoallv(send, sc, sd, recv, rc, rd, DType.F64);
        expectBlocks("alltoallv", recv, rc, rd, (src, i) -> value(src, 10L * me + i));
    }

    private void shared(long n) {
        MemorySegment all = sub.allgatherShared(mine(n), n, DType.F64);
        expect("allgatherShared", all, 0, n * s, i -> value((int) (i / n), i % n));
        MemorySegment sum = sub.allreduceShared(mine(n), n, DType.F64, Op.SUM);
        expect("allreduceShared", sum, 0, n, i -> sumUpTo(s - 1, i));
    }

    private void nonBlocking(long n, int root) {
        MemorySegment ar = buffers.of(DType.F64, n);
        Request a = sub.iallreduce(mine(n), ar, n, DType.F64, Op.SUM);
        MemorySegment ag = buffers.of(DType.F64, n * s);
        Request b = sub.iallgather(mine(n), ag, n, DType.F64);
        MemorySegment rs = buffers.of(DType.F64, n);
        Request c = sub.ireduceScatter(mine(n * s), rs, n, DType.F64, Op.SUM);
        MemorySegment bc = buffers.of(DType.F64, n);
        fill(bc, 0, n, i -> me == root ? value(root, i) : -99);
        Request d = sub.ibcast(bc, n, DType.F64, root);
        MemorySegment rd = buffers.of(DType.F64, n);
        Request e = sub.ireduce(mine(n), rd, n, DType.F64, Op.SUM, root);
        Request f = sub.ibarrier();
        // awaited in reverse: a later request's wait moves the earlier ones too
        for (Request r : new Request[]{f, e, d, c, b, a}) {
            r.await();
        }
        expect("iallreduce", ar, 0, n, i -> sumUpTo(s - 1, i));
        expect("iallgather", ag, 0, n * s, i -> value((int) (i / n), i % n));
        expect("ireduceScatter", rs, 0, n, i -> sumUpTo(s - 1, me * n + i));
        expect("ibcast root " + root, bc, 0, n, i -> value(root, i));
        if (me == root) {
            expect("ireduce root " + root, rd, 0, n, i -> sumUpTo(s - 1, i));
        }
    }

    /**
     * The requests whose schedules follow the per-process blocks (once refused on these sub-teams), and a user op's,
     * which folds in the leaders' chain with the op captured when the request was made: posted together, awaited in
     * reverse.
     */
    private void layoutRequests(long n, int root) {
        MemorySegment ga = buffers.of(DType.F64, n * s);
        Request a = sub.igather(mine(n), ga, n, DType.F64, root);
        MemorySegment toAll = buffers.of(DType.F64, n * s);
        fill(toAll, 0, n * s, i -> value(me, i));
        MemorySegment aa = buffers.of(DType.F64, n * s);
        Request b = sub.ialltoall(toAll, aa, n, DType.F64);
        MemorySegment sc = buffers.of(DType.F64, n);
        Request c = sub.iscan(mine(n), sc, n, DType.F64, Op.SUM);
        long[] counts = counts(n);
        long[] displs = reversed(counts);
        MemorySegment gv = buffers.of(DType.F64, total(counts));
        Request d = sub.iallgatherv(mine(counts[me]), counts[me], gv, counts, displs, DType.F64);
        MemorySegment user = buffers.of(DType.F64, n);
        Request e = sub.iallreduce(mine(n), user, n, PLUS_ONE);
        for (Request r : new Request[]{e, d, c, b, a}) {
            r.await();
        }
        if (me == root) {
            expect("igather root " + root, ga, 0, n * s, i -> value((int) (i / n), i % n));
        }
        expect("ialltoall", aa, 0, n * s, i -> value((int) (i / n), me * n + i % n));
        expect("iscan", sc, 0, n, i -> sumUpTo(me, i));
        expectBlocks("iallgatherv", gv, counts, displs, this::value);
        expect("iallreduce user", user, 0, n, i -> sumUpTo(s - 1, i) + s - 1);
    }

    /** Commutative and not built in: s contributions give their sum plus s − 1. */
    private static final UserOp PLUS_ONE = UserOp.ofDoubles("plus-one", true, (x, y) -> x + y + 1);

    private static void fill(MemorySegment m, long from, long n, LongToDoubleFunction v) {
        for (long i = 0; i < n; i++) {
            m.setAtIndex(F, from + i, v.applyAsDouble(i));
        }
    }

    private void expect(String what, MemorySegment m, long from, long n, LongToDoubleFunction want) {
        for (long i = 0; i < n; i++) {
            double got = m.getAtIndex(F, from + i);
            if (got != want.applyAsDouble(i)) {
                throw new AssertionError(at + ": " + what + " element " + i + " = " + got + ", want " + want.applyAsDouble(i));
            }
        }
    }
}
