package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_INT;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_POINTER;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_SIZE_T;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.ERRNO;

/**
 * Raw bindings to the CPU binding and memory binding functions of {@code hwloc.h}, in the shape of {@link hwloc_h}.
 * Every one reports failure through errno, so each wrapper takes the capture segment first
 * ({@link hwloc_h#allocateCallState}, read with {@link hwloc_h#errno}).
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_binding_h {
    private hwloc_binding_h() {
    }

    private static final class hwloc_set_cpubind {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_set_cpubind", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_set_cpubind$descriptor() {
        return hwloc_set_cpubind.DESC;
    }

    public static MethodHandle hwloc_set_cpubind$handle() {
        return hwloc_set_cpubind.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_set_cpubind(hwloc_topology_t topology, hwloc_const_cpuset_t set, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_set_cpubind(MemorySegment callState, MemorySegment topology, MemorySegment set, int flags) {
        var mh$ = hwloc_set_cpubind.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, set, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_cpubind {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_cpubind", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_get_cpubind$descriptor() {
        return hwloc_get_cpubind.DESC;
    }

    public static MethodHandle hwloc_get_cpubind$handle() {
        return hwloc_get_cpubind.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_get_cpubind(hwloc_topology_t topology, hwloc_cpuset_t set, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_get_cpubind(MemorySegment callState, MemorySegment topology, MemorySegment set, int flags) {
        var mh$ = hwloc_get_cpubind.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, set, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_last_cpu_location {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_last_cpu_location", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_get_last_cpu_location$descriptor() {
        return hwloc_get_last_cpu_location.DESC;
    }

    public static MethodHandle hwloc_get_last_cpu_location$handle() {
        return hwloc_get_last_cpu_location.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_get_last_cpu_location(hwloc_topology_t topology, hwloc_cpuset_t set, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_get_last_cpu_location(MemorySegment callState, MemorySegment topology, MemorySegment set, int flags) {
        var mh$ = hwloc_get_last_cpu_location.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, set, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_set_area_membind {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SIZE_T, C_POINTER, C_INT, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_set_area_membind", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_set_area_membind$descriptor() {
        return hwloc_set_area_membind.DESC;
    }

    public static MethodHandle hwloc_set_area_membind$handle() {
        return hwloc_set_area_membind.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_set_area_membind(hwloc_topology_t topology, const void *addr, size_t len, hwloc_const_bitmap_t set, hwloc_membind_policy_t policy, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_set_area_membind(MemorySegment callState, MemorySegment topology, MemorySegment addr, long len, MemorySegment set, int policy, int flags) {
        var mh$ = hwloc_set_area_membind.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, addr, len, set, policy, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_area_membind {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SIZE_T, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_area_membind", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_get_area_membind$descriptor() {
        return hwloc_get_area_membind.DESC;
    }

    public static MethodHandle hwloc_get_area_membind$handle() {
        return hwloc_get_area_membind.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_get_area_membind(hwloc_topology_t topology, const void *addr, size_t len, hwloc_bitmap_t set, hwloc_membind_policy_t *policy, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_get_area_membind(MemorySegment callState, MemorySegment topology, MemorySegment addr, long len, MemorySegment set, MemorySegment policy, int flags) {
        var mh$ = hwloc_get_area_membind.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, addr, len, set, policy, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_area_memlocation {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SIZE_T, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_area_memlocation", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_get_area_memlocation$descriptor() {
        return hwloc_get_area_memlocation.DESC;
    }

    public static MethodHandle hwloc_get_area_memlocation$handle() {
        return hwloc_get_area_memlocation.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_get_area_memlocation(hwloc_topology_t topology, const void *addr, size_t len, hwloc_bitmap_t set, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_get_area_memlocation(MemorySegment callState, MemorySegment topology, MemorySegment addr, long len, MemorySegment set, int flags) {
        var mh$ = hwloc_get_area_memlocation.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, addr, len, set, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_alloc_membind {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_SIZE_T, C_POINTER, C_INT, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_alloc_membind", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_alloc_membind$descriptor() {
        return hwloc_alloc_membind.DESC;
    }

    public static MethodHandle hwloc_alloc_membind$handle() {
        return hwloc_alloc_membind.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * void *hwloc_alloc_membind(hwloc_topology_t topology, size_t len, hwloc_const_bitmap_t set, hwloc_membind_policy_t policy, int flags)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static MemorySegment hwloc_alloc_membind(MemorySegment callState, MemorySegment topology, long len, MemorySegment set, int policy, int flags) {
        var mh$ = hwloc_alloc_membind.HANDLE;
        try {
            return (MemorySegment) mh$.invokeExact(callState, topology, len, set, policy, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_free {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_SIZE_T);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_free", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_free$descriptor() {
        return hwloc_free.DESC;
    }

    public static MethodHandle hwloc_free$handle() {
        return hwloc_free.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_free(hwloc_topology_t topology, void *addr, size_t len)
     * }
     * <p>{@code callState} receives errno ({@link hwloc_h#allocateCallState}, {@link hwloc_h#errno}).
     */
    public static int hwloc_free(MemorySegment callState, MemorySegment topology, MemorySegment addr, long len) {
        var mh$ = hwloc_free.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, addr, len);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }
}
