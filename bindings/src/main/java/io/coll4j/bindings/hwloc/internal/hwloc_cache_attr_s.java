package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Cache attributes ({@code attr->cache}).
 * {@snippet lang = c :
 * struct hwloc_cache_attr_s {
 *   hwloc_uint64_t size;
 *   unsigned depth;
 *   unsigned linesize;
 *   int associativity;
 *   hwloc_obj_cache_type_t type;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_cache_attr_s {
    private hwloc_cache_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_LONG_LONG.withName("size"),
            C_INT.withName("depth"),
            C_INT.withName("linesize"),
            C_INT.withName("associativity"),
            C_INT.withName("type")
    ).withName("hwloc_cache_attr_s");

    /** The layout of {@code struct hwloc_cache_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_cache_attr_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfLong size$LAYOUT = (ValueLayout.OfLong) $LAYOUT.select(groupElement("size"));
    private static final long size$OFFSET = $LAYOUT.byteOffset(groupElement("size"));

    public static long size$offset() {
        return size$OFFSET;
    }

    public static long size(MemorySegment struct) {
        return struct.get(size$LAYOUT, size$OFFSET);
    }
    private static final ValueLayout.OfInt depth$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("depth"));
    private static final long depth$OFFSET = $LAYOUT.byteOffset(groupElement("depth"));

    public static long depth$offset() {
        return depth$OFFSET;
    }

    public static int depth(MemorySegment struct) {
        return struct.get(depth$LAYOUT, depth$OFFSET);
    }
    private static final ValueLayout.OfInt linesize$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("linesize"));
    private static final long linesize$OFFSET = $LAYOUT.byteOffset(groupElement("linesize"));

    public static long linesize$offset() {
        return linesize$OFFSET;
    }

    public static int linesize(MemorySegment struct) {
        return struct.get(linesize$LAYOUT, linesize$OFFSET);
    }
    private static final ValueLayout.OfInt associativity$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("associativity"));
    private static final long associativity$OFFSET = $LAYOUT.byteOffset(groupElement("associativity"));

    public static long associativity$offset() {
        return associativity$OFFSET;
    }

    public static int associativity(MemorySegment struct) {
        return struct.get(associativity$LAYOUT, associativity$OFFSET);
    }
    private static final ValueLayout.OfInt type$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("type"));
    private static final long type$OFFSET = $LAYOUT.byteOffset(groupElement("type"));

    public static long type$offset() {
        return type$OFFSET;
    }

    public static int type(MemorySegment struct) {
        return struct.get(type$LAYOUT, type$OFFSET);
    }
}
