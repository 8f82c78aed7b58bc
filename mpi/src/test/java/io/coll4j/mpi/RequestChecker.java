package io.coll4j.mpi;

import io.coll4j.Collective;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One rank's side of the cross-process suite for non-blocking and persistent collectives (SpanRequest):
 * iallreduce, ireduce (roots on local rank 0 and not), ireduceScatter (f64 SUM of inexact values, i64 MAX; i64 AVG for
 * the three), iallgather and ibcast (roots in every
 * process), ibarrier, counts 0, 1, odd and 3p+1, in place and not, heap and native, each result bitwise the
 * blocking spanned collective's on the same inputs (the blocking ones are checked against the reference by
 * the core suite) — except an inexact fold over three or more processes, where MPI's non-blocking collectives
 * (Open MPI's libnbc) may combine the process partials in another order than the blocking ones: there the
 * result must agree within 1e-12 and be bitwise the same on every rank; several requests outstanding and awaited out of order, with a blocking collective in
 * between; a persistent allreduce and a plan's persistent form started three times with new inputs.
 */
final class RequestChecker {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    private final Rank rank;
    private final int g;
    private final int p;
    private final Buffers buffers;
    private int checks;

    RequestChecker(Rank rank) {
        this.rank = rank;
        this.g = rank.id();
        this.p = rank.size();
        this.buffers = Buffers.reusing(rank, 8);
    }

    int all() {
        for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
            buffers.of(DType.I64, 0);   // shifts the heap/native turn: each count meets the other kind in each role
            for (boolean inPlace : new boolean[]{false, true}) {
                allreduce(DType.F64, Op.SUM, n, inPlace);
                allreduce(DType.I64, Op.MAX, n, inPlace);
                allgather(DType.F64, n, inPlace);
            }
            reduce(DType.F64, Op.SUM, n, p - 1, false);
            reduce(DType.I64, Op.MAX, n, (int) (n % p), true);
            reduce(DType.F64, Op.SUM, n, 0, n == 1);
            reduceScatter(DType.F64, Op.SUM, n);
            reduceScatter(DType.I64, Op.MAX, n);
            // AVG: the leaders' stages fold SUM, a last step divides each rank's result (exact in i64: bitwise)
            allreduce(DType.I64, Op.AVG, n, n == 7);
            reduce(DType.I64, Op.AVG, n, p - 1, false);
            reduceScatter(DType.I64, Op.AVG, n);
            bcast(DType.I64, n, (int) (n % p));
            bcast(DType.F64, n, p - 1);
        }
        for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
            buffers.of(DType.I64, 0);
            int off = p / 2 == 0 ? p - 1 : p / 2;   // a root off local rank 0 when T > 1 (and in another process)
            for (boolean inPlace : new boolean[]{false, true}) {
                gather(DType.F64, n, 0, inPlace);
                gather(DType.I64, n, (int) ((n + off) % p), inPlace);
                scatter(DType.I64, n, p - 1, inPlace);
                scatter(DType.F64, n, (int) ((n + off) % p), inPlace);
                alltoall(DType.F64, n, inPlace);
                scan(DType.F64, Op.SUM, n, false, inPlace);
                scan(DType.I64, Op.SUM, n, true, inPlace);
                scan(DType.I64, Op.MAX, n, false, inPlace);
                scan(DType.F64, Op.SUM, n, true, inPlace);
            }
        }
        for (int n : new int[]{0, 1, 5}) {
            buffers.of(DType.I64, 0);
            int off = p / 2 == 0 ? p - 1 : p / 2;
            for (boolean inPlace : new boolean[]{false, true}) {
                gatherv(DType.F64, n, (n + off) % p, inPlace);
                scatterv(DType.I64, n, (n + 1) % p, inPlace);
                allgatherv(DType.F64, n, inPlace);
                alltoallv(DType.I64, n, inPlace);
            }
            reduceScatterV(DType.F64, Op.SUM, n);
            reduceScatterV(DType.I64, Op.MAX, n);
        }
        outOfOrder(3L * p + 1);
        restOutOfOrder(3L * p + 1);
        // staging buffers of 64 KiB and more are pooled (RequestBuffers): five requests in flight at once, each
        // with buffers of its own, twice (the second round reuses what the first gave back), then one after another
        long big = 4096 + 3;
        restOutOfOrder(big);
        restOutOfOrder(big);
        for (boolean inPlace : new boolean[]{false, true}) {
            gather(DType.I64, big, p - 1, inPlace);
            alltoall(DType.F64, big, inPlace);
            gather(DType.F64, big, 0, inPlace);
        }
        vectorOutOfOrder(3);
        persistent(7);
        persistentRest(7);
        persistentVector(2);
        for (long n : new long[]{1, 7, 3L * p + 1}) {
            chain(n);
        }
        pipelined(3L * p * 8 + 5);
        Request b = rank.ibarrier();
        b.await();
        checks++;
        onSubTeam();
        return checks;
    }

    /**
     * Requests on a sub-team across processes: local rank 0 of every process (one spanning sub-team per process,
     * which every thread level allows), on its own requests communicator; results as its blocking calls'.
     */
    private void onSubTeam() {
        Rank sub = rank.split(rank.localId() == 0 ? 0 : io.coll4j.Team.UNDEFINED, g);
        if (sub != null) {
            long n = 7;
            MemorySegment in = filled(DType.F64, n, g, 0, 5);
            MemorySegment ref = buffers.of(DType.F64, n);
            sub.allreduce(in, ref, n, DType.F64, Op.SUM);
            MemorySegment out = buffers.of(DType.F64, n);
            Request r = sub.iallreduce(in, out, n, DType.F64, Op.SUM);
            Request q = sub.ibarrier();
            q.await();
            r.await();
            same("iallreduce F64 on a sub-team over " + sub.team().processes() + " processes", longs(ref, n), longs(out, n));
            sub.close();
        }
        rank.barrier();   // every member has detached: its local rank 0 frees the process's copy
        if (sub != null && sub.localId() == 0) {
            sub.team().close();
        }
    }

    /** Rank r's element i: inexact for f64 (so the fold order shows in the bits), small and distinct for i64. */
    private static long input(DType d, int r, long i, int round) {
        if (d == DType.F64) {
            return Double.doubleToRawLongBits(Math.sin(r * 1000.0 + i + round) * 1e-3 + 1.0 / (i + 1 + r));
        }
        return (r * 31L + i * 7 + round * 3) % 13 - 6;
    }

    private MemorySegment filled(DType d, long n, int r, long from, int round) {
        MemorySegment s = buffers.of(d, n);
        for (long i = 0; i < n; i++) {
            s.setAtIndex(L, i, input(d, r, from + i, round));
        }
        return s;
    }

    private static long[] longs(MemorySegment s, long n) {
        return s.asSlice(0, n * 8).toArray(ValueLayout.JAVA_LONG);
    }

    private void same(String what, long[] blocking, long[] nonBlocking) {
        if (!Arrays.equals(blocking, nonBlocking)) {
            if (what.contains("F64") && rank.team().processes() > 2 && close(blocking, nonBlocking)) {
                checks++;
                return;
            }
            throw new AssertionError(what + " on global rank " + g + ": the request's result " + Arrays.toString(nonBlocking)
                    + " is not bitwise the expected (the reference, or the blocking collective's) " + Arrays.toString(blocking));
        }
        checks++;
    }

    /** Element-wise within 1e-12 relative: the same sum of inexact values in another order. */
    private static boolean close(long[] a, long[] b) {
        for (int i = 0; i < a.length; i++) {
            double x = Double.longBitsToDouble(a[i]);
            double y = Double.longBitsToDouble(b[i]);
            if (!(Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(x), Math.abs(y)))) {
                return false;
            }
        }
        return a.length == b.length;
    }

    /** Every rank's result bitwise the same (an order MPI chose applies to every rank alike). */
    private void agreed(String what, long[] result) {
        Buffers.sameEverywhere(rank, Arrays.hashCode(result), what);
        checks++;
    }

    private void allreduce(DType d, Op op, long n, boolean inPlace) {
        MemorySegment in = filled(d, n, g, 0, 0);
        MemorySegment ref = buffers.of(d, n);
        rank.allreduce(in, ref, n, d, op);
        MemorySegment send = filled(d, n, g, 0, 0);
        MemorySegment recv = inPlace ? send : buffers.of(d, n);
        rank.iallreduce(send, recv, n, d, op).await();
        String what = "iallreduce " + d + " " + op + " n=" + n + (inPlace ? " in place" : "");
        same(what, longs(ref, n), longs(recv, n));
        agreed(what, longs(recv, n));
    }

    private void reduce(DType d, Op op, long n, int root, boolean inPlace) {
        MemorySegment in = filled(d, n, g, 0, 0);
        MemorySegment ref = buffers.of(d, n);
        rank.reduce(in, ref, n, d, op, root);
        MemorySegment send = filled(d, n, g, 0, 0);
        MemorySegment recv = inPlace && g == root ? send : buffers.of(d, n);
        rank.ireduce(send, recv, n, d, op, root).await();
        if (g == root) {
            same("ireduce " + d + " " + op + " n=" + n + " root " + root + (inPlace ? " in place" : ""), longs(ref, n),
                    longs(recv, n));
        }
    }

    private void reduceScatter(DType d, Op op, long n) {
        MemorySegment in = filled(d, n * p, g, 0, 0);
        MemorySegment ref = buffers.of(d, n);
        rank.reduceScatter(in, ref, n, d, op);
        MemorySegment recv = buffers.of(d, n);
        Request r = rank.ireduceScatter(in, recv, n, d, op);
        while (!r.isDone()) {
            Thread.onSpinWait();   // polling moves it as waiting does
        }
        same("ireduceScatter " + d + " " + op + " n=" + n, longs(ref, n), longs(recv, n));
    }

    private void allgather(DType d, long n, boolean inPlace) {
        MemorySegment ref = buffers.of(d, n * p);
        rank.allgather(filled(d, n, g, 0, 0), ref, n, d);
        MemorySegment recv = buffers.of(d, n * p);
        MemorySegment send = inPlace ? recv.asSlice(g * n * d.size(), n * d.size()) : filled(d, n, g, 0, 0);
        if (inPlace) {
            MemorySegment.copy(filled(d, n, g, 0, 0), 0, send, 0, n * d.size());
        }
        rank.iallgather(send, recv, n, d).await();
        same("iallgather " + d + " n=" + n + (inPlace ? " in place" : ""), longs(ref, n * p), longs(recv, n * p));
    }

    private void bcast(DType d, long n, int root) {
        MemorySegment buf = g == root ? filled(d, n, root, 0, 0) : buffers.of(d, n);
        rank.ibcast(buf, n, d, root).await();
        long[] want = new long[(int) n];
        for (int i = 0; i < n; i++) {
            want[i] = input(d, root, i, 0);
        }
        same("ibcast " + d + " n=" + n + " root " + root, want, longs(buf, n));
    }

    /** Rank r's send of an alltoall or scatter: element i of its n·p. */
    private MemorySegment filledWhole(DType d, long n, int r, int round) {
        return filled(d, n * p, r, 0, round);
    }

    /** The reference gather: block j is rank j's input. */
    private long[] gathered(DType d, long n, int round) {
        long[] want = new long[(int) (n * p)];
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < n; i++) {
                want[(int) (j * n + i)] = input(d, j, i, round);
            }
        }
        return want;
    }

    /** The reference scan (exclusive: exscan) of rank g, element-wise left fold over ranks 0..g (0..g−1). */
    private long[] scanned(DType d, Op op, long n, boolean exclusive, int round) {
        long[] want = new long[(int) n];
        int last = exclusive ? g - 1 : g;
        for (int i = 0; i < n; i++) {
            long acc = input(d, 0, i, round);
            for (int r = 1; r <= last; r++) {
                long x = input(d, r, i, round);
                acc = op == Op.MAX ? Math.max(acc, x) : acc + x;
            }
            want[i] = acc;
        }
        return want;
    }

    private void gather(DType d, long n, int root, boolean inPlace) {
        long es = d.size();
        MemorySegment recv = buffers.of(d, n * p);
        MemorySegment send = inPlace && g == root ? recv.asSlice(root * n * es, n * es) : buffers.of(d, n);
        MemorySegment.copy(filled(d, n, g, 0, 0), 0, send, 0, n * es);
        rank.igather(send, recv, n, d, root).await();
        if (g == root) {
            same("igather " + d + " n=" + n + " root " + root + (inPlace ? " in place" : ""), gathered(d, n, 0), longs(recv, n * p));
        }
    }

    private void scatter(DType d, long n, int root, boolean inPlace) {
        long es = d.size();
        MemorySegment send = g == root ? filledWhole(d, n, root, 0) : null;
        MemorySegment recv = inPlace && g == root ? send.asSlice(root * n * es, n * es) : buffers.of(d, n);
        Request r = rank.iscatter(send, recv, n, d, root);
        while (!r.isDone()) {
            Thread.onSpinWait();   // polling moves it as waiting does
        }
        long[] want = new long[(int) n];
        for (int i = 0; i < n; i++) {
            want[i] = input(d, root, g * n + i, 0);
        }
        same("iscatter " + d + " n=" + n + " root " + root + (inPlace ? " in place" : ""), want, longs(recv, n));
    }

    private void alltoall(DType d, long n, boolean inPlace) {
        MemorySegment send = filledWhole(d, n, g, 0);
        MemorySegment recv = inPlace ? send : buffers.of(d, n * p);
        rank.ialltoall(send, recv, n, d).await();
        long[] want = new long[(int) (n * p)];
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < n; i++) {
                want[(int) (j * n + i)] = input(d, j, g * n + i, 0);
            }
        }
        same("ialltoall " + d + " n=" + n + (inPlace ? " in place" : ""), want, longs(recv, n * p));
    }

    /**
     * iscan/iexscan: i64 against the reference left fold; f64 (inexact) bitwise the blocking call's (the same
     * local folds and the same ascending fold of the process totals) and the same bits on every rank.
     */
    private void scan(DType d, Op op, long n, boolean exclusive, boolean inPlace) {
        String what = (exclusive ? "iexscan " : "iscan ") + d + " " + op + " n=" + n + (inPlace ? " in place" : "");
        MemorySegment send = filled(d, n, g, 0, 0);
        MemorySegment recv = inPlace ? send : buffers.of(d, n);
        (exclusive ? rank.iexscan(send, recv, n, d, op) : rank.iscan(send, recv, n, d, op)).await();
        MemorySegment ref = d == DType.I64 ? null : buffers.of(d, n);
        if (ref != null && exclusive) {
            rank.exscan(filled(d, n, g, 0, 0), ref, n, d, op);   // every rank calls the blocking one
        } else if (ref != null) {
            rank.scan(filled(d, n, g, 0, 0), ref, n, d, op);
        }
        if (exclusive && g == 0) {
            return;   // rank 0's exscan result is undefined (MPI), not written
        }
        if (ref == null) {
            same(what, scanned(d, op, n, exclusive, 0), longs(recv, n));
            return;
        }
        long[] got = longs(recv, n);
        if (!Arrays.equals(longs(ref, n), got)) {
            throw new AssertionError(what + " on global rank " + g + ": " + Arrays.toString(got)
                    + " is not bitwise the blocking call's " + Arrays.toString(longs(ref, n)));
        }
        checks++;
    }

    /**
     * One request of each new collective outstanding at once (gather, scatter, alltoall, scan, exscan), a blocking
     * allreduce issued after them, awaited in reverse order, each checked against the reference.
     */
    private void restOutOfOrder(long n) {
        Buffers own = new Buffers(rank);   // fresh buffers: the ring would hand one out twice while all are in flight
        int root = p - 1;
        MemorySegment gRecv = own.of(DType.I64, n * p);
        MemorySegment gSend = own.of(DType.I64, n);
        MemorySegment.copy(filled(DType.I64, n, g, 0, 5), 0, gSend, 0, n * 8);
        MemorySegment sSend = own.of(DType.I64, n * p);
        MemorySegment.copy(filledWhole(DType.I64, n, 0, 5), 0, sSend, 0, n * p * 8);
        MemorySegment sRecv = own.of(DType.I64, n);
        MemorySegment aSend = own.of(DType.I64, n * p);
        MemorySegment.copy(filledWhole(DType.I64, n, g, 5), 0, aSend, 0, n * p * 8);
        MemorySegment aRecv = own.of(DType.I64, n * p);
        MemorySegment cBuf = own.of(DType.I64, n);
        MemorySegment.copy(filled(DType.I64, n, g, 0, 5), 0, cBuf, 0, n * 8);
        MemorySegment eSend = own.of(DType.I64, n);
        MemorySegment.copy(filled(DType.I64, n, g, 0, 5), 0, eSend, 0, n * 8);
        MemorySegment eRecv = own.of(DType.I64, n);
        Request rg = rank.igather(gSend, gRecv, n, DType.I64, root);
        Request rs = rank.iscatter(sSend, sRecv, n, DType.I64, 0);
        Request ra = rank.ialltoall(aSend, aRecv, n, DType.I64);
        Request rc = rank.iscan(cBuf, cBuf, n, DType.I64, Op.SUM);
        Request re = rank.iexscan(eSend, eRecv, n, DType.I64, Op.SUM);
        long[] x = {g};
        rank.allreduce(x, x, Op.SUM);   // a blocking collective while five requests are outstanding
        if (x[0] != (long) p * (p - 1) / 2) {
            throw new AssertionError("blocking allreduce between requests on global rank " + g + ": " + x[0]);
        }
        re.await();
        rc.await();
        ra.await();
        rs.await();
        rg.await();
        if (g == root) {
            same("igather awaited last", gathered(DType.I64, n, 5), longs(gRecv, n * p));
        }
        long[] sWant = new long[(int) n];
        long[] aWant = new long[(int) (n * p)];
        for (int i = 0; i < n; i++) {
            sWant[i] = input(DType.I64, 0, g * n + i, 5);
            for (int j = 0; j < p; j++) {
                aWant[(int) (j * n + i)] = input(DType.I64, j, g * n + i, 5);
            }
        }
        same("iscatter out of order", sWant, longs(sRecv, n));
        same("ialltoall out of order", aWant, longs(aRecv, n * p));
        same("iscan in place out of order", scanned(DType.I64, Op.SUM, n, false, 5), longs(cBuf, n));
        if (g > 0) {
            same("iexscan awaited first", scanned(DType.I64, Op.SUM, n, true, 5), longs(eRecv, n));
        }
    }

    // ---- the v-variants: uneven counts with zeros, blocks laid out in reverse rank order with gaps ----

    /** Rank r's count in a v-variant of size class n: uneven, zero for some ranks, all zero for n = 0. */
    private static long countOf(int r, int n) {
        return n == 0 ? 0 : (r * 3L + n) % 4;
    }

    private long[] countsOf(int n) {
        long[] c = new long[p];
        for (int r = 0; r < p; r++) {
            c[r] = countOf(r, n);
        }
        return c;
    }

    /** Packed displacements (prefix sums) of {@code counts}; [p] is the extent. */
    private static long[] packedLayout(long[] counts) {
        long[] d = new long[counts.length + 1];
        for (int r = 0; r < counts.length; r++) {
            d[r + 1] = d[r] + counts[r];
        }
        return d;
    }

    /** Displacements of blocks of {@code counts} in reverse rank order, one element apart; [p] is the extent. */
    private static long[] gapped(long[] counts) {
        long[] d = new long[counts.length + 1];
        long at = 0;
        for (int r = counts.length - 1; r >= 0; r--) {
            d[r] = at;
            at += counts[r] + 1;
        }
        d[counts.length] = at;
        return d;
    }

    /** The elements of {@code buf} at the blocks of {@code counts}/{@code displs}, block after block. */
    private static long[] blocks(MemorySegment buf, long[] counts, long[] displs) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        long[] out = new long[(int) total];
        int k = 0;
        for (int r = 0; r < counts.length; r++) {
            for (int i = 0; i < counts[r]; i++) {
                out[k++] = buf.getAtIndex(L, displs[r] + i);
            }
        }
        return out;
    }

    /** The reference: block r holds rank r's input {@code input(d, r, i)} (gatherv, allgatherv). */
    private static long[] eachOwn(DType d, long[] counts, int round) {
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        long[] out = new long[(int) total];
        int k = 0;
        for (int r = 0; r < counts.length; r++) {
            for (int i = 0; i < counts[r]; i++) {
                out[k++] = input(d, r, i, round);
            }
        }
        return out;
    }

    private void gatherv(DType d, int n, int root, boolean inPlace) {
        long[] counts = countsOf(n);
        long[] displs = gapped(counts);
        long mine = counts[g];
        MemorySegment recv = g == root ? buffers.of(d, displs[p]) : null;
        MemorySegment send = inPlace && g == root ? recv.asSlice(displs[g] * 8, mine * 8) : buffers.of(d, mine);
        MemorySegment.copy(filled(d, mine, g, 0, 0), 0, send, 0, mine * 8);
        long[] d0 = Arrays.copyOf(displs, p);
        rank.igatherv(send, mine, recv, g == root ? counts : null, g == root ? d0 : null, d, root).await();
        if (g == root) {
            same("igatherv " + d + " n=" + n + " root " + root + (inPlace ? " in place" : ""), eachOwn(d, counts, 0),
                    blocks(recv, counts, d0));
        }
    }

    private void scatterv(DType d, int n, int root, boolean inPlace) {
        long[] counts = countsOf(n);
        long[] displs = gapped(counts);
        long[] d0 = Arrays.copyOf(displs, p);
        long mine = counts[g];
        MemorySegment send = g == root ? filled(d, displs[p], root, 0, 0) : null;
        MemorySegment recv = inPlace && g == root ? send.asSlice(displs[g] * 8, mine * 8) : buffers.of(d, mine);
        Request r = rank.iscatterv(send, g == root ? counts : null, g == root ? d0 : null, recv, mine, d, root);
        while (!r.isDone()) {
            Thread.onSpinWait();
        }
        long[] want = new long[(int) mine];
        for (int i = 0; i < mine; i++) {
            want[i] = input(d, root, displs[g] + i, 0);
        }
        same("iscatterv " + d + " n=" + n + " root " + root + (inPlace ? " in place" : ""), want, longs(recv, mine));
    }

    private void allgatherv(DType d, int n, boolean inPlace) {
        long[] counts = countsOf(n);
        long[] displs = g % 2 == 0 ? gapped(counts) : packedLayout(counts);   // each rank's own layout
        long[] d0 = Arrays.copyOf(displs, p);
        long mine = counts[g];
        MemorySegment recv = buffers.of(d, displs[p]);
        MemorySegment send = inPlace ? recv.asSlice(displs[g] * 8, mine * 8) : buffers.of(d, mine);
        MemorySegment.copy(filled(d, mine, g, 0, 0), 0, send, 0, mine * 8);
        rank.iallgatherv(send, mine, recv, counts, d0, d).await();
        same("iallgatherv " + d + " n=" + n + (inPlace ? " in place" : ""), eachOwn(d, counts, 0), blocks(recv, counts, d0));
    }

    private void reduceScatterV(DType d, Op op, int n) {
        long[] counts = countsOf(n);
        long total = 0;
        for (long c : counts) {
            total += c;
        }
        MemorySegment send = filled(d, total, g, 0, 0);
        MemorySegment ref = buffers.of(d, counts[g]);
        rank.reduceScatterV(send, ref, counts, d, op);
        MemorySegment recv = buffers.of(d, counts[g]);
        rank.ireduceScatterV(send, recv, counts, d, op).await();
        same("ireduceScatterV " + d + " " + op + " n=" + n, longs(ref, counts[g]), longs(recv, counts[g]));
        if (d == DType.I64) {
            long at = 0;
            for (int r = 0; r < g; r++) {
                at += counts[r];
            }
            long[] want = new long[(int) counts[g]];
            for (int i = 0; i < want.length; i++) {
                long m = op == Op.MAX ? Long.MIN_VALUE : 0;
                for (int r = 0; r < p; r++) {
                    long x = input(d, r, at + i, 0);
                    m = op == Op.MAX ? Math.max(m, x) : m + x;
                }
                want[i] = m;
            }
            same("ireduceScatterV reference " + d + " " + op + " n=" + n, want, longs(recv, counts[g]));
        }
    }

    /** Elements rank {@code from} sends rank {@code to} in an alltoallv of size class n (symmetric when in place). */
    private static long pairCount(int from, int to, int n, boolean symmetric) {
        return n == 0 ? 0 : symmetric ? (from + to + n) % 4 : (from + 2L * to + n) % 4;
    }

    private void alltoallv(DType d, int n, boolean inPlace) {
        MemorySegment[] io = alltoallvBuffers(d, n, inPlace, 0, buffers);
        long[][] layout = alltoallvLayout(n, inPlace);
        rank.ialltoallv(io[0], layout[0], layout[1], io[1], layout[2], layout[3], d).await();
        same("ialltoallv " + d + " n=" + n + (inPlace ? " in place" : ""), alltoallvWant(d, n, inPlace, 0),
                blocks(io[1], layout[2], layout[3]));
    }

    /** {sendCounts, sendDispls, recvCounts, recvDispls} of this rank (in place: the same layout both ways). */
    private long[][] alltoallvLayout(int n, boolean inPlace) {
        long[] sc = new long[p];
        long[] rc = new long[p];
        for (int j = 0; j < p; j++) {
            sc[j] = pairCount(g, j, n, inPlace);
            rc[j] = pairCount(j, g, n, inPlace);
        }
        long[] sd = Arrays.copyOf(gapped(sc), p);
        long[] rd = inPlace ? sd : Arrays.copyOf(packedLayout(rc), p);
        return new long[][]{sc, sd, rc, rd};
    }

    /** This rank's send (block j: {@code input(d, g, j·1000 + i)}) and receive buffers (the same when in place). */
    private MemorySegment[] alltoallvBuffers(DType d, int n, boolean inPlace, int round, Buffers from) {
        long[][] l = alltoallvLayout(n, inPlace);
        long extent = 0;
        for (int j = 0; j < p; j++) {
            extent = Math.max(extent, l[1][j] + l[0][j]);
            extent = Math.max(extent, l[3][j] + l[2][j]);
        }
        MemorySegment send = from.of(d, extent);
        fillAlltoallv(send, d, n, inPlace, round);
        return new MemorySegment[]{send, inPlace ? send : from.of(d, extent)};
    }

    private void fillAlltoallv(MemorySegment send, DType d, int n, boolean inPlace, int round) {
        long[][] l = alltoallvLayout(n, inPlace);
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < l[0][j]; i++) {
                send.setAtIndex(L, l[1][j] + i, input(d, g, j * 1000L + i, round));
            }
        }
    }

    private long[] alltoallvWant(DType d, int n, boolean inPlace, int round) {
        long[][] l = alltoallvLayout(n, inPlace);
        long total = 0;
        for (long c : l[2]) {
            total += c;
        }
        long[] want = new long[(int) total];
        int k = 0;
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < l[2][j]; i++) {
                want[k++] = input(d, j, g * 1000L + i, round);
            }
        }
        return want;
    }

    /** One request of each v-variant outstanding at once, a blocking barrier after them, awaited in reverse order. */
    private void vectorOutOfOrder(int n) {
        Buffers own = new Buffers(rank);
        int root = p - 1;
        long[] counts = countsOf(n);
        long[] displs = gapped(counts);
        long[] d0 = Arrays.copyOf(displs, p);
        long mine = counts[g];
        MemorySegment gSend = own.of(DType.I64, mine);
        MemorySegment.copy(filled(DType.I64, mine, g, 0, 0), 0, gSend, 0, mine * 8);
        MemorySegment gRecv = own.of(DType.I64, displs[p]);
        MemorySegment sSend = own.of(DType.I64, displs[p]);
        MemorySegment.copy(filled(DType.I64, displs[p], 0, 0, 0), 0, sSend, 0, displs[p] * 8);
        MemorySegment sRecv = own.of(DType.I64, mine);
        MemorySegment aRecv = own.of(DType.I64, displs[p]);
        MemorySegment[] io = alltoallvBuffers(DType.I64, n, false, 0, own);
        long[][] l = alltoallvLayout(n, false);
        long total = displs[p] - p;
        MemorySegment rsSend = own.of(DType.I64, total);
        MemorySegment.copy(filled(DType.I64, total, g, 0, 0), 0, rsSend, 0, total * 8);
        MemorySegment rsRecv = own.of(DType.I64, mine);
        MemorySegment rsRef = own.of(DType.I64, mine);
        rank.reduceScatterV(rsSend, rsRef, counts, DType.I64, Op.SUM);
        Request rg = rank.igatherv(gSend, mine, gRecv, counts, d0, DType.I64, root);
        Request rs = rank.iscatterv(sSend, counts, d0, sRecv, mine, DType.I64, 0);
        Request ra = rank.iallgatherv(gSend, mine, aRecv, counts, d0, DType.I64);
        Request rv = rank.ialltoallv(io[0], l[0], l[1], io[1], l[2], l[3], DType.I64);
        Request rr = rank.ireduceScatterV(rsSend, rsRecv, counts, DType.I64, Op.SUM);
        rank.barrier();   // a blocking collective while five requests are outstanding
        rr.await();
        rv.await();
        ra.await();
        rs.await();
        rg.await();
        if (g == root) {
            same("igatherv awaited last", eachOwn(DType.I64, counts, 0), blocks(gRecv, counts, d0));
        }
        long[] sWant = new long[(int) mine];
        for (int i = 0; i < mine; i++) {
            sWant[i] = input(DType.I64, 0, displs[g] + i, 0);
        }
        same("iscatterv out of order", sWant, longs(sRecv, mine));
        same("iallgatherv out of order", eachOwn(DType.I64, counts, 0), blocks(aRecv, counts, d0));
        same("ialltoallv out of order", alltoallvWant(DType.I64, n, false, 0), blocks(io[1], l[2], l[3]));
        same("ireduceScatterV awaited first", longs(rsRef, mine), longs(rsRecv, mine));
    }

    /**
     * gathervInit (root off local rank 0 when T > 1), scattervInit, alltoallvInit, and init(plan, …) of an
     * allgatherv, started three times together with new inputs each round; each round against the reference.
     */
    private void persistentVector(int n) {
        Buffers own = new Buffers(rank);
        int root = p / 2;
        long[] counts = countsOf(n);
        long[] displs = gapped(counts);
        long[] d0 = Arrays.copyOf(displs, p);
        long mine = counts[g];
        MemorySegment gSend = own.of(DType.I64, mine);
        MemorySegment gRecv = own.of(DType.I64, displs[p]);
        MemorySegment sSend = own.of(DType.I64, displs[p]);
        MemorySegment sRecv = own.of(DType.I64, mine);
        MemorySegment aRecv = own.of(DType.I64, displs[p]);
        MemorySegment[] io = alltoallvBuffers(DType.I64, n, true, 1, own);
        long[][] l = alltoallvLayout(n, true);
        long[] sendCounts = new long[p];
        sendCounts[g] = mine;
        try (PersistentRequest gr = rank.gathervInit(gSend, mine, gRecv, counts, d0, DType.I64, root);
             PersistentRequest sr = rank.scattervInit(sSend, counts, d0, sRecv, mine, DType.I64, root);
             PersistentRequest vr = rank.alltoallvInit(io[0], l[0], l[1], io[1], l[2], l[3], DType.I64);
             PersistentRequest ar = rank.init(rank.plan(Collective.ALLGATHERV, 0, DType.I64, null), gSend, sendCounts, null,
                     aRecv, counts, d0)) {
            for (int round = 1; round <= 3; round++) {
                MemorySegment.copy(filled(DType.I64, mine, g, 0, round), 0, gSend, 0, mine * 8);
                MemorySegment.copy(filled(DType.I64, displs[p], root, 0, round), 0, sSend, 0, displs[p] * 8);
                fillAlltoallv(io[0], DType.I64, n, true, round);
                gr.start();
                sr.start();
                vr.start();
                ar.start();
                ar.await();
                vr.await();
                gr.await();
                sr.await();
                if (g == root) {
                    same("gathervInit round " + round, eachOwn(DType.I64, counts, round), blocks(gRecv, counts, d0));
                }
                long[] sWant = new long[(int) mine];
                for (int i = 0; i < mine; i++) {
                    sWant[i] = input(DType.I64, root, displs[g] + i, round);
                }
                same("scattervInit round " + round, sWant, longs(sRecv, mine));
                same("alltoallvInit in place round " + round, alltoallvWant(DType.I64, n, true, round),
                        blocks(io[1], l[2], l[3]));
                same("init(plan) allgatherv round " + round, eachOwn(DType.I64, counts, round), blocks(aRecv, counts, d0));
            }
        }
    }

    /**
     * Three requests outstanding, a blocking allreduce issued after them (local rank 0 posts their MPI calls
     * first), awaited in another order than issued; then one request per collective polled to completion
     * together.
     */
    private void outOfOrder(long n) {
        MemorySegment a = filled(DType.F64, n, g, 0, 1);
        MemorySegment aRef = buffers.of(DType.F64, n);
        rank.allreduce(a, aRef, n, DType.F64, Op.SUM);
        MemorySegment b = buffers.of(DType.I64, n * p);
        MemorySegment bRef = buffers.of(DType.I64, n * p);
        MemorySegment bSend = filled(DType.I64, n, g, 0, 1);
        rank.allgather(bSend, bRef, n, DType.I64);
        MemorySegment aOut = buffers.of(DType.F64, n);
        Request ra = rank.iallreduce(a, aOut, n, DType.F64, Op.SUM);
        Request rb = rank.iallgather(bSend, b, n, DType.I64);
        Request rc = rank.ibarrier();
        long[] x = {g};
        rank.allreduce(x, x, Op.SUM);   // a blocking collective while three requests are outstanding
        if (x[0] != (long) p * (p - 1) / 2) {
            throw new AssertionError("blocking allreduce between requests on global rank " + g + ": " + x[0]);
        }
        rb.await();
        rc.await();
        ra.await();
        same("iallreduce F64 awaited last", longs(aRef, n), longs(aOut, n));
        same("iallgather awaited first", longs(bRef, n * p), longs(b, n * p));
    }

    /**
     * A chain across processes: reduce-scatter → a local step doubling this rank's block → allgather, then a bcast
     * from the last rank (off local rank 0 when T > 1) → an in-place allreduce of what it delivered; each as the
     * blocking calls and the same step give.
     */
    private void chain(long n) {
        MemorySegment grad = filled(DType.F64, n * p, g, 0, 2);
        MemorySegment block = buffers.of(DType.F64, n);
        MemorySegment all = buffers.of(DType.F64, n * p);
        MemorySegment refBlock = buffers.of(DType.F64, n);
        MemorySegment ref = buffers.of(DType.F64, n * p);
        rank.reduceScatter(grad, refBlock, n, DType.F64, Op.SUM);
        doubled(refBlock, n);
        rank.allgather(refBlock, ref, n, DType.F64);
        MemorySegment buf = g == p - 1 ? filled(DType.F64, n, g, 0, 3) : buffers.of(DType.F64, n);
        MemorySegment refBuf = g == p - 1 ? filled(DType.F64, n, g, 0, 3) : buffers.of(DType.F64, n);
        rank.bcast(refBuf, n, DType.F64, p - 1);
        rank.allreduce(refBuf, refBuf, n, DType.F64, Op.SUM);
        Request r = rank.chain()
                .reduceScatter(grad, block, n, DType.F64, Op.SUM)
                .then(() -> doubled(block, n))
                .allgather(block, all, n, DType.F64)
                .bcast(buf, n, DType.F64, p - 1)
                .allreduce(buf, buf, n, DType.F64, Op.SUM)
                .start();
        r.await();
        same("chain reduceScatter-step-allgather F64 n=" + n, longs(ref, n * p), longs(all, n * p));
        same("chain bcast-allreduce F64 n=" + n, longs(refBuf, n), longs(buf, n));
    }

    private static void doubled(MemorySegment s, long n) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, 2 * s.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i));
        }
    }

    /** allreducePipelined in 3 chunks, each chunk's step doubling its elements: as the blocking allreduce doubled. */
    private void pipelined(long n) {
        MemorySegment send = filled(DType.F64, n, g, 0, 4);
        MemorySegment ref = buffers.of(DType.F64, n);
        rank.allreduce(send, ref, n, DType.F64, Op.SUM);
        doubled(ref, n);
        MemorySegment recv = buffers.of(DType.F64, n);
        long[] seen = {0};
        Request r = rank.chain().allreducePipelined(send, recv, n, DType.F64, Op.SUM, 3, (first, count) -> {
            doubled(recv.asSlice(first * 8, count * 8), count);
            seen[0] += count;
        }).start();
        while (!r.isDone()) {
            Thread.onSpinWait();
        }
        if (seen[0] != n) {
            throw new AssertionError("allreducePipelined on global rank " + g + ": the steps saw " + seen[0] + " of " + n);
        }
        same("allreducePipelined F64 n=" + n, longs(ref, n), longs(recv, n));
    }

    /**
     * gatherInit (root off local rank 0 when T > 1), scatterInit, init(plan) of an alltoall and of an exscan, and
     * scanInit, started three times together with new inputs each round; each round against the reference.
     */
    private void persistentRest(long n) {
        Buffers own = new Buffers(rank);
        int root = p / 2;
        MemorySegment gSend = own.of(DType.I64, n);
        MemorySegment gRecv = own.of(DType.I64, n * p);
        MemorySegment sSend = own.of(DType.I64, n * p);
        MemorySegment sRecv = own.of(DType.I64, n);
        MemorySegment aSend = own.of(DType.I64, n * p);
        MemorySegment aRecv = own.of(DType.I64, n * p);
        MemorySegment cSend = own.of(DType.I64, n);
        MemorySegment cRecv = own.of(DType.I64, n);
        MemorySegment eBuf = own.of(DType.I64, n);
        try (PersistentRequest gr = rank.gatherInit(gSend, gRecv, n, DType.I64, root);
             PersistentRequest sr = rank.scatterInit(sSend, sRecv, n, DType.I64, root);
             PersistentRequest ar = rank.init(rank.plan(Collective.ALLTOALL, n, DType.I64, null), aSend, aRecv);
             PersistentRequest cr = rank.scanInit(cSend, cRecv, n, DType.I64, Op.MAX);
             PersistentRequest er = rank.init(rank.plan(Collective.EXSCAN, n, DType.I64, Op.SUM), eBuf, eBuf)) {
            for (int round = 1; round <= 3; round++) {
                MemorySegment.copy(filled(DType.I64, n, g, 0, round), 0, gSend, 0, n * 8);
                MemorySegment.copy(filledWhole(DType.I64, n, root, round), 0, sSend, 0, n * p * 8);
                MemorySegment.copy(filledWhole(DType.I64, n, g, round), 0, aSend, 0, n * p * 8);
                MemorySegment.copy(filled(DType.I64, n, g, 0, round), 0, cSend, 0, n * 8);
                MemorySegment.copy(filled(DType.I64, n, g, 0, round), 0, eBuf, 0, n * 8);
                gr.start();
                sr.start();
                ar.start();
                cr.start();
                er.start();
                er.await();
                ar.await();
                gr.await();
                cr.await();
                sr.await();
                if (g == root) {
                    same("gatherInit round " + round, gathered(DType.I64, n, round), longs(gRecv, n * p));
                }
                long[] sWant = new long[(int) n];
                long[] aWant = new long[(int) (n * p)];
                for (int i = 0; i < n; i++) {
                    sWant[i] = input(DType.I64, root, g * n + i, round);
                    for (int j = 0; j < p; j++) {
                        aWant[(int) (j * n + i)] = input(DType.I64, j, g * n + i, round);
                    }
                }
                same("scatterInit round " + round, sWant, longs(sRecv, n));
                same("init(plan) alltoall round " + round, aWant, longs(aRecv, n * p));
                same("scanInit MAX round " + round, scanned(DType.I64, Op.MAX, n, false, round), longs(cRecv, n));
                if (g > 0) {
                    same("init(plan) exscan in place round " + round, scanned(DType.I64, Op.SUM, n, true, round), longs(eBuf, n));
                }
            }
        }
    }

    /** allreduceInit and init(plan) started three times, the input changed between rounds; results as blocking. */
    private void persistent(long n) {
        MemorySegment send = buffers.of(DType.F64, n);
        MemorySegment recv = buffers.of(DType.F64, n);
        MemorySegment planSend = buffers.of(DType.I64, n);
        MemorySegment planRecv = buffers.of(DType.I64, n);
        MemorySegment ref = buffers.of(DType.F64, n);
        try (PersistentRequest r = rank.allreduceInit(send, recv, n, DType.F64, Op.SUM);
             PersistentRequest q = rank.init(rank.plan(Collective.ALLREDUCE, n, DType.I64, Op.MAX), planSend, planRecv)) {
            for (int round = 1; round <= 3; round++) {
                for (long i = 0; i < n; i++) {
                    send.setAtIndex(L, i, input(DType.F64, g, i, round));
                    planSend.setAtIndex(L, i, input(DType.I64, g, i, round));
                }
                r.start();
                q.start();
                q.await();
                r.await();
                rank.allreduce(send, ref, n, DType.F64, Op.SUM);
                same("allreduceInit F64 round " + round, longs(ref, n), longs(recv, n));
                rank.allreduce(planSend, ref, n, DType.I64, Op.MAX);
                same("init(plan) round " + round, longs(ref, n), longs(planRecv, n));
            }
        }
    }
}
