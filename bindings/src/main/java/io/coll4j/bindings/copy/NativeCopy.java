package io.coll4j.bindings.copy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Bindings for {@code copy.c} in jextract's shape: a nested holder per C function with its
 * {@code DESC} and handle(s), linked lazily on first use, and a static wrapper named like the C
 * function. Arguments are not checked here; {@link Copy} validates before calling.
 *
 * <p>Two handles per copy function:
 * <ul>
 *   <li>{@code CRITICAL}, linked with {@link Linker.Option#critical(boolean) critical(true)}: no
 *       thread-state transition (the cheapest downcall, which matters for copies of a few KiB), and
 *       heap segments may be passed (the JVM pins nothing: it simply cannot run a GC while the
 *       thread is in the call). The flip side is that a safepoint waits until the call returns, so
 *       a critical call is only made for at most {@link #CRITICAL_MAX_BYTES} bytes.</li>
 *   <li>{@code NORMAL}: a regular downcall, for native segments above that size; the thread is "in
 *       native" during the copy and GC proceeds.</li>
 * </ul>
 * Heap copies above {@link #CRITICAL_MAX_BYTES} are cut into critical calls of that size; between
 * two of them the thread passes a safepoint poll.
 */
final class NativeCopy {

    /** {@code coll4j_nt_isa()} values. */
    static final int ISA_NONE = 0;
    static final int ISA_AVX2 = 1;
    static final int ISA_AVX512 = 2;

    /**
     * Largest copy made in one critical downcall: 1 MiB is about 0.1 ms at the ~10 GB/s one core
     * copies at, a bounded delay for a pending safepoint, and large enough that the transition cost
     * of a normal downcall (tens of ns) is below 0.1% of the copy beyond it.
     */
    static final long CRITICAL_MAX_BYTES = 1L << 20;

    private NativeCopy() {
    }

    private static final class coll4j_nt_isa {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT);
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_nt_isa", DESC);
    }

    private static final class coll4j_nt_copy {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        static final MethodHandle CRITICAL = NativeLibrary.downcall("coll4j_nt_copy", DESC, Linker.Option.critical(true));
        static final MethodHandle NORMAL = NativeLibrary.downcall("coll4j_nt_copy", DESC);
    }

    private static final class coll4j_t_copy {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG);
        static final MethodHandle CRITICAL = NativeLibrary.downcall("coll4j_t_copy", DESC, Linker.Option.critical(true));
        static final MethodHandle NORMAL = NativeLibrary.downcall("coll4j_t_copy", DESC);
    }

    private static final class coll4j_copy_isa {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG);
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_copy_isa", DESC, Linker.Option.critical(true));
    }

    /** {@code int coll4j_nt_isa(void)}: the NT path chosen at load (ISA_*); needs the library. */
    static int coll4j_nt_isa() {
        try {
            return (int) coll4j_nt_isa.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Non-temporal copy of {@code bytes} bytes from {@code src} to {@code dst} (no overlap), + sfence. */
    static void ntCopy(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        call(coll4j_nt_copy.CRITICAL, coll4j_nt_copy.NORMAL, dst, dstOffset, src, srcOffset, bytes);
    }

    /** Temporal copy with the same loop shape as {@link #ntCopy} (the C baseline). */
    static void tCopy(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        call(coll4j_t_copy.CRITICAL, coll4j_t_copy.NORMAL, dst, dstOffset, src, srcOffset, bytes);
    }

    /**
     * {@code int coll4j_copy_isa(int isa, int nontemporal, void *dst, const void *src, size_t n)}: a copy
     * through one named ISA path, for tests; false (nothing copied) when the CPU lacks the ISA.
     */
    static boolean copyWithIsa(int isa, boolean nontemporal, MemorySegment dst, MemorySegment src, long bytes) {
        try {
            return (int) coll4j_copy_isa.HANDLE.invokeExact(isa, nontemporal ? 1 : 0, dst, src, bytes) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void call(MethodHandle critical, MethodHandle normal, MemorySegment dst, long dstOffset,
                             MemorySegment src, long srcOffset, long bytes) {
        try {
            if (bytes <= CRITICAL_MAX_BYTES) {
                critical.invokeExact(dst.asSlice(dstOffset, bytes), src.asSlice(srcOffset, bytes), bytes);
            } else if (dst.isNative() && src.isNative()) {
                normal.invokeExact(dst.asSlice(dstOffset, bytes), src.asSlice(srcOffset, bytes), bytes);
            } else {
                // Heap: bounded critical calls. Every chunk starts at the same position within a
                // cache line (chunks are a multiple of 64), so each adds at most 126 temporal bytes.
                for (long done = 0; done < bytes; done += CRITICAL_MAX_BYTES) {
                    long n = Math.min(CRITICAL_MAX_BYTES, bytes - done);
                    critical.invokeExact(dst.asSlice(dstOffset + done, n), src.asSlice(srcOffset + done, n), n);
                }
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
