package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * CPU binding support flags (1 = supported).
 * {@snippet lang = c :
 * struct hwloc_topology_cpubind_support {
 *   unsigned char set_thisproc_cpubind;
 *   unsigned char get_thisproc_cpubind;
 *   unsigned char set_proc_cpubind;
 *   unsigned char get_proc_cpubind;
 *   unsigned char set_thisthread_cpubind;
 *   unsigned char get_thisthread_cpubind;
 *   unsigned char set_thread_cpubind;
 *   unsigned char get_thread_cpubind;
 *   unsigned char get_thisproc_last_cpu_location;
 *   unsigned char get_proc_last_cpu_location;
 *   unsigned char get_thisthread_last_cpu_location;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_topology_cpubind_support {
    private hwloc_topology_cpubind_support() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_CHAR.withName("set_thisproc_cpubind"),
            C_CHAR.withName("get_thisproc_cpubind"),
            C_CHAR.withName("set_proc_cpubind"),
            C_CHAR.withName("get_proc_cpubind"),
            C_CHAR.withName("set_thisthread_cpubind"),
            C_CHAR.withName("get_thisthread_cpubind"),
            C_CHAR.withName("set_thread_cpubind"),
            C_CHAR.withName("get_thread_cpubind"),
            C_CHAR.withName("get_thisproc_last_cpu_location"),
            C_CHAR.withName("get_proc_last_cpu_location"),
            C_CHAR.withName("get_thisthread_last_cpu_location")
    ).withName("hwloc_topology_cpubind_support");

    /** The layout of {@code struct hwloc_topology_cpubind_support}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_topology_cpubind_support}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfByte set_thisproc_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_thisproc_cpubind"));
    private static final long set_thisproc_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("set_thisproc_cpubind"));

    public static long set_thisproc_cpubind$offset() {
        return set_thisproc_cpubind$OFFSET;
    }

    public static byte set_thisproc_cpubind(MemorySegment struct) {
        return struct.get(set_thisproc_cpubind$LAYOUT, set_thisproc_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisproc_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisproc_cpubind"));
    private static final long get_thisproc_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisproc_cpubind"));

    public static long get_thisproc_cpubind$offset() {
        return get_thisproc_cpubind$OFFSET;
    }

    public static byte get_thisproc_cpubind(MemorySegment struct) {
        return struct.get(get_thisproc_cpubind$LAYOUT, get_thisproc_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte set_proc_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_proc_cpubind"));
    private static final long set_proc_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("set_proc_cpubind"));

    public static long set_proc_cpubind$offset() {
        return set_proc_cpubind$OFFSET;
    }

    public static byte set_proc_cpubind(MemorySegment struct) {
        return struct.get(set_proc_cpubind$LAYOUT, set_proc_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte get_proc_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_proc_cpubind"));
    private static final long get_proc_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("get_proc_cpubind"));

    public static long get_proc_cpubind$offset() {
        return get_proc_cpubind$OFFSET;
    }

    public static byte get_proc_cpubind(MemorySegment struct) {
        return struct.get(get_proc_cpubind$LAYOUT, get_proc_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte set_thisthread_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_thisthread_cpubind"));
    private static final long set_thisthread_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("set_thisthread_cpubind"));

    public static long set_thisthread_cpubind$offset() {
        return set_thisthread_cpubind$OFFSET;
    }

    public static byte set_thisthread_cpubind(MemorySegment struct) {
        return struct.get(set_thisthread_cpubind$LAYOUT, set_thisthread_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisthread_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisthread_cpubind"));
    private static final long get_thisthread_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisthread_cpubind"));

    public static long get_thisthread_cpubind$offset() {
        return get_thisthread_cpubind$OFFSET;
    }

    public static byte get_thisthread_cpubind(MemorySegment struct) {
        return struct.get(get_thisthread_cpubind$LAYOUT, get_thisthread_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte set_thread_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("set_thread_cpubind"));
    private static final long set_thread_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("set_thread_cpubind"));

    public static long set_thread_cpubind$offset() {
        return set_thread_cpubind$OFFSET;
    }

    public static byte set_thread_cpubind(MemorySegment struct) {
        return struct.get(set_thread_cpubind$LAYOUT, set_thread_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thread_cpubind$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thread_cpubind"));
    private static final long get_thread_cpubind$OFFSET = $LAYOUT.byteOffset(groupElement("get_thread_cpubind"));

    public static long get_thread_cpubind$offset() {
        return get_thread_cpubind$OFFSET;
    }

    public static byte get_thread_cpubind(MemorySegment struct) {
        return struct.get(get_thread_cpubind$LAYOUT, get_thread_cpubind$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisproc_last_cpu_location$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisproc_last_cpu_location"));
    private static final long get_thisproc_last_cpu_location$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisproc_last_cpu_location"));

    public static long get_thisproc_last_cpu_location$offset() {
        return get_thisproc_last_cpu_location$OFFSET;
    }

    public static byte get_thisproc_last_cpu_location(MemorySegment struct) {
        return struct.get(get_thisproc_last_cpu_location$LAYOUT, get_thisproc_last_cpu_location$OFFSET);
    }
    private static final ValueLayout.OfByte get_proc_last_cpu_location$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_proc_last_cpu_location"));
    private static final long get_proc_last_cpu_location$OFFSET = $LAYOUT.byteOffset(groupElement("get_proc_last_cpu_location"));

    public static long get_proc_last_cpu_location$offset() {
        return get_proc_last_cpu_location$OFFSET;
    }

    public static byte get_proc_last_cpu_location(MemorySegment struct) {
        return struct.get(get_proc_last_cpu_location$LAYOUT, get_proc_last_cpu_location$OFFSET);
    }
    private static final ValueLayout.OfByte get_thisthread_last_cpu_location$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("get_thisthread_last_cpu_location"));
    private static final long get_thisthread_last_cpu_location$OFFSET = $LAYOUT.byteOffset(groupElement("get_thisthread_last_cpu_location"));

    public static long get_thisthread_last_cpu_location$offset() {
        return get_thisthread_last_cpu_location$OFFSET;
    }

    public static byte get_thisthread_last_cpu_location(MemorySegment struct) {
        return struct.get(get_thisthread_last_cpu_location$LAYOUT, get_thisthread_last_cpu_location$OFFSET);
    }
}
