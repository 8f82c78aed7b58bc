package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Raw bindings to the exported functions of {@code hwloc.h} (hwloc 2.x, {@code libhwloc.so.15}),
 * written by hand in the shape jextract generates: per function a lazily linked holder class with its
 * {@code FunctionDescriptor} and {@code MethodHandle}, {@code fn$descriptor()} / {@code fn$handle()}
 * accessors, and a thin static wrapper with the C name and C argument order. Enums and flags are
 * {@code int}/{@code long} constants with their C names. The {@code static inline} helpers of
 * {@code hwloc.h} and {@code hwloc/helper.h} are not exported by the library; {@link HwlocInlines}
 * re-implements the ones coll4j uses. The functions of {@code hwloc/bitmap.h} are in {@link hwloc_bitmap_h}, the CPU
 * and memory binding functions of {@code hwloc.h} in {@link hwloc_binding_h} (each file stays one header section).
 *
 * <p>One deviation from jextract: functions that report failure through {@code errno} are linked with
 * {@link Linker.Option#captureCallState(String...) captureCallState("errno")}, so their wrapper takes
 * the capture segment first ({@link #allocateCallState(Arena)}; read it with {@link #errno}) — the JVM
 * may clobber {@code errno} between a downcall and any later attempt to read it.
 *
 * <p>Nothing here may be called unless {@link HwlocLibrary#isAvailable()}; the holders link on first
 * use and throw {@link IllegalStateException} when the library is absent. Layout offsets of the structs
 * in this package are checked against the C compiler by {@code HwlocLayoutTest}.
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_h {
    private hwloc_h() {
    }

    public static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong C_LONG_LONG = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong C_SIZE_T = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfShort C_SHORT = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfByte C_CHAR = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfFloat C_FLOAT = ValueLayout.JAVA_FLOAT;
    public static final AddressLayout C_POINTER = ValueLayout.ADDRESS;

    /** Links a function that reports failure through errno (its wrapper takes the capture segment first). */
    static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO_HANDLE = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** A segment to pass as {@code callState} to the errno-capturing wrappers. */
    public static MemorySegment allocateCallState(Arena arena) {
        return arena.allocate(CALL_STATE);
    }

    /** The errno captured into {@code callState} by the last call that used it. */
    public static int errno(MemorySegment callState) {
        return (int) ERRNO_HANDLE.get(callState, 0L);
    }

    // ---- hwloc_obj_type_t -------------------------------------------------------------------
    public static final int HWLOC_OBJ_MACHINE = 0;
    public static final int HWLOC_OBJ_PACKAGE = 1;
    public static final int HWLOC_OBJ_CORE = 2;
    public static final int HWLOC_OBJ_PU = 3;
    public static final int HWLOC_OBJ_L1CACHE = 4;
    public static final int HWLOC_OBJ_L2CACHE = 5;
    public static final int HWLOC_OBJ_L3CACHE = 6;
    public static final int HWLOC_OBJ_L4CACHE = 7;
    public static final int HWLOC_OBJ_L5CACHE = 8;
    public static final int HWLOC_OBJ_L1ICACHE = 9;
    public static final int HWLOC_OBJ_L2ICACHE = 10;
    public static final int HWLOC_OBJ_L3ICACHE = 11;
    public static final int HWLOC_OBJ_GROUP = 12;
    public static final int HWLOC_OBJ_NUMANODE = 13;
    public static final int HWLOC_OBJ_BRIDGE = 14;
    public static final int HWLOC_OBJ_PCI_DEVICE = 15;
    public static final int HWLOC_OBJ_OS_DEVICE = 16;
    public static final int HWLOC_OBJ_MISC = 17;
    public static final int HWLOC_OBJ_MEMCACHE = 18;
    public static final int HWLOC_OBJ_DIE = 19;
    public static final int HWLOC_OBJ_TYPE_MAX = 20;

    // ---- hwloc_obj_cache_type_t --------------------------------------------------------------
    public static final int HWLOC_OBJ_CACHE_UNIFIED = 0;
    public static final int HWLOC_OBJ_CACHE_DATA = 1;
    public static final int HWLOC_OBJ_CACHE_INSTRUCTION = 2;

    // ---- enum hwloc_get_type_depth_e: special depths -----------------------------------------
    public static final int HWLOC_TYPE_DEPTH_UNKNOWN = -1;
    public static final int HWLOC_TYPE_DEPTH_MULTIPLE = -2;
    public static final int HWLOC_TYPE_DEPTH_NUMANODE = -3;
    public static final int HWLOC_TYPE_DEPTH_BRIDGE = -4;
    public static final int HWLOC_TYPE_DEPTH_PCI_DEVICE = -5;
    public static final int HWLOC_TYPE_DEPTH_OS_DEVICE = -6;
    public static final int HWLOC_TYPE_DEPTH_MISC = -7;
    public static final int HWLOC_TYPE_DEPTH_MEMCACHE = -8;

    // ---- hwloc_cpubind_flags_t ---------------------------------------------------------------
    public static final int HWLOC_CPUBIND_PROCESS = 1 << 0;
    public static final int HWLOC_CPUBIND_THREAD = 1 << 1;
    public static final int HWLOC_CPUBIND_STRICT = 1 << 2;
    public static final int HWLOC_CPUBIND_NOMEMBIND = 1 << 3;

    // ---- hwloc_membind_policy_t --------------------------------------------------------------
    public static final int HWLOC_MEMBIND_DEFAULT = 0;
    public static final int HWLOC_MEMBIND_FIRSTTOUCH = 1;
    public static final int HWLOC_MEMBIND_BIND = 2;
    public static final int HWLOC_MEMBIND_INTERLEAVE = 3;
    public static final int HWLOC_MEMBIND_NEXTTOUCH = 4;
    public static final int HWLOC_MEMBIND_MIXED = -1;

    // ---- hwloc_membind_flags_t ---------------------------------------------------------------
    public static final int HWLOC_MEMBIND_PROCESS = 1 << 0;
    public static final int HWLOC_MEMBIND_THREAD = 1 << 1;
    public static final int HWLOC_MEMBIND_STRICT = 1 << 2;
    public static final int HWLOC_MEMBIND_MIGRATE = 1 << 3;
    public static final int HWLOC_MEMBIND_NOCPUBIND = 1 << 4;
    public static final int HWLOC_MEMBIND_BYNODESET = 1 << 5;

    // ---- enum hwloc_topology_flags_e (unsigned long) -----------------------------------------
    public static final long HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED = 1L << 0;
    public static final long HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM = 1L << 1;
    public static final long HWLOC_TOPOLOGY_FLAG_THISSYSTEM_ALLOWED_RESOURCES = 1L << 2;
    public static final long HWLOC_TOPOLOGY_FLAG_IMPORT_SUPPORT = 1L << 3;
    public static final long HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING = 1L << 4;
    public static final long HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_MEMBINDING = 1L << 5;
    public static final long HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING = 1L << 6;
    public static final long HWLOC_TOPOLOGY_FLAG_NO_DISTANCES = 1L << 7;
    public static final long HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS = 1L << 8;
    public static final long HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS = 1L << 9;

    // ---- enum hwloc_type_filter_e ------------------------------------------------------------
    public static final int HWLOC_TYPE_FILTER_KEEP_ALL = 0;
    public static final int HWLOC_TYPE_FILTER_KEEP_NONE = 1;
    public static final int HWLOC_TYPE_FILTER_KEEP_STRUCTURE = 2;
    public static final int HWLOC_TYPE_FILTER_KEEP_IMPORTANT = 3;

    // ---- enum hwloc_topology_export_xml_flags_e (hwloc/export.h) -----------------------------
    public static final long HWLOC_TOPOLOGY_EXPORT_XML_FLAG_V1 = 1L << 0;

    /** {@code HWLOC_UNKNOWN_INDEX}: {@code (unsigned)-1}, the os_index of objects without one. */
    public static final int HWLOC_UNKNOWN_INDEX = -1;

    private static final class hwloc_get_api_version {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_api_version", DESC);
    }

    public static FunctionDescriptor hwloc_get_api_version$descriptor() {
        return hwloc_get_api_version.DESC;
    }

    public static MethodHandle hwloc_get_api_version$handle() {
        return hwloc_get_api_version.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * unsigned hwloc_get_api_version(void)
     * }
     */
    public static int hwloc_get_api_version() {
        var mh$ = hwloc_get_api_version.HANDLE;
        try {
            return (int) mh$.invokeExact();
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_init {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_init", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_init$descriptor() {
        return hwloc_topology_init.DESC;
    }

    public static MethodHandle hwloc_topology_init$handle() {
        return hwloc_topology_init.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_init(hwloc_topology_t *topologyp)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_init(MemorySegment callState, MemorySegment topologyp) {
        var mh$ = hwloc_topology_init.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topologyp);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_load {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_load", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_load$descriptor() {
        return hwloc_topology_load.DESC;
    }

    public static MethodHandle hwloc_topology_load$handle() {
        return hwloc_topology_load.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_load(hwloc_topology_t topology)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_load(MemorySegment callState, MemorySegment topology) {
        var mh$ = hwloc_topology_load.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_destroy {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_destroy", DESC);
    }

    public static FunctionDescriptor hwloc_topology_destroy$descriptor() {
        return hwloc_topology_destroy.DESC;
    }

    public static MethodHandle hwloc_topology_destroy$handle() {
        return hwloc_topology_destroy.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * void hwloc_topology_destroy(hwloc_topology_t topology)
     * }
     */
    public static void hwloc_topology_destroy(MemorySegment topology) {
        var mh$ = hwloc_topology_destroy.HANDLE;
        try {
            mh$.invokeExact(topology);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_set_synthetic {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_set_synthetic", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_set_synthetic$descriptor() {
        return hwloc_topology_set_synthetic.DESC;
    }

    public static MethodHandle hwloc_topology_set_synthetic$handle() {
        return hwloc_topology_set_synthetic.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_set_synthetic(hwloc_topology_t topology, const char *description)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_set_synthetic(MemorySegment callState, MemorySegment topology, MemorySegment description) {
        var mh$ = hwloc_topology_set_synthetic.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, description);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_set_xml {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_set_xml", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_set_xml$descriptor() {
        return hwloc_topology_set_xml.DESC;
    }

    public static MethodHandle hwloc_topology_set_xml$handle() {
        return hwloc_topology_set_xml.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_set_xml(hwloc_topology_t topology, const char *xmlpath)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_set_xml(MemorySegment callState, MemorySegment topology, MemorySegment xmlpath) {
        var mh$ = hwloc_topology_set_xml.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, xmlpath);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_set_xmlbuffer {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_set_xmlbuffer", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_set_xmlbuffer$descriptor() {
        return hwloc_topology_set_xmlbuffer.DESC;
    }

    public static MethodHandle hwloc_topology_set_xmlbuffer$handle() {
        return hwloc_topology_set_xmlbuffer.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_set_xmlbuffer(hwloc_topology_t topology, const char *buffer, int size)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_set_xmlbuffer(MemorySegment callState, MemorySegment topology, MemorySegment buffer, int size) {
        var mh$ = hwloc_topology_set_xmlbuffer.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, buffer, size);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_export_xml {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_export_xml", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_export_xml$descriptor() {
        return hwloc_topology_export_xml.DESC;
    }

    public static MethodHandle hwloc_topology_export_xml$handle() {
        return hwloc_topology_export_xml.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_export_xml(hwloc_topology_t topology, const char *xmlpath, unsigned long flags)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_export_xml(MemorySegment callState, MemorySegment topology, MemorySegment xmlpath, long flags) {
        var mh$ = hwloc_topology_export_xml.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, xmlpath, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_export_xmlbuffer {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_export_xmlbuffer", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_export_xmlbuffer$descriptor() {
        return hwloc_topology_export_xmlbuffer.DESC;
    }

    public static MethodHandle hwloc_topology_export_xmlbuffer$handle() {
        return hwloc_topology_export_xmlbuffer.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_export_xmlbuffer(hwloc_topology_t topology, char **xmlbuffer, int *buflen, unsigned long flags)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_export_xmlbuffer(MemorySegment callState, MemorySegment topology, MemorySegment xmlbuffer, MemorySegment buflen, long flags) {
        var mh$ = hwloc_topology_export_xmlbuffer.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, xmlbuffer, buflen, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_free_xmlbuffer {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_free_xmlbuffer", DESC);
    }

    public static FunctionDescriptor hwloc_free_xmlbuffer$descriptor() {
        return hwloc_free_xmlbuffer.DESC;
    }

    public static MethodHandle hwloc_free_xmlbuffer$handle() {
        return hwloc_free_xmlbuffer.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * void hwloc_free_xmlbuffer(hwloc_topology_t topology, char *xmlbuffer)
     * }
     */
    public static void hwloc_free_xmlbuffer(MemorySegment topology, MemorySegment xmlbuffer) {
        var mh$ = hwloc_free_xmlbuffer.HANDLE;
        try {
            mh$.invokeExact(topology, xmlbuffer);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_set_flags {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_LONG);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_set_flags", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_set_flags$descriptor() {
        return hwloc_topology_set_flags.DESC;
    }

    public static MethodHandle hwloc_topology_set_flags$handle() {
        return hwloc_topology_set_flags.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_set_flags(hwloc_topology_t topology, unsigned long flags)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_set_flags(MemorySegment callState, MemorySegment topology, long flags) {
        var mh$ = hwloc_topology_set_flags.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, flags);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_get_flags {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_LONG, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_get_flags", DESC);
    }

    public static FunctionDescriptor hwloc_topology_get_flags$descriptor() {
        return hwloc_topology_get_flags.DESC;
    }

    public static MethodHandle hwloc_topology_get_flags$handle() {
        return hwloc_topology_get_flags.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * unsigned long hwloc_topology_get_flags(hwloc_topology_t topology)
     * }
     */
    public static long hwloc_topology_get_flags(MemorySegment topology) {
        var mh$ = hwloc_topology_get_flags.HANDLE;
        try {
            return (long) mh$.invokeExact(topology);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_get_support {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_get_support", DESC);
    }

    public static FunctionDescriptor hwloc_topology_get_support$descriptor() {
        return hwloc_topology_get_support.DESC;
    }

    public static MethodHandle hwloc_topology_get_support$handle() {
        return hwloc_topology_get_support.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * const struct hwloc_topology_support *hwloc_topology_get_support(hwloc_topology_t topology)
     * }
     */
    public static MemorySegment hwloc_topology_get_support(MemorySegment topology) {
        var mh$ = hwloc_topology_get_support.HANDLE;
        try {
            return (MemorySegment) mh$.invokeExact(topology);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_set_type_filter {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_set_type_filter", DESC, ERRNO);
    }

    public static FunctionDescriptor hwloc_topology_set_type_filter$descriptor() {
        return hwloc_topology_set_type_filter.DESC;
    }

    public static MethodHandle hwloc_topology_set_type_filter$handle() {
        return hwloc_topology_set_type_filter.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_set_type_filter(hwloc_topology_t topology, hwloc_obj_type_t type, enum hwloc_type_filter_e filter)
     * }
     * <p>{@code callState} receives errno ({@link #allocateCallState}, {@link #errno}).
     */
    public static int hwloc_topology_set_type_filter(MemorySegment callState, MemorySegment topology, int type, int filter) {
        var mh$ = hwloc_topology_set_type_filter.HANDLE;
        try {
            return (int) mh$.invokeExact(callState, topology, type, filter);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_topology_get_depth {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_topology_get_depth", DESC);
    }

    public static FunctionDescriptor hwloc_topology_get_depth$descriptor() {
        return hwloc_topology_get_depth.DESC;
    }

    public static MethodHandle hwloc_topology_get_depth$handle() {
        return hwloc_topology_get_depth.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_topology_get_depth(hwloc_topology_t topology)
     * }
     */
    public static int hwloc_topology_get_depth(MemorySegment topology) {
        var mh$ = hwloc_topology_get_depth.HANDLE;
        try {
            return (int) mh$.invokeExact(topology);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_type_depth {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_type_depth", DESC);
    }

    public static FunctionDescriptor hwloc_get_type_depth$descriptor() {
        return hwloc_get_type_depth.DESC;
    }

    public static MethodHandle hwloc_get_type_depth$handle() {
        return hwloc_get_type_depth.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_get_type_depth(hwloc_topology_t topology, hwloc_obj_type_t type)
     * }
     */
    public static int hwloc_get_type_depth(MemorySegment topology, int type) {
        var mh$ = hwloc_get_type_depth.HANDLE;
        try {
            return (int) mh$.invokeExact(topology, type);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_depth_type {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_depth_type", DESC);
    }

    public static FunctionDescriptor hwloc_get_depth_type$descriptor() {
        return hwloc_get_depth_type.DESC;
    }

    public static MethodHandle hwloc_get_depth_type$handle() {
        return hwloc_get_depth_type.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * hwloc_obj_type_t hwloc_get_depth_type(hwloc_topology_t topology, int depth)
     * }
     */
    public static int hwloc_get_depth_type(MemorySegment topology, int depth) {
        var mh$ = hwloc_get_depth_type.HANDLE;
        try {
            return (int) mh$.invokeExact(topology, depth);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_nbobjs_by_depth {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_nbobjs_by_depth", DESC);
    }

    public static FunctionDescriptor hwloc_get_nbobjs_by_depth$descriptor() {
        return hwloc_get_nbobjs_by_depth.DESC;
    }

    public static MethodHandle hwloc_get_nbobjs_by_depth$handle() {
        return hwloc_get_nbobjs_by_depth.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * unsigned hwloc_get_nbobjs_by_depth(hwloc_topology_t topology, int depth)
     * }
     */
    public static int hwloc_get_nbobjs_by_depth(MemorySegment topology, int depth) {
        var mh$ = hwloc_get_nbobjs_by_depth.HANDLE;
        try {
            return (int) mh$.invokeExact(topology, depth);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_get_obj_by_depth {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_POINTER, C_INT, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_get_obj_by_depth", DESC);
    }

    public static FunctionDescriptor hwloc_get_obj_by_depth$descriptor() {
        return hwloc_get_obj_by_depth.DESC;
    }

    public static MethodHandle hwloc_get_obj_by_depth$handle() {
        return hwloc_get_obj_by_depth.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * hwloc_obj_t hwloc_get_obj_by_depth(hwloc_topology_t topology, int depth, unsigned idx)
     * }
     */
    public static MemorySegment hwloc_get_obj_by_depth(MemorySegment topology, int depth, int idx) {
        var mh$ = hwloc_get_obj_by_depth.HANDLE;
        try {
            return (MemorySegment) mh$.invokeExact(topology, depth, idx);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_obj_type_string {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_obj_type_string", DESC);
    }

    public static FunctionDescriptor hwloc_obj_type_string$descriptor() {
        return hwloc_obj_type_string.DESC;
    }

    public static MethodHandle hwloc_obj_type_string$handle() {
        return hwloc_obj_type_string.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * const char *hwloc_obj_type_string(hwloc_obj_type_t type)
     * }
     */
    public static MemorySegment hwloc_obj_type_string(int type) {
        var mh$ = hwloc_obj_type_string.HANDLE;
        try {
            return (MemorySegment) mh$.invokeExact(type);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }
}
