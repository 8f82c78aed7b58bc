package io.coll4j.bindings.copy;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * jextract-style bindings of {@code copy.c}: one holder per function ({@code DESC}, {@code HANDLE},
 * linked on first use), a static wrapper with the C name. Copies are critical downcalls
 * ({@link Linker.Option#critical(boolean) critical(true)}): no thread-state transition (a copy of a few
 * KiB is cheaper than one) and heap segments may be passed straight through. Callers check availability
 * ({@link NativeLibrary#lookup()}) and arguments first.
 */
final class NativeCopy {
    private NativeCopy() {
    }

    private static MethodHandle link(String name, FunctionDescriptor desc, Linker.Option... options) {
        MemorySegment addr = NativeLibrary.lookup().orElseThrow().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libcoll4j.so has no symbol " + name));
        return Linker.nativeLinker().downcallHandle(addr, desc, options);
    }

    /** {@code int coll4j_nt_isa(void)} */
    private static final class nt_isa {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(ValueLayout.JAVA_INT);
        static final MethodHandle HANDLE = link("coll4j_nt_isa", DESC);
    }

    static int coll4j_nt_isa() {
        try {
            return (int) nt_isa.HANDLE.invokeExact();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code void coll4j_nt_copy(void *dst, const void *src, size_t n)} */
    private static final class nt_copy {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        static final MethodHandle HANDLE = link("coll4j_nt_copy", DESC, Linker.Option.critical(true));
    }

    static void coll4j_nt_copy(MemorySegment dst, MemorySegment src, long n) {
        try {
            nt_copy.HANDLE.invokeExact(dst, src, n);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** {@code void coll4j_copy(void *dst, const void *src, size_t n)} — temporal AVX stores */
    private static final class copy {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
        static final MethodHandle HANDLE = link("coll4j_copy", DESC, Linker.Option.critical(true));
    }

    static void coll4j_copy(MemorySegment dst, MemorySegment src, long n) {
        try {
            copy.HANDLE.invokeExact(dst, src, n);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
