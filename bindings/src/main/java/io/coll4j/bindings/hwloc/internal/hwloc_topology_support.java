package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * What the loaded topology's backends support ({@code hwloc_topology_get_support}).
 * {@snippet lang = c :
 * struct hwloc_topology_support {
 *   struct hwloc_topology_discovery_support *discovery;
 *   struct hwloc_topology_cpubind_support *cpubind;
 *   struct hwloc_topology_membind_support *membind;
 *   struct hwloc_topology_misc_support *misc;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_topology_support {
    private hwloc_topology_support() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_POINTER.withName("discovery"),
            C_POINTER.withName("cpubind"),
            C_POINTER.withName("membind"),
            C_POINTER.withName("misc")
    ).withName("hwloc_topology_support");

    /** The layout of {@code struct hwloc_topology_support}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_topology_support}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final AddressLayout discovery$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("discovery"));
    private static final long discovery$OFFSET = $LAYOUT.byteOffset(groupElement("discovery"));

    public static long discovery$offset() {
        return discovery$OFFSET;
    }

    public static MemorySegment discovery(MemorySegment struct) {
        return struct.get(discovery$LAYOUT, discovery$OFFSET);
    }
    private static final AddressLayout cpubind$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("cpubind"));
    private static final long cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("cpubind"));

    public static long cpubind$offset() {
        return cpubind$OFFSET;
    }

    public static MemorySegment cpubind(MemorySegment struct) {
        return struct.get(cpubind$LAYOUT, cpubind$OFFSET);
    }
    private static final AddressLayout membind$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("membind"));
    private static final long membind$OFFSET = $LAYOUT.byteOffset(groupElement("membind"));

    public static long membind$offset() {
        return membind$OFFSET;
    }

    public static MemorySegment membind(MemorySegment struct) {
        return struct.get(membind$LAYOUT, membind$OFFSET);
    }
    private static final AddressLayout misc$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("misc"));
    private static final long misc$OFFSET = $LAYOUT.byteOffset(groupElement("misc"));

    public static long misc$offset() {
        return misc$OFFSET;
    }

    public static MemorySegment misc(MemorySegment struct) {
        return struct.get(misc$LAYOUT, misc$OFFSET);
    }
}
