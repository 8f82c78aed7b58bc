package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * F32/F64 MIN and MAX on every pair of special values (NaNs with payloads, signalling NaN, ±0.0,
 * ±Infinity, subnormals, extremes), for the scalar reducer and the vector kernels at every size, the
 * latter both in the fallback and once C2 has compiled them ({@link HotLoop}). The contract of
 * {@link Op}: the result is bitwise one of the two operands; equal to {@code Math.min}/{@code Math.max}
 * bitwise whenever at most one operand is NaN (so −0.0 &lt; +0.0 and a lone NaN keeps its payload and
 * its signalling bit); NaN when both are.
 */
class MinMaxTest {

    static List<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (int bits : new int[] {0, 128, 256, 512}) {          // 0: the scalar reducer
            for (DType dtype : new DType[] {DType.F32, DType.F64}) {
                for (Op op : new Op[] {Op.MIN, Op.MAX}) {
                    all.add(Arguments.of(bits, dtype, op));
                }
            }
        }
        return all;
    }

    @ParameterizedTest(name = "{0}-bit {1} {2}")
    @MethodSource("cases")
    void resultIsOneOperandAndMatchesMath(int bits, DType dtype, Op op) {
        Reducer r;
        if (bits == 0) {
            r = Reducers.scalar(dtype, op);
        } else {
            assumeTrue(Reducers.vectorFactory().isPresent(), Reducers::implementation);
            assumeTrue(bits <= VectorConstants.PREFERRED_BITS, () -> bits + "-bit vectors not native here");
            r = new VectorReducers(bits).create(dtype, op);
        }
        long[] specials = specials(dtype);
        int n = specials.length * specials.length;
        // native: the vector loops' domain (heap calls go to the scalar loops)
        MemorySegment a = Arena.ofAuto().allocate(8L * n, 64);
        MemorySegment b = Arena.ofAuto().allocate(8L * n, 64);
        MemorySegment d = Arena.ofAuto().allocate(8L * n, 64);
        for (int i = 0; i < n; i++) {
            put(dtype, a, i, specials[i / specials.length]);
            put(dtype, b, i, specials[i % specials.length]);
        }
        r.reduce(d, 0, a, 0, b, 0, n);
        check(dtype, op, a, b, d, n, r + " (first calls)");
        if (bits != 0) {
            HotLoop.untilCompiled(r.toString(), () -> {
                for (int i = 0; i < 50; i++) {
                    r.reduce(d, 0, a, 0, b, 0, n);
                }
            });
            d.fill((byte) 0);
            r.reduce(d, 0, a, 0, b, 0, n);
            check(dtype, op, a, b, d, n, r + " (C2-compiled)");
        }
    }

    private static void check(DType dtype, Op op, MemorySegment a, MemorySegment b, MemorySegment d, int n, String what) {
        for (int i = 0; i < n; i++) {
            long x = get(dtype, a, i);
            long y = get(dtype, b, i);
            long r = get(dtype, d, i);
            String pair = what + " " + op.cliName() + "(" + show(dtype, x) + ", " + show(dtype, y) + ") = " + show(dtype, r);
            assertTrue(r == x || r == y, pair + " is not one of the operands");
            boolean xNaN = isNaN(dtype, x);
            boolean yNaN = isNaN(dtype, y);
            if (xNaN && yNaN) {
                assertTrue(isNaN(dtype, r), pair);
            } else {
                assertEquals(math(dtype, op, x, y), r, pair + ", Math gives " + show(dtype, math(dtype, op, x, y)));
            }
        }
    }

    private static long[] specials(DType dtype) {
        if (dtype == DType.F64) {
            long[] bits = new long[TestValues.F64_SPECIALS.length];
            for (int i = 0; i < bits.length; i++) {
                bits[i] = Double.doubleToRawLongBits(TestValues.F64_SPECIALS[i]);
            }
            return bits;
        }
        long[] bits = new long[TestValues.F32_SPECIALS.length];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = Float.floatToRawIntBits(TestValues.F32_SPECIALS[i]) & 0xFFFF_FFFFL;
        }
        return bits;
    }

    private static long math(DType dtype, Op op, long x, long y) {
        if (dtype == DType.F64) {
            double p = Double.longBitsToDouble(x);
            double q = Double.longBitsToDouble(y);
            return Double.doubleToRawLongBits(op == Op.MIN ? Math.min(p, q) : Math.max(p, q));
        }
        float p = Float.intBitsToFloat((int) x);
        float q = Float.intBitsToFloat((int) y);
        return Float.floatToRawIntBits(op == Op.MIN ? Math.min(p, q) : Math.max(p, q)) & 0xFFFF_FFFFL;
    }

    private static void put(DType dtype, MemorySegment s, int i, long bits) {
        if (dtype == DType.F64) {
            s.setAtIndex(ValueLayout.JAVA_LONG, i, bits);
        } else {
            s.setAtIndex(ValueLayout.JAVA_INT, i, (int) bits);
        }
    }

    private static long get(DType dtype, MemorySegment s, int i) {
        return dtype == DType.F64 ? s.getAtIndex(ValueLayout.JAVA_LONG, i) : s.getAtIndex(ValueLayout.JAVA_INT, i) & 0xFFFF_FFFFL;
    }

    private static boolean isNaN(DType dtype, long bits) {
        return dtype == DType.F64 ? Double.isNaN(Double.longBitsToDouble(bits)) : Float.isNaN(Float.intBitsToFloat((int) bits));
    }

    private static String show(DType dtype, long bits) {
        return "0x" + (dtype == DType.F64 ? Long.toHexString(bits) : Integer.toHexString((int) bits));
    }
}
