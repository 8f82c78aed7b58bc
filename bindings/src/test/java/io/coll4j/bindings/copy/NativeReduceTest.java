package io.coll4j.bindings.copy;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The C comparison kernels equal plain Java loops, including NaN and ±0.0 for MIN/MAX (Math.min/max semantics). */
class NativeReduceTest {
    static final double[] SPECIAL = {Double.NaN, -0.0, 0.0, 1.5, -2.5, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE};

    @Test
    void everyDtypeAndOpMatchesJava() {
        assumeTrue(NativeReduce.available(), NativeLibrary.status());
        SplittableRandom rnd = new SplittableRandom(3);
        for (int n : new int[]{0, 1, 7, 64, 1001}) {
            try (Arena a = Arena.ofConfined()) {
                for (int dtype = 0; dtype < 4; dtype++) {
                    int es = dtype == 1 || dtype == 3 ? 8 : 4;
                    for (int op = 0; op < 7; op++) {
                        if (op >= 4 && dtype < 2) {
                            continue;
                        }
                        MemorySegment x = a.allocate((long) n * es + 8);
                        MemorySegment y = a.allocate((long) n * es + 8);
                        MemorySegment d = a.allocate((long) n * es + 8);
                        for (int i = 0; i < n; i++) {
                            long bx = rnd.nextLong();
                            long by = rnd.nextLong();
                            switch (dtype) {
                                case 0 -> { x.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) SPECIAL[(int) (bx & 7)]); y.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) SPECIAL[(int) (by & 7)]); }
                                case 1 -> { x.setAtIndex(ValueLayout.JAVA_DOUBLE, i, SPECIAL[(int) (bx & 7)]); y.setAtIndex(ValueLayout.JAVA_DOUBLE, i, SPECIAL[(int) (by & 7)]); }
                                case 2 -> { x.setAtIndex(ValueLayout.JAVA_INT, i, (int) bx); y.setAtIndex(ValueLayout.JAVA_INT, i, (int) by); }
                                default -> { x.setAtIndex(ValueLayout.JAVA_LONG, i, bx); y.setAtIndex(ValueLayout.JAVA_LONG, i, by); }
                            }
                        }
                        NativeReduce.reduce(dtype, op, d, x, y, n);
                        for (int i = 0; i < n; i++) {
                            String at = "dtype " + dtype + " op " + op + " n " + n + " [" + i + "]";
                            switch (dtype) {
                                case 0 -> assertEquals(Float.floatToIntBits(f(op, x.getAtIndex(ValueLayout.JAVA_FLOAT, i), y.getAtIndex(ValueLayout.JAVA_FLOAT, i))),
                                        Float.floatToIntBits(d.getAtIndex(ValueLayout.JAVA_FLOAT, i)), at);
                                case 1 -> assertEquals(Double.doubleToLongBits(f(op, x.getAtIndex(ValueLayout.JAVA_DOUBLE, i), y.getAtIndex(ValueLayout.JAVA_DOUBLE, i))),
                                        Double.doubleToLongBits(d.getAtIndex(ValueLayout.JAVA_DOUBLE, i)), at);
                                case 2 -> assertEquals((int) l(op, x.getAtIndex(ValueLayout.JAVA_INT, i), y.getAtIndex(ValueLayout.JAVA_INT, i)), d.getAtIndex(ValueLayout.JAVA_INT, i), at);
                                default -> assertEquals(l(op, x.getAtIndex(ValueLayout.JAVA_LONG, i), y.getAtIndex(ValueLayout.JAVA_LONG, i)), d.getAtIndex(ValueLayout.JAVA_LONG, i), at);
                            }
                        }
                    }
                }
            }
        }
    }

    static float f(int op, float a, float b) {
        return (float) f(op, (double) a, (double) b);
    }

    static double f(int op, double a, double b) {
        return switch (op) {
            case 0 -> a + b;
            case 1 -> a * b;
            case 2 -> Math.min(a, b);
            default -> Math.max(a, b);
        };
    }

    static long l(int op, long a, long b) {
        return switch (op) {
            case 0 -> a + b;
            case 1 -> a * b;
            case 2 -> Math.min(a, b);
            case 3 -> Math.max(a, b);
            case 4 -> a & b;
            case 5 -> a | b;
            default -> a ^ b;
        };
    }

    @Test
    void reduceManyIsTheLeftFold() {
        assumeTrue(NativeReduce.available(), NativeLibrary.status());
        int n = 5003;
        try (Arena a = Arena.ofConfined()) {
            SplittableRandom rnd = new SplittableRandom(11);
            for (int k : new int[]{1, 2, 4, 8, 16}) {
                MemorySegment[] s = new MemorySegment[k];
                for (int j = 0; j < k; j++) {
                    s[j] = a.allocate(n * 8L);
                    for (int i = 0; i < n; i++) {
                        s[j].setAtIndex(ValueLayout.JAVA_DOUBLE, i, rnd.nextDouble() * 1e3 - 500);
                    }
                }
                MemorySegment d = a.allocate(n * 8L);
                NativeReduce.reduceManySumF64(d, s, k, n);
                for (int i = 0; i < n; i++) {
                    double acc = s[0].getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    for (int j = 1; j < k; j++) {
                        acc += s[j].getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                    }
                    assertEquals(Double.doubleToLongBits(acc), Double.doubleToLongBits(d.getAtIndex(ValueLayout.JAVA_DOUBLE, i)), "k " + k + " [" + i + "]");
                }
            }
        }
    }
}
