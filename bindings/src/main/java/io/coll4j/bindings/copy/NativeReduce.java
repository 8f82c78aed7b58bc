package io.coll4j.bindings.copy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Bindings of {@code reduce.c}: the C reduction kernels that the JMH suites compare the Vector API
 * kernels with (issue 5). Not used by any collective. Codes: dtype F32=0 F64=1 I32=2 I64=3, op SUM=0
 * PROD=1 MIN=2 MAX=3 BAND=4 BOR=5 BXOR=6 — the ordinals of {@code io.coll4j.reductions.DType} and
 * {@code Op} (this module does not depend on the reductions module).
 */
public final class NativeReduce {
    private NativeReduce() {
    }

    /** True when libcoll4j.so is loaded. */
    public static boolean available() {
        return NativeLibrary.lookup().isPresent();
    }

    /** 2 = AVX-512, 1 = AVX2, 0 = baseline kernels, -1 = no library. */
    public static int isa() {
        if (!available()) {
            return -1;
        }
        try {
            return (int) isa.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static MethodHandle link(String name, FunctionDescriptor desc, Linker.Option... options) {
        MemorySegment addr = NativeLibrary.lookup().orElseThrow(() -> new IllegalStateException(NativeLibrary.status()))
                .find(name).orElseThrow(() -> new UnsatisfiedLinkError("libcoll4j.so has no symbol " + name));
        return Linker.nativeLinker().downcallHandle(addr, desc, options);
    }

    private static final class isa {
        static final MethodHandle HANDLE = link("coll4j_reduce_isa", FunctionDescriptor.of(ValueLayout.JAVA_INT));
    }

    /** {@code void coll4j_reduce(int dtype, int op, void *dst, const void *a, const void *b, size_t n)} */
    private static final class reduce {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        static final MethodHandle HANDLE = link("coll4j_reduce", DESC, Linker.Option.critical(true));
    }

    /** {@code void coll4j_reduce_many_sum_f64(double *dst, const double *const *srcs, int k, size_t n)} */
    private static final class reduce_many_sum_f64 {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG);
        static final MethodHandle HANDLE = link("coll4j_reduce_many_sum_f64", DESC, Linker.Option.critical(false));
    }

    /** {@code dst = a op b} over {@code count} elements (heap or native segments, at least count elements each). */
    public static void reduce(int dtype, int op, MemorySegment dst, MemorySegment a, MemorySegment b, long count) {
        long bytes = count * (dtype == 1 || dtype == 3 ? 8 : 4);
        if (count < 0 || dst.byteSize() < bytes || a.byteSize() < bytes || b.byteSize() < bytes) {
            throw new IllegalArgumentException("count " + count + " does not fit the segments");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        try {
            reduce.HANDLE.invokeExact(dtype, op, dst, a, b, count);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * {@code dst = srcs[0] + … + srcs[k-1]} (f64) in one pass; native segments only (their addresses go
     * into a pointer array).
     */
    public static void reduceManySumF64(MemorySegment dst, MemorySegment[] srcs, int k, long count) {
        if (k < 1 || k > srcs.length || count < 0 || dst.byteSize() < count * 8) {
            throw new IllegalArgumentException("k " + k + " or count " + count + " out of range");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ptrs = a.allocate(ValueLayout.ADDRESS, k);
            for (int i = 0; i < k; i++) {
                if (!srcs[i].isNative() || srcs[i].byteSize() < count * 8) {
                    throw new IllegalArgumentException("srcs[" + i + "] must be native with " + count + " doubles");
                }
                ptrs.setAtIndex(ValueLayout.ADDRESS, i, srcs[i]);
            }
            reduce_many_sum_f64.HANDLE.invokeExact(dst, ptrs, k, count);
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
