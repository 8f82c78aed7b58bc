package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Input data for the reduction tests: random values with a heavy dose of the awkward ones — NaNs
 * with different payloads (quiet and signalling), ±0.0, ±Infinity, subnormals, extremes that
 * overflow integer SUM/PROD — and segments of every kind a caller may pass.
 */
final class TestValues {

    static final double[] F64_SPECIALS = {
            Double.NaN, -Double.NaN,
            Double.longBitsToDouble(0x7ff8_0000_0000_0123L),   // quiet NaN with a payload
            Double.longBitsToDouble(0xfff8_0000_0000_0456L),   // negative quiet NaN with a payload
            Double.longBitsToDouble(0x7ff0_0000_0000_0001L),   // signalling NaN
            0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
            Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL / 3, -Double.MIN_NORMAL / 7,
            Double.MAX_VALUE, -Double.MAX_VALUE, 1.0, -1.0};

    static final float[] F32_SPECIALS = {
            Float.NaN, -Float.NaN,
            Float.intBitsToFloat(0x7fc0_0123), Float.intBitsToFloat(0xffc0_0456),
            Float.intBitsToFloat(0x7f80_0001),                  // signalling NaN
            0.0f, -0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL / 3, -Float.MIN_NORMAL / 7,
            Float.MAX_VALUE, -Float.MAX_VALUE, 1.0f, -1.0f};

    static final int[] I32_SPECIALS = {0, 1, -1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1,
            Integer.MIN_VALUE + 1, 0x5555_5555, 0xAAAA_AAAA, 65_536, -65_537};

    static final long[] I64_SPECIALS = {0, 1, -1, 2, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
            Long.MIN_VALUE + 1, 0x5555_5555_5555_5555L, 0xAAAA_AAAA_AAAA_AAAAL, 1L << 32, -(1L << 33) - 1};

    /** How a test segment is backed. */
    enum Backing {
        NATIVE, HEAP_TYPED, HEAP_BYTES, HEAP_LONGS;

        /** A zeroed segment of at least {@code bytes} bytes, backed as named. */
        MemorySegment allocate(Arena arena, DType dtype, long bytes) {
            int n = Math.toIntExact(bytes);
            return switch (this) {
                case NATIVE -> arena.allocate(Math.max(bytes, 1), 64);
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[n]);
                case HEAP_LONGS -> MemorySegment.ofArray(new long[(n + 7) / 8]);
                case HEAP_TYPED -> switch (dtype) {
                    case F32 -> MemorySegment.ofArray(new float[(n + 3) / 4]);
                    case F64 -> MemorySegment.ofArray(new double[(n + 7) / 8]);
                    case I32, U32 -> MemorySegment.ofArray(new int[(n + 3) / 4]);
                    case F16, BF16 -> MemorySegment.ofArray(new short[(n + 1) / 2]);
                    default -> MemorySegment.ofArray(new long[(n + 7) / 8]);
                };
            };
        }
    }

    private TestValues() {
    }

    /**
     * Fills {@code count} elements at {@code offset} with random values, about a third of them
     * special, so that NaN meets NaN, −0.0 meets +0.0 and MAX_VALUE meets MAX_VALUE often.
     */
    static void fill(MemorySegment seg, long offset, DType dtype, long count, SplittableRandom rnd) {
        for (long i = 0; i < count; i++) {
            long at = offset + i * dtype.size();
            boolean special = rnd.nextInt(3) == 0;
            switch (dtype) {
                case F64 -> seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, special
                        ? F64_SPECIALS[rnd.nextInt(F64_SPECIALS.length)]
                        : rnd.nextBoolean() ? rnd.nextDouble(-1e6, 1e6) : Double.longBitsToDouble(rnd.nextLong()));
                case F32 -> seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, special
                        ? F32_SPECIALS[rnd.nextInt(F32_SPECIALS.length)]
                        : rnd.nextBoolean() ? (float) rnd.nextDouble(-1e4, 1e4) : Float.intBitsToFloat(rnd.nextInt()));
                case I32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, at, special
                        ? I32_SPECIALS[rnd.nextInt(I32_SPECIALS.length)] : rnd.nextInt());
                case I64, U64 -> seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, special
                        ? I64_SPECIALS[rnd.nextInt(I64_SPECIALS.length)] : rnd.nextLong());
                case U32 -> seg.set(ValueLayout.JAVA_INT_UNALIGNED, at, special
                        ? I32_SPECIALS[rnd.nextInt(I32_SPECIALS.length)] : rnd.nextInt());
                case F16, BF16 -> seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, at, special
                        ? HalfFloats.fromFloat(dtype, F32_SPECIALS[rnd.nextInt(F32_SPECIALS.length)])
                        : rnd.nextBoolean() ? HalfFloats.fromFloat(dtype, (float) rnd.nextDouble(-100, 100))
                        : (short) rnd.nextInt());
                default -> fillPair(seg, at, dtype, special, rnd);
            }
        }
    }

    /**
     * A (value, index) pair: values from a small set so that ties are common (MPI's lowest-index rule is
     * what they test), indices random and non-negative.
     */
    private static void fillPair(MemorySegment seg, long at, DType dtype, boolean special, SplittableRandom rnd) {
        int v = rnd.nextInt(4);
        switch (dtype) {
            case F32_I32 -> {
                seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, special ? F32_SPECIALS[rnd.nextInt(F32_SPECIALS.length)] : v);
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, rnd.nextInt(1000));
            }
            case I32_I32 -> {
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at, special ? I32_SPECIALS[rnd.nextInt(I32_SPECIALS.length)] : v);
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, rnd.nextInt(1000));
            }
            case F64_I64 -> {
                seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, special ? F64_SPECIALS[rnd.nextInt(F64_SPECIALS.length)] : v);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, rnd.nextLong(1L << 40));
            }
            default -> {
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, special ? I64_SPECIALS[rnd.nextInt(I64_SPECIALS.length)] : v);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, rnd.nextLong(1L << 40));
            }
        }
    }

    /** Fills a whole segment with one byte so a test can see which bytes a kernel wrote. */
    static void poison(MemorySegment seg) {
        seg.fill((byte) 0x5A);
    }
}
