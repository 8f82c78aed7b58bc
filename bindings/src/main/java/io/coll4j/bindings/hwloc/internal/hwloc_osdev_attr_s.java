package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * OS device attributes ({@code attr->osdev}).
 * {@snippet lang = c :
 * struct hwloc_osdev_attr_s {
 *   hwloc_obj_osdev_type_t type;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_osdev_attr_s {
    private hwloc_osdev_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_INT.withName("type")
    ).withName("hwloc_osdev_attr_s");

    /** The layout of {@code struct hwloc_osdev_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_osdev_attr_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
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
