package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Discovery support flags (1 = supported).
 * {@snippet lang = c :
 * struct hwloc_topology_discovery_support {
 *   unsigned char pu;
 *   unsigned char numa;
 *   unsigned char numa_memory;
 *   unsigned char disallowed_pu;
 *   unsigned char disallowed_numa;
 *   unsigned char cpukind_efficiency;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_topology_discovery_support {
    private hwloc_topology_discovery_support() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_CHAR.withName("pu"),
            C_CHAR.withName("numa"),
            C_CHAR.withName("numa_memory"),
            C_CHAR.withName("disallowed_pu"),
            C_CHAR.withName("disallowed_numa"),
            C_CHAR.withName("cpukind_efficiency")
    ).withName("hwloc_topology_discovery_support");

    /** The layout of {@code struct hwloc_topology_discovery_support}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_topology_discovery_support}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfByte pu$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("pu"));
    private static final long pu$OFFSET = $LAYOUT.byteOffset(groupElement("pu"));

    public static long pu$offset() {
        return pu$OFFSET;
    }

    public static byte pu(MemorySegment struct) {
        return struct.get(pu$LAYOUT, pu$OFFSET);
    }
    private static final ValueLayout.OfByte numa$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("numa"));
    private static final long numa$OFFSET = $LAYOUT.byteOffset(groupElement("numa"));

    public static long numa$offset() {
        return numa$OFFSET;
    }

    public static byte numa(MemorySegment struct) {
        return struct.get(numa$LAYOUT, numa$OFFSET);
    }
    private static final ValueLayout.OfByte numa_memory$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("numa_memory"));
    private static final long numa_memory$OFFSET = $LAYOUT.byteOffset(groupElement("numa_memory"));

    public static long numa_memory$offset() {
        return numa_memory$OFFSET;
    }

    public static byte numa_memory(MemorySegment struct) {
        return struct.get(numa_memory$LAYOUT, numa_memory$OFFSET);
    }
    private static final ValueLayout.OfByte disallowed_pu$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("disallowed_pu"));
    private static final long disallowed_pu$OFFSET = $LAYOUT.byteOffset(groupElement("disallowed_pu"));

    public static long disallowed_pu$offset() {
        return disallowed_pu$OFFSET;
    }

    public static byte disallowed_pu(MemorySegment struct) {
        return struct.get(disallowed_pu$LAYOUT, disallowed_pu$OFFSET);
    }
    private static final ValueLayout.OfByte disallowed_numa$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("disallowed_numa"));
    private static final long disallowed_numa$OFFSET = $LAYOUT.byteOffset(groupElement("disallowed_numa"));

    public static long disallowed_numa$offset() {
        return disallowed_numa$OFFSET;
    }

    public static byte disallowed_numa(MemorySegment struct) {
        return struct.get(disallowed_numa$LAYOUT, disallowed_numa$OFFSET);
    }
    private static final ValueLayout.OfByte cpukind_efficiency$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("cpukind_efficiency"));
    private static final long cpukind_efficiency$OFFSET = $LAYOUT.byteOffset(groupElement("cpukind_efficiency"));

    public static long cpukind_efficiency$offset() {
        return cpukind_efficiency$OFFSET;
    }

    public static byte cpukind_efficiency(MemorySegment struct) {
        return struct.get(cpukind_efficiency$LAYOUT, cpukind_efficiency$OFFSET);
    }
}
