package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Memory binding support flags (1 = supported).
 * {@snippet lang = c :
 * struct hwloc_topology_membind_support {
 *   unsigned char set_thisproc_membind;
 *   unsigned char get_thisproc_membind;
 *   unsigned char set_proc_membind;
 *   unsigned char get_proc_membind;
 *   unsigned char set_thisthread_membind;
 *   unsigned char get_thisthread_membind;
 *   unsigned char set_area_membind;
 *   unsigned char get_area_membind;
 *   unsigned char alloc_membind;
 *   unsigned char firsttouch_membind;
 *   unsigned char bind_membind;
 *   unsigned char interleave_membind;
 *   unsigned char nexttouch_membind;
 *   unsigned char migrate_membind;
 *   unsigned char get_area_memlocation;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_topology_membind_support {
    private hwloc_topology_membind_support() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_CHAR.withName("set_thisproc_membind"),
            C_CHAR.withName("get_thisproc_membind"),
            C_CHAR.withName("set_proc_membind"),
            C_CHAR.withName("get_proc_membind"),
            C_CHAR.withName("set_thisthread_membind"),
            C_CHAR.withName("get_thisthread_membind"),
            C_CHAR.withName("set_area_membind"),
            C_CHAR.withName("get_area_membind"),
            C_CHAR.withName("alloc_membind"),
            C_CHAR.withName("firsttouch_membind"),
            C_CHAR.withName("bind_membind"),
            C_CHAR.withName("interleave_membind"),
            C_CHAR.withName("nexttouch_membind"),
            C_CHAR.withName("migrate_membind"),
            C_CHAR.withName("get_area_memlocation")
    ).withName("hwloc_topology_membind_support");

    /** The layout of {@code struct hwloc_topology_membind_support}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_topology_membind_support}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfByte set_thisproc_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_thisproc_membind"));
    private static final long set_thisproc_membind$OFFSET = $LAYOUT.byteOffset(groupElement("set_thisproc_membind"));

    public static long set_thisproc_membind$offset() {
        return set_thisproc_membind$OFFSET;
    }

    public static byte set_thisproc_membind(MemorySegment struct) {
        return struct.get(set_thisproc_membind$LAYOUT, set_thisproc_membind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisproc_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisproc_membind"));
    private static final long get_thisproc_membind$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisproc_membind"));

    public static long get_thisproc_membind$offset() {
        return get_thisproc_membind$OFFSET;
    }

    public static byte get_thisproc_membind(MemorySegment struct) {
        return struct.get(get_thisproc_membind$LAYOUT, get_thisproc_membind$OFFSET);
    }
    private static final ValueLayout.OfByte set_proc_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_proc_membind"));
    private static final long set_proc_membind$OFFSET = $LAYOUT.byteOffset(groupElement("set_proc_membind"));

    public static long set_proc_membind$offset() {
        return set_proc_membind$OFFSET;
    }

    public static byte set_proc_membind(MemorySegment struct) {
        return struct.get(set_proc_membind$LAYOUT, set_proc_membind$OFFSET);
    }
    private static final ValueLayout.OfByte get_proc_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_proc_membind"));
    private static final long get_proc_membind$OFFSET = $LAYOUT.byteOffset(groupElement("get_proc_membind"));

    public static long get_proc_membind$offset() {
        return get_proc_membind$OFFSET;
    }

    public static byte get_proc_membind(MemorySegment struct) {
        return struct.get(get_proc_membind$LAYOUT, get_proc_membind$OFFSET);
    }
    private static final ValueLayout.OfByte set_thisthread_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_thisthread_membind"));
    private static final long set_thisthread_membind$OFFSET = $LAYOUT.byteOffset(groupElement("set_thisthread_membind"));

    public static long set_thisthread_membind$offset() {
        return set_thisthread_membind$OFFSET;
    }

    public static byte set_thisthread_membind(MemorySegment struct) {
        return struct.get(set_thisthread_membind$LAYOUT, set_thisthread_membind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisthread_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisthread_membind"));
    private static final long get_thisthread_membind$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisthread_membind"));

    public static long get_thisthread_membind$offset() {
        return get_thisthread_membind$OFFSET;
    }

    public static byte get_thisthread_membind(MemorySegment struct) {
        return struct.get(get_thisthread_membind$LAYOUT, get_thisthread_membind$OFFSET);
    }
    private static final ValueLayout.OfByte set_area_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_area_membind"));
    private static final long set_area_membind$OFFSET = $LAYOUT.byteOffset(groupElement("set_area_membind"));

    public static long set_area_membind$offset() {
        return set_area_membind$OFFSET;
    }

    public static byte set_area_membind(MemorySegment struct) {
        return struct.get(set_area_membind$LAYOUT, set_area_membind$OFFSET);
    }
    private static final ValueLayout.OfByte get_area_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_area_membind"));
    private static final long get_area_membind$OFFSET = $LAYOUT.byteOffset(groupElement("get_area_membind"));

    public static long get_area_membind$offset() {
        return get_area_membind$OFFSET;
    }

    public static byte get_area_membind(MemorySegment struct) {
        return struct.get(get_area_membind$LAYOUT, get_area_membind$OFFSET);
    }
    private static final ValueLayout.OfByte alloc_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("alloc_membind"));
    private static final long alloc_membind$OFFSET = $LAYOUT.byteOffset(groupElement("alloc_membind"));

    public static long alloc_membind$offset() {
        return alloc_membind$OFFSET;
    }

    public static byte alloc_membind(MemorySegment struct) {
        return struct.get(alloc_membind$LAYOUT, alloc_membind$OFFSET);
    }
    private static final ValueLayout.OfByte firsttouch_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("firsttouch_membind"));
    private static final long firsttouch_membind$OFFSET = $LAYOUT.byteOffset(groupElement("firsttouch_membind"));

    public static long firsttouch_membind$offset() {
        return firsttouch_membind$OFFSET;
    }

    public static byte firsttouch_membind(MemorySegment struct) {
        return struct.get(firsttouch_membind$LAYOUT, firsttouch_membind$OFFSET);
    }
    private static final ValueLayout.OfByte bind_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("bind_membind"));
    private static final long bind_membind$OFFSET = $LAYOUT.byteOffset(groupElement("bind_membind"));

    public static long bind_membind$offset() {
        return bind_membind$OFFSET;
    }

    public static byte bind_membind(MemorySegment struct) {
        return struct.get(bind_membind$LAYOUT, bind_membind$OFFSET);
    }
    private static final ValueLayout.OfByte interleave_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("interleave_membind"));
    private static final long interleave_membind$OFFSET = $LAYOUT.byteOffset(groupElement("interleave_membind"));

    public static long interleave_membind$offset() {
        return interleave_membind$OFFSET;
    }

    public static byte interleave_membind(MemorySegment struct) {
        return struct.get(interleave_membind$LAYOUT, interleave_membind$OFFSET);
    }
    private static final ValueLayout.OfByte nexttouch_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("nexttouch_membind"));
    private static final long nexttouch_membind$OFFSET = $LAYOUT.byteOffset(groupElement("nexttouch_membind"));

    public static long nexttouch_membind$offset() {
        return nexttouch_membind$OFFSET;
    }

    public static byte nexttouch_membind(MemorySegment struct) {
        return struct.get(nexttouch_membind$LAYOUT, nexttouch_membind$OFFSET);
    }
    private static final ValueLayout.OfByte migrate_membind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("migrate_membind"));
    private static final long migrate_membind$OFFSET = $LAYOUT.byteOffset(groupElement("migrate_membind"));

    public static long migrate_membind$offset() {
        return migrate_membind$OFFSET;
    }

    public static byte migrate_membind(MemorySegment struct) {
        return struct.get(migrate_membind$LAYOUT, migrate_membind$OFFSET);
    }
    private static final ValueLayout.OfByte get_area_memlocation$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_area_memlocation"));
    private static final long get_area_memlocation$OFFSET = $LAYOUT.byteOffset(groupElement("get_area_memlocation"));

    public static long get_area_memlocation$offset() {
        return get_area_memlocation$OFFSET;
    }

    public static byte get_area_memlocation(MemorySegment struct) {
        return struct.get(get_area_memlocation$LAYOUT, get_area_memlocation$OFFSET);
    }
}
