package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * One {@code name=value} info pair of an object ({@code obj->infos[i]}).
 * {@snippet lang = c :
 * struct hwloc_info_s {
 *   char *name;
 *   char *value;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_info_s {
    private hwloc_info_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_POINTER.withName("name"),
            C_POINTER.withName("value")
    ).withName("hwloc_info_s");

    /** The layout of {@code struct hwloc_info_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_info_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final AddressLayout name$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("name"));
    private static final long name$OFFSET = $LAYOUT.byteOffset(groupElement("name"));

    public static long name$offset() {
        return name$OFFSET;
    }

    public static MemorySegment name(MemorySegment struct) {
        return struct.get(name$LAYOUT, name$OFFSET);
    }
    private static final AddressLayout value$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("value"));
    private static final long value$OFFSET = $LAYOUT.byteOffset(groupElement("value"));

    public static long value$offset() {
        return value$OFFSET;
    }

    public static MemorySegment value(MemorySegment struct) {
        return struct.get(value$LAYOUT, value$OFFSET);
    }
}
