package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One rank's side of the cross-process suite for what goes beyond the core four dtypes and ops: u32 and u64
 * (every op), f16 and bf16 (sum, prod, min, max), the four (value, index) pairs (minloc, maxloc), AVG on every
 * non-pair type, and f32/f64 min/max on NaN and signed zeros — through allreduce (in place and not), reduce,
 * reduce-scatter, reduce-scatter-v, scan, exscan, bcast and allgather, counts 0, 1, odd and not divisible by
 * the rank count, heap and native.
 *
 * <p>The inputs make every fold order give the same result, so the reference is the left fold over global
 * ranks ({@link ScalarReference}, then {@link Averages} for AVG) whatever order MPI combines in: integers wrap
 * (associative); MIN, MAX, MINLOC and MAXLOC pick an operand; for f16/bf16 SUM and PROD (and the f32/f64
 * sums of AVG) only two ranks hold a value per element and the others the neutral +0 or 1, so each result
 * is one rounding of {@code x op y} — which checks the shim's conversions and its round-to-nearest-even
 * against Java's. Every allreduce result must also be bitwise the same on every rank.
 */
final class EveryDtypeChecker {
    private static final short F16_NAN = 0x7e00;
    private static final short BF16_NAN = 0x7fc0;

    private final Rank rank;
    private final int g;
    private final int p;
    private int checks;
    private final Buffers buffers;
    /** A hash of every allreduce result, compared across ranks at the end. */
    private long agreement;
    /** Under reproducible(true): every rank contributes an inexact value, so only the ascending fold is right. */
    private boolean inexact;

    EveryDtypeChecker(Rank rank) {
        this.rank = rank;
        this.g = rank.id();
        this.p = rank.size();
        this.buffers = new Buffers(rank);
    }

    int all() {
        for (DType d : DType.values()) {
            for (Op op : ops(d)) {
                for (long n : counts()) {
                    boolean odd = n % 2 == 1;
                    allreduce(d, op, n, false);
                    allreduce(d, op, n, true);
                    reduce(d, op, n, odd ? 0 : p - 1, odd);
                    reduceScatter(d, op, n);
                    reduceScatterV(d, op, n);
                    scan(d, op, n, odd);
                }
            }
            if (d.isHalf() || d.isPair() || d.isUnsigned()) {
                for (long n : counts()) {
                    bcast(d, n, (int) (n % p));
                    allgather(d, n, n % 2 == 0);
                }
            }
        }
        // large enough for several MPI messages and, with T > 1 under MULTIPLE, the multi-leader allreduce
        allreduce(DType.BF16, Op.SUM, (1L << 20) / 2, false);
        allreduce(DType.F64_I64, Op.MAXLOC, (1L << 20) / 16, true);
        allreduce(DType.U64, Op.AVG, (1L << 20) / 8, false);
        Buffers.sameEverywhere(rank, agreement, "allreduce of every other dtype and op");
        return checks + 1;
    }

    /**
     * reproducible(true): f16 and bf16 sums and averages and f64 averages of inexact inputs from every rank are
     * bitwise the left fold over global ranks in ascending order (the reference).
     */
    int reproducible() {
        inexact = true;
        for (DType d : new DType[]{DType.F16, DType.BF16, DType.F64}) {
            for (Op op : d == DType.F64 ? new Op[]{Op.AVG} : new Op[]{Op.SUM, Op.AVG}) {
                for (long n : counts()) {
                    allreduce(d, op, n, n == 1);
                    reduce(d, op, n, p - 1, false);
                    reduceScatter(d, op, n);
                }
            }
        }
        return checks;
    }

    /** 0, 1, and 2p + 1: odd and not divisible by the rank count. */
    private long[] counts() {
        return new long[]{0, 1, 2L * p + 1};
    }

    /** The (dtype, op) pairs beyond the core suite's (which runs f32/f64/i32/i64 with every op but AVG). */
    private static List<Op> ops(DType d) {
        List<Op> ops = new ArrayList<>();
        for (Op op : Op.values()) {
            boolean core = d == DType.F32 || d == DType.F64 || d == DType.I32 || d == DType.I64;
            // f32/f64 MIN and MAX again: on NaN and signed zeros here, which the core suite's integers never reach
            boolean coreAgain = op == Op.AVG || (d.isFloating() && (op == Op.MIN || op == Op.MAX));
            if (op != Op.USER && op.supports(d) && (!core || coreAgain)) {
                ops.add(op);
            }
        }
        return ops;
    }

    // ---------------------------------------------------------------- inputs and the reference

    private static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    private static long random(int r, long i, long salt) {
        return mix(mix(r * 0x9e3779b97f4a7c15L + i) + salt);
    }

    /** Global rank r's element i (a non-pair type), as ScalarReference's raw bits. */
    private long input(DType d, Op op, int r, long i) {
        long x = random(r, i, op.ordinal());
        if (inexact) {
            return d.isHalf() ? half(d, x) : Double.doubleToRawLongBits(CrossProcessDriver.Checker.inexact(r, i));
        }
        boolean twoRanks = (d.isHalf() && op != Op.MIN && op != Op.MAX) || (op == Op.AVG && d.isFloating());
        if (twoRanks) {
            // rank i % p holds x, rank (i + 1) % p holds y, every other rank the neutral element: one rounding
            long a = i % p;
            long b = (i + 1) % p;
            if (r != a && r != b) {
                return neutral(d, op);
            }
            return d.isHalf() ? half(d, random(r, i, 7)) : exactSmall(d, x);
        }
        if (d.isFloating()) {
            return special(d, x);   // MIN and MAX
        }
        return d.size() == 4 ? (int) x : x;   // wrapping integers: any bits, any order
    }

    private static long neutral(DType d, Op op) {
        if (op != Op.PROD) {
            return 0;   // +0: x + (+0) is x, and a sum of zeros is +0 in any order
        }
        return d == DType.F16 ? 0x3c00 : 0x3f80;   // 1.0
    }

    /** Small integers in f32/f64 (sums exact in any order). */
    private static long exactSmall(DType d, long x) {
        double v = Math.floorMod(x, 13) - 6;
        return d == DType.F32 ? Float.floatToRawIntBits((float) v) : Double.doubleToRawLongBits(v);
    }

    /** A half with a moderate exponent (so sums and products round), or now and then any bits (subnormals, inf, NaN). */
    private static long half(DType d, long x) {
        int bits;
        if ((x & 15) == 0) {
            bits = (int) (x >>> 8) & 0xffff;
        } else if (d == DType.F16) {
            bits = (int) ((x >>> 8) & 0x83ff) | (int) (10 + Math.floorMod(x >>> 32, 11)) << 10;
        } else {
            bits = (int) ((x >>> 8) & 0x807f) | (int) (120 + Math.floorMod(x >>> 32, 15)) << 7;
        }
        return canonical(d, (short) bits);
    }

    /** One NaN pattern per type: MIN/MAX return an operand and sums a NaN operand, so every rank's bits agree. */
    private static long canonical(DType d, short bits) {
        boolean nan = d == DType.F16 ? (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0
                : (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
        return nan ? (d == DType.F16 ? F16_NAN : BF16_NAN) : bits;
    }

    /** NaN, ±0, ±inf, ±1, 2 or a random finite value, for MIN and MAX. */
    private static long special(DType d, long x) {
        int pick = (int) Math.floorMod(x, 10);
        double v = switch (pick) {
            case 0 -> Double.NaN;
            case 1 -> -0.0;
            case 2 -> 0.0;
            case 3 -> Double.NEGATIVE_INFINITY;
            case 4 -> Double.POSITIVE_INFINITY;
            case 5 -> 1;
            case 6 -> -1;
            case 7 -> 2;
            default -> (x >>> 40) * 0x1p-12 - 1000;
        };
        return switch (d) {
            case F64 -> Double.doubleToRawLongBits(v);
            case F32 -> Float.floatToRawIntBits((float) v);
            default -> v != v ? canonical(d, d == DType.F16 ? F16_NAN : BF16_NAN)
                    : d == DType.F16 ? Float.floatToFloat16((float) v) : Float.floatToRawIntBits((float) v) >>> 16;
        };
    }

    /** Global rank r's pair i, into {@code s} at byte {@code at}: values with many ties, indices 0..3 (ties too). */
    private static void pair(DType d, int r, long i, MemorySegment s, long at) {
        long x = random(r, i, 99);
        int pick = (int) Math.floorMod(x, 7);
        long index = Math.floorMod(x >>> 20, 4);
        switch (d) {
            case F32_I32, F64_I64 -> {
                double v = new double[]{Double.NaN, -0.0, 0.0, 1, -1, 2, Double.NEGATIVE_INFINITY}[pick];
                if (d == DType.F32_I32) {
                    s.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, (float) v);
                    s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) index);
                } else {
                    s.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v);
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
                }
            }
            default -> {
                long v = new long[]{-1, 0, 1, 2, Long.MIN_VALUE, Long.MAX_VALUE, 0}[pick];
                if (d == DType.I32_I32) {
                    s.set(ValueLayout.JAVA_INT_UNALIGNED, at, (int) (v >> (pick >= 4 ? 32 : 0)));
                    s.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) index);
                } else {
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v);
                    s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
                }
            }
        }
    }

    /** Rank r's elements from..from+n-1 into {@code s}. */
    private void fill(MemorySegment s, DType d, Op op, int r, long from, long n) {
        for (long i = 0; i < n; i++) {
            if (d.isPair()) {
                pair(d, r, from + i, s, i * d.size());
            } else {
                ScalarReference.set(d, s, i * d.size(), input(d, op, r, from + i));
            }
        }
    }

    /** The left fold of element i over global ranks 0..last into {@code out} (one element), divided for AVG. */
    private void reference(DType d, Op op, long i, int last, MemorySegment out) {
        MemorySegment x = MemorySegment.ofArray(new long[2]).asSlice(0, d.size());
        fill(out, d, op, 0, i, 1);
        for (int r = 1; r <= last; r++) {
            fill(x, d, op, r, i, 1);
            ScalarReference.apply(d, op, out, 0, out, 0, x, 0);
        }
        if (op == Op.AVG) {
            Averages.divide(d, out, 0, 1, last + 1L);
        }
    }

    private void expect(String what, MemorySegment got, DType d, Op op, long n, long first, int last) {
        MemorySegment want = MemorySegment.ofArray(new long[2]).asSlice(0, d.size());
        for (long i = 0; i < n; i++) {
            reference(d, op, first + i, last, want);
            MemorySegment at = got.asSlice(i * d.size(), d.size());
            boolean same = d.isPair() ? at.mismatch(want) < 0
                    : ScalarReference.same(d, ScalarReference.get(d, want, 0), ScalarReference.get(d, at, 0));
            if (!same) {
                throw new AssertionError(what + " " + d.cliName() + " " + op.cliName() + " count " + n + ": global rank " + g
                        + " element " + i + " is " + hex(at) + ", expected " + hex(want));
            }
        }
        checks++;
    }

    private static String hex(MemorySegment s) {
        StringBuilder b = new StringBuilder();
        for (long i = s.byteSize() - 1; i >= 0; i--) {
            b.append(String.format("%02x", s.get(ValueLayout.JAVA_BYTE, i)));
        }
        return b.toString();
    }

    private MemorySegment buffer(DType d, long n) {
        return buffers.of(d, n);
    }

    // ---------------------------------------------------------------- the collectives

    private void allreduce(DType d, Op op, long n, boolean inPlace) {
        MemorySegment send = buffer(d, n);
        fill(send, d, op, g, 0, n);
        MemorySegment recv = inPlace ? send : buffer(d, n);
        rank.allreduce(send, recv, n, d, op);
        expect("allreduce" + (inPlace ? " in place" : ""), recv, d, op, n, 0, p - 1);
        agreement = agreement * 31 + Arrays.hashCode(recv.toArray(ValueLayout.JAVA_BYTE));
    }

    private void reduce(DType d, Op op, long n, int root, boolean inPlace) {
        MemorySegment send = buffer(d, n);
        fill(send, d, op, g, 0, n);
        MemorySegment recv = g != root ? null : inPlace ? send : buffer(d, n);
        rank.reduce(send, recv, n, d, op, root);
        if (g == root) {
            expect("reduce root " + root + (inPlace ? " in place" : ""), recv, d, op, n, 0, p - 1);
        }
    }

    private void reduceScatter(DType d, Op op, long n) {
        MemorySegment send = buffer(d, n * p);
        fill(send, d, op, g, 0, n * p);
        MemorySegment recv = buffer(d, n);
        rank.reduceScatter(send, recv, n, d, op);
        expect("reduce-scatter", recv, d, op, n, g * n, p - 1);
    }

    private void reduceScatterV(DType d, Op op, long n) {
        long[] c = new long[p];
        long at = 0;
        for (int r = 0; r < p; r++) {
            c[r] = Math.max(0, n + (r % 3) - 1);
            at += r < g ? c[r] : 0;
        }
        long total = Arrays.stream(c).sum();
        MemorySegment send = buffer(d, total);
        fill(send, d, op, g, 0, total);
        MemorySegment recv = buffer(d, c[g]);
        rank.reduceScatterV(send, recv, c, d, op);
        expect("reduce-scatter-v", recv, d, op, c[g], at, p - 1);
    }

    private void scan(DType d, Op op, long n, boolean exclusive) {
        MemorySegment send = buffer(d, n);
        fill(send, d, op, g, 0, n);
        MemorySegment recv = buffer(d, n);
        if (exclusive) {
            rank.exscan(send, recv, n, d, op);
        } else {
            rank.scan(send, recv, n, d, op);
        }
        int last = exclusive ? g - 1 : g;
        if (last >= 0) {
            expect(exclusive ? "exscan" : "scan", recv, d, op, n, 0, last);
        }
    }

    /** Random bytes: the data-movement collectives must move every bit of every type, NaN payloads included. */
    private static void bytes(MemorySegment s, int r, long from) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) random(r, from + i, 5));
        }
    }

    private void expectBytes(String what, MemorySegment got, int r, long from) {
        MemorySegment want = MemorySegment.ofArray(new byte[(int) got.byteSize()]);
        bytes(want, r, from);
        if (got.mismatch(want) >= 0) {
            throw new AssertionError(what + ": global rank " + g + " differs from rank " + r + "'s bytes at byte "
                    + got.mismatch(want));
        }
        checks++;
    }

    private void bcast(DType d, long n, int root) {
        MemorySegment buf = buffer(d, n);
        if (g == root) {
            bytes(buf, root, 0);
        }
        rank.bcast(buf, n, d, root);
        expectBytes("bcast " + d.cliName() + " count " + n, buf, root, 0);
    }

    private void allgather(DType d, long n, boolean inPlace) {
        long block = n * d.size();
        MemorySegment recv = buffer(d, n * p);
        MemorySegment send = inPlace ? recv.asSlice(g * block, block) : buffer(d, n);
        bytes(send, g, 0);
        rank.allgather(send, recv, n, d);
        for (int r = 0; r < p; r++) {
            expectBytes("allgather " + d.cliName() + " count " + n + (inPlace ? " in place" : ""), recv.asSlice(r * block, block), r, 0);
        }
    }
}
