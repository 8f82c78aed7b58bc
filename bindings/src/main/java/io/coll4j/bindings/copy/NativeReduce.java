package io.coll4j.bindings.copy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Bindings for {@code reduce.c}: gcc-vectorised C reduction kernels (AVX-512, AVX2 or baseline
 * x86-64, chosen at load), the native comparison point for the Vector API kernels of
 * {@code io.coll4j.reductions} in the JMH suites; no collective calls these two bindings. The same
 * library's streaming fold, {@code coll4j_reduce_many_nt}, is on the collectives' hot path and is bound
 * by {@link StreamingFold}.
 *
 * <p>Codes are the ordinals of {@code io.coll4j.reductions.DType} ({@link #F32}..{@link #I64}) and
 * {@code Op} ({@link #SUM}..{@link #BXOR}); this module does not depend on {@code reductions}, so
 * callers pass {@code dtype.ordinal()} and {@code op.ordinal()}. Semantics are Java's: integer SUM and
 * PROD wrap, float MIN/MAX are exactly {@code Math.min}/{@code Math.max} (NaN propagates, −0.0 &lt; +0.0;
 * reduce.c explains how), float SUM/PROD are the IEEE operations, so results are bitwise equal to a
 * Java loop.
 *
 * <p>The element-wise kernel is linked {@link Linker.Option#critical(boolean) critical(true)}: heap
 * segments work, and a safepoint waits for the call (fine for a benchmark, not for production).
 * {@link #reduceManySumF64} is a normal downcall (GC may proceed during it) and takes native segments only.
 */
public final class NativeReduce {

    public static final int F32 = 0;
    public static final int F64 = 1;
    public static final int I32 = 2;
    public static final int I64 = 3;

    public static final int SUM = 0;
    public static final int PROD = 1;
    public static final int MIN = 2;
    public static final int MAX = 3;
    public static final int BAND = 4;
    public static final int BOR = 5;
    public static final int BXOR = 6;

    private static final int[] ELEMENT_SIZE = {4, 8, 4, 8};

    private NativeReduce() {
    }

    private static final class coll4j_reduce {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_reduce", DESC, Linker.Option.critical(true));
    }

    private static final class coll4j_reduce_many_sum_f64 {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG);
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_reduce_many_sum_f64", DESC);
    }

    private static final class coll4j_reduce_isa {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT);
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_reduce_isa", DESC);
    }

    /** True when libcoll4j.so is loaded (see {@link Copy#nativeStatus()} for why it may not be). */
    public static boolean available() {
        return NativeLibrary.available();
    }

    /** The kernels in use: {@code "avx512"}, {@code "avx2"}, {@code "x86-64"} (SSE2), or {@code "unavailable"}. */
    public static String isa() {
        if (!available()) {
            return "unavailable";
        }
        try {
            return switch ((int) coll4j_reduce_isa.HANDLE.invokeExact()) {
                case 2 -> "avx512";
                case 1 -> "avx2";
                default -> "x86-64";
            };
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dst[i] = a[i] op b[i]} for {@code i < count}, elements from offset 0 of each segment.
     * {@code dst} may be the same memory as {@code a} or {@code b}; any other overlap is refused.
     *
     * @throws IllegalArgumentException for an unknown code, a bitwise op on F32/F64, {@code count < 0},
     *                                  a segment shorter than {@code count} elements, a read-only
     *                                  {@code dst}, or a partial overlap; nothing is written then
     * @throws IllegalStateException    when libcoll4j.so is not loaded
     */
    public static void reduce(int dtype, int op, MemorySegment dst, MemorySegment a, MemorySegment b, long count) {
        if (dtype < F32 || dtype > I64) {
            throw new IllegalArgumentException("dtype code must be 0..3 (F32, F64, I32, I64), got " + dtype);
        }
        if (op < SUM || op > BXOR) {
            throw new IllegalArgumentException("op code must be 0..6 (SUM, PROD, MIN, MAX, BAND, BOR, BXOR), got " + op);
        }
        if (op >= BAND && dtype <= F64) {
            throw new IllegalArgumentException("op " + op + " (bitwise) is not defined for dtype " + dtype + " (a float type)");
        }
        long bytes = bytes(count, ELEMENT_SIZE[dtype]);
        checkDst(dst, bytes);
        checkSource("a", a, bytes);
        checkSource("b", b, bytes);
        checkAlias("a", dst, a, bytes);
        checkAlias("b", dst, b, bytes);
        requireLibrary();
        try {
            int rc = (int) coll4j_reduce.HANDLE.invokeExact(dtype, op, dst, a, b, count);
            if (rc != 0) {
                throw new IllegalStateException("coll4j_reduce rejected dtype " + dtype + ", op " + op);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code dst[i] = srcs[0][i] + srcs[1][i] + … + srcs[k-1][i]} over F64, folded left to right (bitwise
     * equal to the scalar left fold), in one pass over memory: each source is read once and {@code dst}
     * written once. Native segments only; {@code dst} may be the same memory as one source. The pointer
     * array is allocated per call in a confined arena.
     *
     * @throws IllegalArgumentException for {@code k < 1}, {@code k > srcs.length}, {@code count < 0}, a heap
     *                                  or too short segment, a read-only {@code dst}, or a partial overlap
     * @throws IllegalStateException    when libcoll4j.so is not loaded
     */
    public static void reduceManySumF64(MemorySegment dst, MemorySegment[] srcs, int k, long count) {
        if (srcs == null) {
            throw new IllegalArgumentException("srcs must not be null");
        }
        if (k < 1 || k > srcs.length) {
            throw new IllegalArgumentException("k must be in 1.." + srcs.length + " (srcs.length), got " + k);
        }
        long bytes = bytes(count, Double.BYTES);
        checkDst(dst, bytes);
        if (!dst.isNative()) {
            throw new IllegalArgumentException("dst must be a native segment");
        }
        for (int j = 0; j < k; j++) {
            String name = "srcs[" + j + "]";
            checkSource(name, srcs[j], bytes);
            if (!srcs[j].isNative()) {
                throw new IllegalArgumentException(name + " must be a native segment");
            }
            checkAlias(name, dst, srcs[j], bytes);
        }
        requireLibrary();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pointers = arena.allocate(ADDRESS, k);
            for (int j = 0; j < k; j++) {
                pointers.setAtIndex(ADDRESS, j, srcs[j]);
            }
            coll4j_reduce_many_sum_f64.HANDLE.invokeExact(dst, pointers, k, count);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long bytes(long count, int size) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
        return Math.multiplyExact(count, (long) size);
    }

    static void checkDst(MemorySegment dst, long bytes) {
        checkSource("dst", dst, bytes);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
    }

    static void checkSource(String name, MemorySegment segment, long bytes) {
        if (segment == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (segment.byteSize() < bytes) {
            throw new IllegalArgumentException(name + " has " + segment.byteSize() + " bytes, needs " + bytes);
        }
    }

    /** Exact aliasing (same first byte) is allowed: element i is read before it is written; partial overlap is not. */
    static void checkAlias(String name, MemorySegment dst, MemorySegment src, long bytes) {
        if (bytes == 0) {
            return;
        }
        MemorySegment d = dst.asSlice(0, bytes);
        MemorySegment s = src.asSlice(0, bytes);
        // both slices are `bytes` long: they are the same memory iff their overlap is all of it
        if (d.asOverlappingSlice(s).filter(o -> o.byteSize() != bytes).isPresent()) {
            throw new IllegalArgumentException("dst and " + name + " overlap without being the same memory");
        }
    }

    private static void requireLibrary() {
        if (!available()) {
            throw new IllegalStateException("native reduce unavailable: libcoll4j.so "
                    + NativeLibrary.unavailableReason().orElse("not loaded"));
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
