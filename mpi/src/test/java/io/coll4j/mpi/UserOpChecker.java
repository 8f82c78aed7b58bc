package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One rank's side of the cross-process suite for {@link UserOp}s: allreduce (in place and not), reduce (roots
 * other than 0, in place and not), reduce-scatter, reduce-scatter-v, scan and exscan, counts 0, 1, 2p+1 and 1 MiB
 * (an allreduce: MPI calls the function more than once from 3 processes on), heap and native, with
 * <ul>
 *   <li>commutative ops, which MPI runs through an upcall: i64 {@code a + b + 2ab} (a product in disguise, so
 *       the function must really run: MPI_SUM would be wrong), the product of (i64, i64) complex numbers mod
 *       2^64 (a 16-byte element MPI must not cut) and an f64 sum;</li>
 *   <li>non-commutative ones, which fold in ascending global rank order: 2×2 int32 matrices (16 bytes) multiplied
 *       mod 2^32, and an f64 sum of inexact values declared non-commutative, whose bits only the left fold over
 *       global ranks 0, 1, … gives.</li>
 * </ul>
 * The exact ops' results do not depend on the association, so the reference is the left fold of the op's own
 * function over global ranks; every rank's result must also be bitwise the same (the inexact commutative sum).
 */
final class UserOpChecker {
    /** Calls of the f64 sum's range function in this process (with one rank per process: MPI's calls). */
    static final AtomicLong SUM_CALLS = new AtomicLong();
    /** The calls of the f64 sum's function during its 1 MiB allreduce in this process. */
    static volatile long bigSumCalls;

    /** Writes rank r's element i at element index {@code at} of {@code s}. */
    @FunctionalInterface
    interface Fill {
        void put(MemorySegment s, long at, long i, int r);
    }

    record Case(UserOp op, Fill fill) {
    }

    private final Rank rank;
    private final int g;
    private final int p;
    private final Buffers buffers;
    private int checks;
    /** The f64 sum's function calls in this process during the last allreduce (not its reference's). */
    private long lastSumCalls;

    UserOpChecker(Rank rank) {
        this.rank = rank;
        this.g = rank.id();
        this.p = rank.size();
        this.buffers = Buffers.reusing(rank, 4);   // at most two buffers per call, one of them native
    }

    /** Small integers, distinct per rank, index and lane. */
    private static int small(int r, long i, int lane) {
        return (int) ((r * 31L + i * 7 + lane * 5) % 13) - 6;
    }

    private static double inexact(int r, long i) {
        return Math.sin(r * 1000.0 + i) * 1e-3 + 1.0 / (i + 1 + r);
    }

    static List<Case> cases() {
        ValueLayout.OfLong l = ValueLayout.JAVA_LONG_UNALIGNED;
        ValueLayout.OfInt in = ValueLayout.JAVA_INT_UNALIGNED;
        UserOp disguisedProduct = UserOp.ofLongs("1+2x product", DType.I64, true, (a, b) -> a + b + 2 * a * b);
        UserOp complex = new UserOp("complex product", DType.I64_I64, true, (d, dOff, a, aOff, b, bOff, n) -> {
            for (long k = 0; k < n * 16; k += 16) {
                long ar = a.get(l, aOff + k), ai = a.get(l, aOff + k + 8);
                long br = b.get(l, bOff + k), bi = b.get(l, bOff + k + 8);
                d.set(l, dOff + k, ar * br - ai * bi);
                d.set(l, dOff + k + 8, ar * bi + ai * br);
            }
        });
        ValueLayout.OfDouble f = ValueLayout.JAVA_DOUBLE_UNALIGNED;
        UserOp sum = new UserOp("f64 sum", DType.F64, true, (d, dOff, a, aOff, b, bOff, n) -> {
            SUM_CALLS.incrementAndGet();
            for (long k = 0; k < n * 8; k += 8) {
                d.set(f, dOff + k, a.get(f, aOff + k) + b.get(f, bOff + k));
            }
        });
        UserOp matrix = new UserOp("2x2 matrix product", DType.I64_I64, false, (d, dOff, a, aOff, b, bOff, n) -> {
            for (long k = 0; k < n * 16; k += 16) {
                int a0 = a.get(in, aOff + k), a1 = a.get(in, aOff + k + 4), a2 = a.get(in, aOff + k + 8), a3 = a.get(in, aOff + k + 12);
                int b0 = b.get(in, bOff + k), b1 = b.get(in, bOff + k + 4), b2 = b.get(in, bOff + k + 8), b3 = b.get(in, bOff + k + 12);
                d.set(in, dOff + k, a0 * b0 + a1 * b2);
                d.set(in, dOff + k + 4, a0 * b1 + a1 * b3);
                d.set(in, dOff + k + 8, a2 * b0 + a3 * b2);
                d.set(in, dOff + k + 12, a2 * b1 + a3 * b3);
            }
        });
        UserOp orderedSum = UserOp.ofDoubles("ordered f64 sum", false, Double::sum);
        return List.of(
                new Case(disguisedProduct, (s, at, i, r) -> s.setAtIndex(l, at, small(r, i, 0))),
                new Case(complex, (s, at, i, r) -> {
                    s.setAtIndex(l, 2 * at, small(r, i, 0));
                    s.setAtIndex(l, 2 * at + 1, small(r, i, 1));
                }),
                new Case(sum, (s, at, i, r) -> s.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, small(r, i, 0))),
                new Case(matrix, (s, at, i, r) -> {
                    for (int lane = 0; lane < 4; lane++) {
                        s.setAtIndex(in, 4 * at + lane, small(r, i, lane));
                    }
                }),
                new Case(orderedSum, (s, at, i, r) -> s.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, inexact(r, i))));
    }

    int all() {
        for (Case c : cases()) {
            for (long n : new long[]{0, 1, 2L * p + 1}) {
                boolean odd = n % 2 == 1;
                allreduce(c, n, false);
                allreduce(c, n, true);
                reduce(c, n, p - 1, false);
                reduce(c, n, p / 2, true);
                reduceScatter(c, n);
                reduceScatterV(c, n);
                scan(c, n, false, odd);
                scan(c, n, true, !odd);
            }
            // 1 MiB: over SpanCheck's size; Open MPI calls the function once per step of its algorithm (seen: once
            // on 2 processes, on half the vector; twice on 3), and with T > 1 under MULTIPLE the multi-leader
            // allreduce runs it on every local rank's communicator at once
            allreduce(c, (1L << 20) / c.op().dtype().size(), false);
            if (c.op().name().equals("f64 sum")) {
                bigSumCalls = lastSumCalls;
            }
        }
        agreement();
        return checks;
    }

    /** Every rank's result of an inexact commutative f64 allreduce is bitwise the same. */
    private void agreement() {
        UserOp sum = cases().get(2).op();
        long n = 4097;
        MemorySegment x = buffers.of(DType.F64, n);
        for (long i = 0; i < n; i++) {
            x.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, inexact(g, i));
        }
        rank.allreduce(x, x, n, sum);
        Buffers.sameEverywhere(rank, java.util.Arrays.hashCode(x.toArray(ValueLayout.JAVA_DOUBLE_UNALIGNED)), "user-op allreduce");
        checks++;
    }

    /** Room for n elements holding this rank's elements 0..n-1. */
    private MemorySegment filled(Case c, long n) {
        MemorySegment s = buffers.of(c.op().dtype(), n);
        for (long i = 0; i < n; i++) {
            c.fill().put(s, i, i, g);
        }
        return s;
    }

    private void allreduce(Case c, long n, boolean inPlace) {
        MemorySegment send = filled(c, n);
        MemorySegment recv = inPlace ? send : buffers.of(c.op().dtype(), n);
        long before = SUM_CALLS.get();
        rank.allreduce(send, recv, n, c.op());
        lastSumCalls = SUM_CALLS.get() - before;
        expect("allreduce" + (inPlace ? " in place" : ""), c, recv, 0, n, 0, p - 1);
    }

    private void reduce(Case c, long n, int root, boolean inPlace) {
        MemorySegment send = filled(c, n);
        MemorySegment recv = g != root ? null : inPlace ? send : buffers.of(c.op().dtype(), n);
        rank.reduce(send, recv, n, c.op(), root);
        if (g == root) {
            expect("reduce root " + root + (inPlace ? " in place" : ""), c, recv, 0, n, 0, p - 1);
        }
    }

    private void reduceScatter(Case c, long n) {
        MemorySegment send = filled(c, n * p);
        MemorySegment recv = buffers.of(c.op().dtype(), n);
        rank.reduceScatter(send, recv, n, c.op());
        expect("reduce-scatter", c, recv, g * n, n, 0, p - 1);
    }

    private void reduceScatterV(Case c, long n) {
        long[] counts = new long[p];
        long at = 0;
        long total = 0;
        for (int r = 0; r < p; r++) {
            counts[r] = Math.max(0, n + (r % 3) - 1);
            at += r < g ? counts[r] : 0;
            total += counts[r];
        }
        MemorySegment send = filled(c, total);
        MemorySegment recv = buffers.of(c.op().dtype(), counts[g]);
        rank.reduceScatterV(send, recv, counts, c.op());
        expect("reduce-scatter-v", c, recv, at, counts[g], 0, p - 1);
    }

    private void scan(Case c, long n, boolean exclusive, boolean inPlace) {
        MemorySegment send = filled(c, n);
        MemorySegment recv = inPlace ? send : buffers.of(c.op().dtype(), n);
        if (exclusive) {
            rank.exscan(send, recv, n, c.op());
        } else {
            rank.scan(send, recv, n, c.op());
        }
        int last = exclusive ? g - 1 : g;
        if (last >= 0) {
            expect((exclusive ? "exscan" : "scan") + (inPlace ? " in place" : ""), c, recv, 0, n, 0, last);
        }
    }

    /**
     * Element i of {@code got} is the left fold of the op's function over global ranks {@code from..to} of element
     * {@code first + i}; a large result is sampled (every 61st element and the last).
     */
    private void expect(String what, Case c, MemorySegment got, long first, long n, int from, int to) {
        long size = c.op().dtype().size();
        MemorySegment acc = MemorySegment.ofArray(new long[(int) (size / 8)]);
        MemorySegment next = MemorySegment.ofArray(new long[(int) (size / 8)]);
        long step = n > 4096 ? 61 : 1;
        for (long i = 0; i < n; i = i + step < n || i == n - 1 ? i + step : n - 1) {
            c.fill().put(acc, 0, first + i, from);
            for (int r = from + 1; r <= to; r++) {
                c.fill().put(next, 0, first + i, r);
                c.op().function().apply(acc, 0, acc, 0, next, 0, 1);
            }
            if (MemorySegment.mismatch(got, i * size, (i + 1) * size, acc, 0, size) != -1) {
                throw new AssertionError("user op " + c.op().name() + " " + what + " count " + n + ": global rank " + g
                        + " element " + i + " differs from the left fold over global ranks " + from + ".." + to);
            }
        }
        checks++;
    }
}
