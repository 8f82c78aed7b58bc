package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Miscellaneous support flags (1 = supported).
 * {@snippet lang = c :
 * struct hwloc_topology_misc_support {
 *   unsigned char imported_support;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_topology_misc_support {
    private hwloc_topology_misc_support() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_CHAR.withName("imported_support")
    ).withName("hwloc_topology_misc_support");

    /** The layout of {@code struct hwloc_topology_misc_support}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_topology_misc_support}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfByte imported_support$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("imported_support"));
    private static final long imported_support$OFFSET = $LAYOUT.byteOffset(groupElement("imported_support"));

    public static long imported_support$offset() {
        return imported_support$OFFSET;
    }

    public static byte imported_support(MemorySegment struct) {
        return struct.get(imported_support$LAYOUT, imported_support$OFFSET);
    }
}
