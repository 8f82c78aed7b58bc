package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * NUMA node attributes ({@code attr->numanode}).
 * {@snippet lang = c :
 * struct hwloc_numanode_attr_s {
 *   hwloc_uint64_t local_memory;
 *   unsigned page_types_len;
 *   struct hwloc_memory_page_type_s {
 *     hwloc_uint64_t size;
 *     hwloc_uint64_t count;
 *   } *page_types;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_numanode_attr_s {
    private hwloc_numanode_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_LONG_LONG.withName("local_memory"),
            C_INT.withName("page_types_len"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("page_types")
    ).withName("hwloc_numanode_attr_s");

    /** The layout of {@code struct hwloc_numanode_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_numanode_attr_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfLong local_memory$LAYOUT = (ValueLayout.OfLong) $LAYOUT.select(groupElement("local_memory"));
    private static final long local_memory$OFFSET = $LAYOUT.byteOffset(groupElement("local_memory"));

    public static long local_memory$offset() {
        return local_memory$OFFSET;
    }

    public static long local_memory(MemorySegment struct) {
        return struct.get(local_memory$LAYOUT, local_memory$OFFSET);
    }
    private static final ValueLayout.OfInt page_types_len$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("page_types_len"));
    private static final long page_types_len$OFFSET = $LAYOUT.byteOffset(groupElement("page_types_len"));

    public static long page_types_len$offset() {
        return page_types_len$OFFSET;
    }

    public static int page_types_len(MemorySegment struct) {
        return struct.get(page_types_len$LAYOUT, page_types_len$OFFSET);
    }
    private static final AddressLayout page_types$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("page_types"));
    private static final long page_types$OFFSET = $LAYOUT.byteOffset(groupElement("page_types"));

    public static long page_types$offset() {
        return page_types$OFFSET;
    }

    public static MemorySegment page_types(MemorySegment struct) {
        return struct.get(page_types$LAYOUT, page_types$OFFSET);
    }
}
