package io.coll4j.bindings.copy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The C kernels against plain Java loops, bitwise (NaN as any NaN), including ±0.0, ±∞, subnormals and overflow. */
class NativeReduceTest {

    private static final int[] COUNTS = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 100, 511, 512, 513, 1027};
    private static final int MAX = 1027;
    private static final ValueLayout[] LAYOUT = {
            ValueLayout.JAVA_FLOAT, ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG};
    private static final int[] SIZE = {4, 8, 4, 8};

    @BeforeAll
    static void needsLibrary() {
        assumeTrue(NativeReduce.available(), () -> "libcoll4j.so not loaded: " + NativeLibrary.unavailableReason().orElse(""));
    }

    /** The Java definition of a op b on raw element bits (float bits for F32/F64). */
    static long expected(int dtype, int op, long a, long b) {
        return switch (dtype) {
            case NativeReduce.F32 -> {
                float x = Float.intBitsToFloat((int) a), y = Float.intBitsToFloat((int) b);
                float r = switch (op) {
                    case NativeReduce.SUM -> x + y;
                    case NativeReduce.PROD -> x * y;
                    case NativeReduce.MIN -> Math.min(x, y);
                    case NativeReduce.MAX -> Math.max(x, y);
                    default -> throw new AssertionError(op);
                };
                yield Float.floatToRawIntBits(r) & 0xFFFF_FFFFL;
            }
            case NativeReduce.F64 -> {
                double x = Double.longBitsToDouble(a), y = Double.longBitsToDouble(b);
                double r = switch (op) {
                    case NativeReduce.SUM -> x + y;
                    case NativeReduce.PROD -> x * y;
                    case NativeReduce.MIN -> Math.min(x, y);
                    case NativeReduce.MAX -> Math.max(x, y);
                    default -> throw new AssertionError(op);
                };
                yield Double.doubleToRawLongBits(r);
            }
            case NativeReduce.I32 -> {
                int x = (int) a, y = (int) b;
                int r = switch (op) {
                    case NativeReduce.SUM -> x + y;
                    case NativeReduce.PROD -> x * y;
                    case NativeReduce.MIN -> Math.min(x, y);
                    case NativeReduce.MAX -> Math.max(x, y);
                    case NativeReduce.BAND -> x & y;
                    case NativeReduce.BOR -> x | y;
                    case NativeReduce.BXOR -> x ^ y;
                    default -> throw new AssertionError(op);
                };
                yield r & 0xFFFF_FFFFL;
            }
            default -> switch (op) {
                case NativeReduce.SUM -> a + b;
                case NativeReduce.PROD -> a * b;
                case NativeReduce.MIN -> Math.min(a, b);
                case NativeReduce.MAX -> Math.max(a, b);
                case NativeReduce.BAND -> a & b;
                case NativeReduce.BOR -> a | b;
                case NativeReduce.BXOR -> a ^ b;
                default -> throw new AssertionError(op);
            };
        };
    }

    private static final float[] F32_SPECIAL = {Float.NaN, Float.intBitsToFloat(0x7fc01234), Float.intBitsToFloat(0xffc00001),
            0.0f, -0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE, -Float.MIN_VALUE,
            Float.MAX_VALUE, -Float.MAX_VALUE, 1.0f, -1.0f, 3.5f};
    private static final double[] F64_SPECIAL = {Double.NaN, Double.longBitsToDouble(0x7ff8_0000_0000_1234L),
            Double.longBitsToDouble(0xfff8_0000_0000_0001L), 0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0, -1.0, 3.5};
    private static final long[] INT_SPECIAL = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE, 0x5555_5555_5555_5555L};

    /** Random values with every special value paired with every other somewhere in the first elements. */
    private static void fill(int dtype, MemorySegment s, long seed, boolean first) {
        Random r = new Random(seed);
        int specials = switch (dtype) {
            case NativeReduce.F32 -> F32_SPECIAL.length;
            case NativeReduce.F64 -> F64_SPECIAL.length;
            default -> INT_SPECIAL.length;
        };
        for (int i = 0; i < MAX; i++) {
            // pairs (special[i / n], special[i % n]) over the first n*n elements
            int idx = i < specials * specials ? (first ? i / specials : i % specials) : -1;
            switch (dtype) {
                case NativeReduce.F32 -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i,
                        idx >= 0 ? F32_SPECIAL[idx] : (float) (r.nextGaussian() * 100));
                case NativeReduce.F64 -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i,
                        idx >= 0 ? F64_SPECIAL[idx] : r.nextGaussian() * 1e6);
                case NativeReduce.I32 -> s.setAtIndex(ValueLayout.JAVA_INT, i, idx >= 0 ? (int) INT_SPECIAL[idx] : r.nextInt());
                default -> s.setAtIndex(ValueLayout.JAVA_LONG, i, idx >= 0 ? INT_SPECIAL[idx] : r.nextLong());
            }
        }
    }

    /**
     * Equal bits, except that any NaN equals any NaN: Java does not define the payload of a NaN result
     * (JLS §4.2.3; C2 may swap the operands of a commutative add, and x86 returns the first NaN
     * operand), so comparing payloads would test the JIT, not the kernel. ±0.0 are still told apart.
     */
    static boolean same(int dtype, long got, long want) {
        return switch (dtype) {
            case NativeReduce.F32 -> got == want || (Float.isNaN(Float.intBitsToFloat((int) got)) && Float.isNaN(Float.intBitsToFloat((int) want)));
            case NativeReduce.F64 -> got == want || (Double.isNaN(Double.longBitsToDouble(got)) && Double.isNaN(Double.longBitsToDouble(want)));
            default -> got == want;
        };
    }

    static long bits(int dtype, MemorySegment s, long i) {
        return SIZE[dtype] == 4 ? s.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL : s.getAtIndex(ValueLayout.JAVA_LONG, i);
    }

    private static MemorySegment allocate(Arena arena, boolean heap, int dtype) {
        return heap ? MemorySegment.ofArray(new long[MAX]) : arena.allocate((long) MAX * SIZE[dtype] + 8);
    }

    @Test
    void everyDtypeAndOpMatchesJava() {
        try (Arena arena = Arena.ofConfined()) {
            for (boolean heap : new boolean[]{false, true}) {
                for (int dtype = NativeReduce.F32; dtype <= NativeReduce.I64; dtype++) {
                    int ops = dtype <= NativeReduce.F64 ? NativeReduce.MAX : NativeReduce.BXOR;
                    for (int op = NativeReduce.SUM; op <= ops; op++) {
                        MemorySegment a = allocate(arena, heap, dtype);
                        MemorySegment b = allocate(arena, heap, dtype);
                        MemorySegment dst = allocate(arena, heap, dtype);
                        fill(dtype, a, 11 + dtype, true);
                        fill(dtype, b, 23 + op, false);
                        for (int count : COUNTS) {
                            dst.fill((byte) 0x5A);
                            NativeReduce.reduce(dtype, op, dst, a, b, count);
                            for (int i = 0; i < count; i++) {
                                long want = expected(dtype, op, bits(dtype, a, i), bits(dtype, b, i));
                                if (!same(dtype, bits(dtype, dst, i), want)) {
                                    throw new AssertionError("dtype " + dtype + " op " + op + " count " + count + " ["
                                            + i + "]: " + Long.toHexString(bits(dtype, a, i)) + " op "
                                            + Long.toHexString(bits(dtype, b, i)) + " = " + Long.toHexString(bits(dtype, dst, i))
                                            + ", Java: " + Long.toHexString(want) + (heap ? " (heap)" : ""));
                                }
                            }
                            // nothing past count
                            long end = (long) count * SIZE[dtype];
                            for (long j = end; j < Math.min(end + 16, dst.byteSize()); j++) {
                                if (dst.get(ValueLayout.JAVA_BYTE, j) != 0x5A) {
                                    throw new AssertionError("wrote past count " + count + " at byte " + j);
                                }
                            }
                        }
                        // in place: dst is a, then b
                        for (MemorySegment alias : new MemorySegment[]{a, b}) {
                            MemorySegment copyA = arena.allocate(a.byteSize());
                            MemorySegment copyB = arena.allocate(b.byteSize());
                            copyA.copyFrom(a);
                            copyB.copyFrom(b);
                            NativeReduce.reduce(dtype, op, alias, a, b, MAX);
                            for (int i = 0; i < MAX; i++) {
                                long want = expected(dtype, op, bits(dtype, copyA, i), bits(dtype, copyB, i));
                                if (!same(dtype, bits(dtype, alias, i), want)) {
                                    throw new AssertionError("in place, dtype " + dtype + " op " + op + " [" + i + "]");
                                }
                            }
                            a.copyFrom(copyA);
                            b.copyFrom(copyB);
                        }
                    }
                }
            }
        }
    }

    @Test
    void reduceManySumF64IsTheLeftFold() {
        Random r = new Random(5);
        int[] counts = {0, 1, 7, 511, 512, 513, 2000};
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] srcs = new MemorySegment[16];
            for (int j = 0; j < srcs.length; j++) {
                srcs[j] = arena.allocate(2000 * 8L, 64);
                for (int i = 0; i < 2000; i++) {
                    // magnitudes spread over many binades: a different order of additions would round differently
                    double v = i < F64_SPECIAL.length && j == 3 ? F64_SPECIAL[i] : r.nextGaussian() * Math.scalb(1.0, r.nextInt(60) - 30);
                    srcs[j].setAtIndex(ValueLayout.JAVA_DOUBLE, i, v);
                }
            }
            MemorySegment dst = arena.allocate(2000 * 8L + 8);
            for (int k = 1; k <= 16; k++) {
                for (int count : counts) {
                    dst.fill((byte) 0x11);
                    NativeReduce.reduceManySumF64(dst, srcs, k, count);
                    for (int i = 0; i < count; i++) {
                        double want = srcs[0].getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                        for (int j = 1; j < k; j++) {
                            want += srcs[j].getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                        }
                        long got = dst.getAtIndex(ValueLayout.JAVA_LONG, i);
                        if (!same(NativeReduce.F64, got, Double.doubleToRawLongBits(want))) {
                            throw new AssertionError("k " + k + " count " + count + " [" + i + "]: " + Double.longBitsToDouble(got) + " != " + want);
                        }
                    }
                    assertTrue(dst.get(ValueLayout.JAVA_BYTE, count * 8L) == 0x11, "wrote past count");
                }
            }
            // dst aliasing a source exactly
            MemorySegment keep = arena.allocate(srcs[2].byteSize());
            keep.copyFrom(srcs[2]);
            double[] want = new double[2000];
            for (int i = 0; i < 2000; i++) {
                for (int j = 0; j < 5; j++) {
                    want[i] = j == 0 ? srcs[0].getAtIndex(ValueLayout.JAVA_DOUBLE, i) : want[i] + srcs[j].getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                }
            }
            NativeReduce.reduceManySumF64(srcs[2], srcs, 5, 2000);
            for (int i = 0; i < 2000; i++) {
                if (!same(NativeReduce.F64, srcs[2].getAtIndex(ValueLayout.JAVA_LONG, i), Double.doubleToRawLongBits(want[i]))) {
                    throw new AssertionError("in place [" + i + "]");
                }
            }
            srcs[2].copyFrom(keep);
        }
    }

    @Test
    void badInputIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(1024);
            MemorySegment t = arena.allocate(1024);
            MemorySegment u = arena.allocate(1024);
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(NativeReduce.F64, NativeReduce.BXOR, s, t, u, 1));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(4, NativeReduce.SUM, s, t, u, 1));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(NativeReduce.I32, 7, s, t, u, 1));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(NativeReduce.I32, NativeReduce.SUM, s, t, u, -1));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(NativeReduce.I64, NativeReduce.SUM, s, t, u, 129));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduce(NativeReduce.I64, NativeReduce.SUM, s.asReadOnly(), t, u, 1));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> NativeReduce.reduce(NativeReduce.I64, NativeReduce.SUM, s.asSlice(8), s, u, 10));
            assertTrue(e.getMessage().contains("overlap"), e.getMessage());
            MemorySegment heap = MemorySegment.ofArray(new double[128]);
            e = assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduceManySumF64(s, new MemorySegment[]{t, heap}, 2, 128));
            assertTrue(e.getMessage().contains("srcs[1]"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduceManySumF64(s, new MemorySegment[]{t, u}, 3, 128));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduceManySumF64(s, new MemorySegment[]{t, u}, 0, 128));
            assertThrows(IllegalArgumentException.class, () -> NativeReduce.reduceManySumF64(s.asSlice(8), new MemorySegment[]{s, u}, 2, 100));
            assertTrue(NativeReduce.isa().matches("avx512|avx2|x86-64"), NativeReduce.isa());
        }
    }
}
