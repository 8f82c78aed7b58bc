package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_INT;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_POINTER;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_SIZE_T;

/**
 * Raw bindings to the functions of {@code hwloc/bitmap.h} that coll4j uses (CPU and node sets), in the shape of
 * {@link hwloc_h}: a lazily linked holder class per function and a thin static wrapper with the C name and argument
 * order. None of them sets errno.
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_bitmap_h {
    private hwloc_bitmap_h() {
    }

    private static final class hwloc_bitmap_alloc {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_alloc", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_alloc$descriptor() {
        return hwloc_bitmap_alloc.DESC;
    }

    public static MethodHandle hwloc_bitmap_alloc$handle() {
        return hwloc_bitmap_alloc.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * hwloc_bitmap_t hwloc_bitmap_alloc(void)
     * }
     */
    public static MemorySegment hwloc_bitmap_alloc() {
        var mh$ = hwloc_bitmap_alloc.HANDLE;
        try {
            return (MemorySegment) mh$.invokeExact();
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_free {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_free", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_free$descriptor() {
        return hwloc_bitmap_free.DESC;
    }

    public static MethodHandle hwloc_bitmap_free$handle() {
        return hwloc_bitmap_free.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * void hwloc_bitmap_free(hwloc_bitmap_t bitmap)
     * }
     */
    public static void hwloc_bitmap_free(MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_free.HANDLE;
        try {
            mh$.invokeExact(bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_zero {
        static final FunctionDescriptor DESC = FunctionDescriptor.ofVoid(C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_zero", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_zero$descriptor() {
        return hwloc_bitmap_zero.DESC;
    }

    public static MethodHandle hwloc_bitmap_zero$handle() {
        return hwloc_bitmap_zero.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * void hwloc_bitmap_zero(hwloc_bitmap_t bitmap)
     * }
     */
    public static void hwloc_bitmap_zero(MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_zero.HANDLE;
        try {
            mh$.invokeExact(bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_only {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_only", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_only$descriptor() {
        return hwloc_bitmap_only.DESC;
    }

    public static MethodHandle hwloc_bitmap_only$handle() {
        return hwloc_bitmap_only.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_only(hwloc_bitmap_t bitmap, unsigned id)
     * }
     */
    public static int hwloc_bitmap_only(MemorySegment bitmap, int id) {
        var mh$ = hwloc_bitmap_only.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap, id);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_set {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_set", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_set$descriptor() {
        return hwloc_bitmap_set.DESC;
    }

    public static MethodHandle hwloc_bitmap_set$handle() {
        return hwloc_bitmap_set.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_set(hwloc_bitmap_t bitmap, unsigned id)
     * }
     */
    public static int hwloc_bitmap_set(MemorySegment bitmap, int id) {
        var mh$ = hwloc_bitmap_set.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap, id);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_isset {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_isset", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_isset$descriptor() {
        return hwloc_bitmap_isset.DESC;
    }

    public static MethodHandle hwloc_bitmap_isset$handle() {
        return hwloc_bitmap_isset.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_isset(hwloc_const_bitmap_t bitmap, unsigned id)
     * }
     */
    public static int hwloc_bitmap_isset(MemorySegment bitmap, int id) {
        var mh$ = hwloc_bitmap_isset.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap, id);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_iszero {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_iszero", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_iszero$descriptor() {
        return hwloc_bitmap_iszero.DESC;
    }

    public static MethodHandle hwloc_bitmap_iszero$handle() {
        return hwloc_bitmap_iszero.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_iszero(hwloc_const_bitmap_t bitmap)
     * }
     */
    public static int hwloc_bitmap_iszero(MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_iszero.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_first {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_first", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_first$descriptor() {
        return hwloc_bitmap_first.DESC;
    }

    public static MethodHandle hwloc_bitmap_first$handle() {
        return hwloc_bitmap_first.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_first(hwloc_const_bitmap_t bitmap)
     * }
     */
    public static int hwloc_bitmap_first(MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_first.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_next {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_INT);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_next", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_next$descriptor() {
        return hwloc_bitmap_next.DESC;
    }

    public static MethodHandle hwloc_bitmap_next$handle() {
        return hwloc_bitmap_next.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_next(hwloc_const_bitmap_t bitmap, int prev)
     * }
     */
    public static int hwloc_bitmap_next(MemorySegment bitmap, int prev) {
        var mh$ = hwloc_bitmap_next.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap, prev);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_weight {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_weight", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_weight$descriptor() {
        return hwloc_bitmap_weight.DESC;
    }

    public static MethodHandle hwloc_bitmap_weight$handle() {
        return hwloc_bitmap_weight.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_weight(hwloc_const_bitmap_t bitmap)
     * }
     */
    public static int hwloc_bitmap_weight(MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_weight.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_snprintf {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_SIZE_T, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_snprintf", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_snprintf$descriptor() {
        return hwloc_bitmap_snprintf.DESC;
    }

    public static MethodHandle hwloc_bitmap_snprintf$handle() {
        return hwloc_bitmap_snprintf.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_snprintf(char *buf, size_t buflen, hwloc_const_bitmap_t bitmap)
     * }
     */
    public static int hwloc_bitmap_snprintf(MemorySegment buf, long buflen, MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_snprintf.HANDLE;
        try {
            return (int) mh$.invokeExact(buf, buflen, bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_list_snprintf {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_SIZE_T, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_list_snprintf", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_list_snprintf$descriptor() {
        return hwloc_bitmap_list_snprintf.DESC;
    }

    public static MethodHandle hwloc_bitmap_list_snprintf$handle() {
        return hwloc_bitmap_list_snprintf.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_list_snprintf(char *buf, size_t buflen, hwloc_const_bitmap_t bitmap)
     * }
     */
    public static int hwloc_bitmap_list_snprintf(MemorySegment buf, long buflen, MemorySegment bitmap) {
        var mh$ = hwloc_bitmap_list_snprintf.HANDLE;
        try {
            return (int) mh$.invokeExact(buf, buflen, bitmap);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }

    private static final class hwloc_bitmap_list_sscanf {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(C_INT, C_POINTER, C_POINTER);
        static final MethodHandle HANDLE = HwlocLibrary.downcall("hwloc_bitmap_list_sscanf", DESC);
    }

    public static FunctionDescriptor hwloc_bitmap_list_sscanf$descriptor() {
        return hwloc_bitmap_list_sscanf.DESC;
    }

    public static MethodHandle hwloc_bitmap_list_sscanf$handle() {
        return hwloc_bitmap_list_sscanf.HANDLE;
    }

    /**
     * {@snippet lang = c :
     * int hwloc_bitmap_list_sscanf(hwloc_bitmap_t bitmap, const char *string)
     * }
     */
    public static int hwloc_bitmap_list_sscanf(MemorySegment bitmap, MemorySegment string) {
        var mh$ = hwloc_bitmap_list_sscanf.HANDLE;
        try {
            return (int) mh$.invokeExact(bitmap, string);
        } catch (Throwable ex$) {
            throw new AssertionError("should not reach here", ex$);
        }
    }
}
