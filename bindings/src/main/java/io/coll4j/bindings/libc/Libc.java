package io.coll4j.bindings.libc;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Raw bindings to the few glibc functions coll4j needs for the binder that works without hwloc,
 * in jextract's shape (lazily linked holder per function, wrapper with the C name). Functions that
 * fail through {@code errno} capture it ({@link Linker.Option#captureCallState}); their wrapper takes
 * the capture segment first ({@link #allocateCallState}, {@link #errno}).
 *
 * <p>{@code mbind} and {@code move_pages} have no glibc wrapper (libnuma provides them); they go
 * through the variadic {@code syscall(2)} with the architecture's syscall numbers, every argument
 * passed as a {@code long} because glibc's {@code syscall} reads each one with {@code va_arg(ap, long)}.
 */
@SuppressWarnings({"unused", "restricted"})
public final class Libc {
    private Libc() {
    }

    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_HANDLE = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** {@code MPOL_BIND} of {@code <linux/mempolicy.h>}: allocate only on the given nodes. */
    public static final int MPOL_BIND = 2;
    /** {@code MPOL_MF_STRICT}: fail when existing pages do not follow the policy. */
    public static final int MPOL_MF_STRICT = 1;
    /** {@code MPOL_MF_MOVE}: migrate the range's existing pages that are not on the nodes. */
    public static final int MPOL_MF_MOVE = 1 << 1;

    /** {@code SYS_mbind} on this architecture, or -1 where coll4j does not know it. */
    public static final long SYS_MBIND = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 237;
        case "aarch64" -> 235;
        default -> -1;
    };
    /** {@code SYS_move_pages} on this architecture, or -1 where coll4j does not know it. */
    public static final long SYS_MOVE_PAGES = switch (System.getProperty("os.arch")) {
        case "amd64", "x86_64" -> 279;
        case "aarch64" -> 239;
        default -> -1;
    };

    static MethodHandle downcall(String name, FunctionDescriptor desc, Linker.Option... options) {
        return LINKER.downcallHandle(LIBC.findOrThrow(name), desc, options);
    }

    /** True when {@code name} is exported by the C library the JVM runs on. */
    public static boolean has(String name) {
        return LIBC.find(name).isPresent();
    }

    /** A segment to pass as {@code callState} to the errno-capturing wrappers. */
    public static MemorySegment allocateCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /** The errno captured into {@code callState}. */
    public static int errno(MemorySegment callState) {
        return (int) ERRNO_HANDLE.get(callState, 0L);
    }

    private static final class sched_setaffinity {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_LONG, C_POINTER);
        static final MethodHandle HANDLE = downcall("sched_setaffinity", DESC, ERRNO);
    }

    /**
     * {@snippet lang = c :
     * int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask)
     * }
     */
    public static int sched_setaffinity(MemorySegment callState, int pid, long cpusetsize, MemorySegment mask) {
        try {
            return (int) sched_setaffinity.HANDLE.invokeExact(callState, pid, cpusetsize, mask);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class sched_getaffinity {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_INT, C_LONG, C_POINTER);
        static final MethodHandle HANDLE = downcall("sched_getaffinity", DESC, ERRNO);
    }

    /**
     * {@snippet lang = c :
     * int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask)
     * }
     */
    public static int sched_getaffinity(MemorySegment callState, int pid, long cpusetsize, MemorySegment mask) {
        try {
            return (int) sched_getaffinity.HANDLE.invokeExact(callState, pid, cpusetsize, mask);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class sched_getcpu {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT);
        static final MethodHandle HANDLE = downcall("sched_getcpu", DESC, ERRNO);
    }

    /**
     * {@snippet lang = c :
     * int sched_getcpu(void)
     * }
     */
    public static int sched_getcpu(MemorySegment callState) {
        try {
            return (int) sched_getcpu.HANDLE.invokeExact(callState);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class gettid {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT);
        static final MethodHandle HANDLE = downcall("gettid", DESC);
    }

    /**
     * {@snippet lang = c :
     * pid_t gettid(void)   // glibc >= 2.30
     * }
     */
    public static int gettid() {
        try {
            return (int) gettid.HANDLE.invokeExact();
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class strerror {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_INT);
        static final MethodHandle HANDLE = downcall("strerror", DESC);
    }

    /**
     * {@snippet lang = c :
     * char *strerror(int errnum)
     * }
     */
    public static MemorySegment strerror(int errnum) {
        try {
            return (MemorySegment) strerror.HANDLE.invokeExact(errnum);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class getpagesize {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT);
        static final MethodHandle HANDLE = downcall("getpagesize", DESC);
    }

    /**
     * {@snippet lang = c :
     * int getpagesize(void)
     * }
     */
    public static int getpagesize() {
        try {
            return (int) getpagesize.HANDLE.invokeExact();
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class syscall6 {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG);
        static final MethodHandle HANDLE = downcall("syscall", DESC, ERRNO, Linker.Option.firstVariadicArg(1));
    }

    /**
     * {@code syscall(number, a1, …, a6)}: the variadic {@code syscall(2)} with six {@code long}
     * arguments (pointers as addresses); the kernel ignores the ones a call does not take.
     * {@snippet lang = c :
     * long syscall(long number, ...)
     * }
     */
    public static long syscall(MemorySegment callState, long number, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return (long) syscall6.HANDLE.invokeExact(callState, number, a1, a2, a3, a4, a5, a6);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }
}
