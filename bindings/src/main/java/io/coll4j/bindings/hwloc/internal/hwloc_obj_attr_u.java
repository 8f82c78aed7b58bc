package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * The type-specific attributes of an object ({@code obj->attr}); which member is valid depends on
 * {@code obj->type}: {@code numanode} for NUMA nodes, {@code cache} for L1..L5 and L1i..L3i caches,
 * {@code group} for groups, {@code pcidev}/{@code bridge}/{@code osdev} for I/O objects.
 * {@snippet lang = c :
 * union hwloc_obj_attr_u {
 *   struct hwloc_numanode_attr_s numanode;
 *   struct hwloc_cache_attr_s cache;
 *   struct hwloc_group_attr_s group;
 *   struct hwloc_pcidev_attr_s pcidev;
 *   struct hwloc_bridge_attr_s bridge;
 *   struct hwloc_osdev_attr_s osdev;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_obj_attr_u {
    private hwloc_obj_attr_u() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.unionLayout(
            hwloc_numanode_attr_s.layout().withName("numanode"),
            hwloc_cache_attr_s.layout().withName("cache"),
            hwloc_group_attr_s.layout().withName("group"),
            hwloc_pcidev_attr_s.layout().withName("pcidev"),
            hwloc_bridge_attr_s.layout().withName("bridge"),
            hwloc_osdev_attr_s.layout().withName("osdev")
    ).withName("hwloc_obj_attr_u");

    /** The layout of {@code union hwloc_obj_attr_u}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (the {@code attr} pointer of an object) sized to the union. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final long numanode$OFFSET = $LAYOUT.byteOffset(groupElement("numanode"));
    private static final long cache$OFFSET = $LAYOUT.byteOffset(groupElement("cache"));
    private static final long group$OFFSET = $LAYOUT.byteOffset(groupElement("group"));

    public static long numanode$offset() {
        return numanode$OFFSET;
    }

    public static long cache$offset() {
        return cache$OFFSET;
    }

    public static long group$offset() {
        return group$OFFSET;
    }

    /** The {@code numanode} member, for use with {@link hwloc_numanode_attr_s}'s accessors. */
    public static MemorySegment numanode(MemorySegment union) {
        return union.asSlice(numanode$OFFSET, hwloc_numanode_attr_s.layout());
    }

    /** The {@code cache} member, for use with {@link hwloc_cache_attr_s}'s accessors. */
    public static MemorySegment cache(MemorySegment union) {
        return union.asSlice(cache$OFFSET, hwloc_cache_attr_s.layout());
    }

    /** The {@code group} member, for use with {@link hwloc_group_attr_s}'s accessors. */
    public static MemorySegment group(MemorySegment union) {
        return union.asSlice(group$OFFSET, hwloc_group_attr_s.layout());
    }
}
