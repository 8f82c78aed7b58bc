package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * One page size of a NUMA node ({@code attr->numanode.page_types[i]}).
 * {@snippet lang = c :
 * struct hwloc_memory_page_type_s {
 *   hwloc_uint64_t size;
 *   hwloc_uint64_t count;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_memory_page_type_s {
    private hwloc_memory_page_type_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_LONG_LONG.withName("size"),
            C_LONG_LONG.withName("count")
    ).withName("hwloc_memory_page_type_s");

    /** The layout of {@code struct hwloc_memory_page_type_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_memory_page_type_s}. */
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
    private static final ValueLayout.OfLong count$LAYOUT = (ValueLayout.OfLong) $LAYOUT.select(groupElement("count"));
    private static final long count$OFFSET = $LAYOUT.byteOffset(groupElement("count"));

    public static long count$offset() {
        return count$OFFSET;
    }

    public static long count(MemorySegment struct) {
        return struct.get(count$LAYOUT, count$OFFSET);
    }
}
