package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * One object of the topology tree (Machine, Package, NUMANode, caches, Core, PU, ...).
 * {@snippet lang = c :
 * struct hwloc_obj {
 *   hwloc_obj_type_t type;
 *   char *subtype;
 *   unsigned os_index;
 *   char *name;
 *   hwloc_uint64_t total_memory;
 *   union hwloc_obj_attr_u *attr;
 *   int depth;
 *   unsigned logical_index;
 *   struct hwloc_obj *next_cousin;
 *   struct hwloc_obj *prev_cousin;
 *   struct hwloc_obj *parent;
 *   unsigned sibling_rank;
 *   struct hwloc_obj *next_sibling;
 *   struct hwloc_obj *prev_sibling;
 *   unsigned arity;
 *   struct hwloc_obj **children;
 *   struct hwloc_obj *first_child;
 *   struct hwloc_obj *last_child;
 *   int symmetric_subtree;
 *   unsigned memory_arity;
 *   struct hwloc_obj *memory_first_child;
 *   unsigned io_arity;
 *   struct hwloc_obj *io_first_child;
 *   unsigned misc_arity;
 *   struct hwloc_obj *misc_first_child;
 *   hwloc_cpuset_t cpuset;
 *   hwloc_cpuset_t complete_cpuset;
 *   hwloc_nodeset_t nodeset;
 *   hwloc_nodeset_t complete_nodeset;
 *   struct hwloc_info_s *infos;
 *   unsigned infos_count;
 *   void *userdata;
 *   hwloc_uint64_t gp_index;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_obj {
    private hwloc_obj() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_INT.withName("type"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("subtype"),
            C_INT.withName("os_index"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("name"),
            C_LONG_LONG.withName("total_memory"),
            C_POINTER.withName("attr"),
            C_INT.withName("depth"),
            C_INT.withName("logical_index"),
            C_POINTER.withName("next_cousin"),
            C_POINTER.withName("prev_cousin"),
            C_POINTER.withName("parent"),
            C_INT.withName("sibling_rank"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("next_sibling"),
            C_POINTER.withName("prev_sibling"),
            C_INT.withName("arity"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("children"),
            C_POINTER.withName("first_child"),
            C_POINTER.withName("last_child"),
            C_INT.withName("symmetric_subtree"),
            C_INT.withName("memory_arity"),
            C_POINTER.withName("memory_first_child"),
            C_INT.withName("io_arity"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("io_first_child"),
            C_INT.withName("misc_arity"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("misc_first_child"),
            C_POINTER.withName("cpuset"),
            C_POINTER.withName("complete_cpuset"),
            C_POINTER.withName("nodeset"),
            C_POINTER.withName("complete_nodeset"),
            C_POINTER.withName("infos"),
            C_INT.withName("infos_count"),
            MemoryLayout.paddingLayout(4),
            C_POINTER.withName("userdata"),
            C_LONG_LONG.withName("gp_index")
    ).withName("hwloc_obj");

    /** The layout of {@code struct hwloc_obj}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_obj}. */
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
    private static final AddressLayout subtype$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("subtype"));
    private static final long subtype$OFFSET = $LAYOUT.byteOffset(groupElement("subtype"));

    public static long subtype$offset() {
        return subtype$OFFSET;
    }

    public static MemorySegment subtype(MemorySegment struct) {
        return struct.get(subtype$LAYOUT, subtype$OFFSET);
    }
    private static final ValueLayout.OfInt os_index$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("os_index"));
    private static final long os_index$OFFSET = $LAYOUT.byteOffset(groupElement("os_index"));

    public static long os_index$offset() {
        return os_index$OFFSET;
    }

    public static int os_index(MemorySegment struct) {
        return struct.get(os_index$LAYOUT, os_index$OFFSET);
    }
    private static final AddressLayout name$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("name"));
    private static final long name$OFFSET = $LAYOUT.byteOffset(groupElement("name"));

    public static long name$offset() {
        return name$OFFSET;
    }

    public static MemorySegment name(MemorySegment struct) {
        return struct.get(name$LAYOUT, name$OFFSET);
    }
    private static final ValueLayout.OfLong total_memory$LAYOUT = (ValueLayout.OfLong) $LAYOUT.select(groupElement("total_memory"));
    private static final long total_memory$OFFSET = $LAYOUT.byteOffset(groupElement("total_memory"));

    public static long total_memory$offset() {
        return total_memory$OFFSET;
    }

    public static long total_memory(MemorySegment struct) {
        return struct.get(total_memory$LAYOUT, total_memory$OFFSET);
    }
    private static final AddressLayout attr$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("attr"));
    private static final long attr$OFFSET = $LAYOUT.byteOffset(groupElement("attr"));

    public static long attr$offset() {
        return attr$OFFSET;
    }

    public static MemorySegment attr(MemorySegment struct) {
        return struct.get(attr$LAYOUT, attr$OFFSET);
    }
    private static final ValueLayout.OfInt depth$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("depth"));
    private static final long depth$OFFSET = $LAYOUT.byteOffset(groupElement("depth"));

    public static long depth$offset() {
        return depth$OFFSET;
    }

    public static int depth(MemorySegment struct) {
        return struct.get(depth$LAYOUT, depth$OFFSET);
    }
    private static final ValueLayout.OfInt logical_index$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("logical_index"));
    private static final long logical_index$OFFSET = $LAYOUT.byteOffset(groupElement("logical_index"));

    public static long logical_index$offset() {
        return logical_index$OFFSET;
    }

    public static int logical_index(MemorySegment struct) {
        return struct.get(logical_index$LAYOUT, logical_index$OFFSET);
    }
    private static final AddressLayout next_cousin$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("next_cousin"));
    private static final long next_cousin$OFFSET = $LAYOUT.byteOffset(groupElement("next_cousin"));

    public static long next_cousin$offset() {
        return next_cousin$OFFSET;
    }

    public static MemorySegment next_cousin(MemorySegment struct) {
        return struct.get(next_cousin$LAYOUT, next_cousin$OFFSET);
    }
    private static final AddressLayout prev_cousin$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("prev_cousin"));
    private static final long prev_cousin$OFFSET = $LAYOUT.byteOffset(groupElement("prev_cousin"));

    public static long prev_cousin$offset() {
        return prev_cousin$OFFSET;
    }

    public static MemorySegment prev_cousin(MemorySegment struct) {
        return struct.get(prev_cousin$LAYOUT, prev_cousin$OFFSET);
    }
    private static final AddressLayout parent$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("parent"));
    private static final long parent$OFFSET = $LAYOUT.byteOffset(groupElement("parent"));

    public static long parent$offset() {
        return parent$OFFSET;
    }

    public static MemorySegment parent(MemorySegment struct) {
        return struct.get(parent$LAYOUT, parent$OFFSET);
    }
    private static final ValueLayout.OfInt sibling_rank$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("sibling_rank"));
    private static final long sibling_rank$OFFSET = $LAYOUT.byteOffset(groupElement("sibling_rank"));

    public static long sibling_rank$offset() {
        return sibling_rank$OFFSET;
    }

    public static int sibling_rank(MemorySegment struct) {
        return struct.get(sibling_rank$LAYOUT, sibling_rank$OFFSET);
    }
    private static final AddressLayout next_sibling$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("next_sibling"));
    private static final long next_sibling$OFFSET = $LAYOUT.byteOffset(groupElement("next_sibling"));

    public static long next_sibling$offset() {
        return next_sibling$OFFSET;
    }

    public static MemorySegment next_sibling(MemorySegment struct) {
        return struct.get(next_sibling$LAYOUT, next_sibling$OFFSET);
    }
    private static final AddressLayout prev_sibling$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("prev_sibling"));
    private static final long prev_sibling$OFFSET = $LAYOUT.byteOffset(groupElement("prev_sibling"));

    public static long prev_sibling$offset() {
        return prev_sibling$OFFSET;
    }

    public static MemorySegment prev_sibling(MemorySegment struct) {
        return struct.get(prev_sibling$LAYOUT, prev_sibling$OFFSET);
    }
    private static final ValueLayout.OfInt arity$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("arity"));
    private static final long arity$OFFSET = $LAYOUT.byteOffset(groupElement("arity"));

    public static long arity$offset() {
        return arity$OFFSET;
    }

    public static int arity(MemorySegment struct) {
        return struct.get(arity$LAYOUT, arity$OFFSET);
    }
    private static final AddressLayout children$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("children"));
    private static final long children$OFFSET = $LAYOUT.byteOffset(groupElement("children"));

    public static long children$offset() {
        return children$OFFSET;
    }

    public static MemorySegment children(MemorySegment struct) {
        return struct.get(children$LAYOUT, children$OFFSET);
    }
    private static final AddressLayout first_child$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("first_child"));
    private static final long first_child$OFFSET = $LAYOUT.byteOffset(groupElement("first_child"));

    public static long first_child$offset() {
        return first_child$OFFSET;
    }

    public static MemorySegment first_child(MemorySegment struct) {
        return struct.get(first_child$LAYOUT, first_child$OFFSET);
    }
    private static final AddressLayout last_child$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("last_child"));
    private static final long last_child$OFFSET = $LAYOUT.byteOffset(groupElement("last_child"));

    public static long last_child$offset() {
        return last_child$OFFSET;
    }

    public static MemorySegment last_child(MemorySegment struct) {
        return struct.get(last_child$LAYOUT, last_child$OFFSET);
    }
    private static final ValueLayout.OfInt symmetric_subtree$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("symmetric_subtree"));
    private static final long symmetric_subtree$OFFSET = $LAYOUT.byteOffset(groupElement("symmetric_subtree"));

    public static long symmetric_subtree$offset() {
        return symmetric_subtree$OFFSET;
    }

    public static int symmetric_subtree(MemorySegment struct) {
        return struct.get(symmetric_subtree$LAYOUT, symmetric_subtree$OFFSET);
    }
    private static final ValueLayout.OfInt memory_arity$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("memory_arity"));
    private static final long memory_arity$OFFSET = $LAYOUT.byteOffset(groupElement("memory_arity"));

    public static long memory_arity$offset() {
        return memory_arity$OFFSET;
    }

    public static int memory_arity(MemorySegment struct) {
        return struct.get(memory_arity$LAYOUT, memory_arity$OFFSET);
    }
    private static final AddressLayout memory_first_child$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("memory_first_child"));
    private static final long memory_first_child$OFFSET = $LAYOUT.byteOffset(groupElement("memory_first_child"));

    public static long memory_first_child$offset() {
        return memory_first_child$OFFSET;
    }

    public static MemorySegment memory_first_child(MemorySegment struct) {
        return struct.get(memory_first_child$LAYOUT, memory_first_child$OFFSET);
    }
    private static final ValueLayout.OfInt io_arity$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("io_arity"));
    private static final long io_arity$OFFSET = $LAYOUT.byteOffset(groupElement("io_arity"));

    public static long io_arity$offset() {
        return io_arity$OFFSET;
    }

    public static int io_arity(MemorySegment struct) {
        return struct.get(io_arity$LAYOUT, io_arity$OFFSET);
    }
    private static final AddressLayout io_first_child$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("io_first_child"));
    private static final long io_first_child$OFFSET = $LAYOUT.byteOffset(groupElement("io_first_child"));

    public static long io_first_child$offset() {
        return io_first_child$OFFSET;
    }

    public static MemorySegment io_first_child(MemorySegment struct) {
        return struct.get(io_first_child$LAYOUT, io_first_child$OFFSET);
    }
    private static final ValueLayout.OfInt misc_arity$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("misc_arity"));
    private static final long misc_arity$OFFSET = $LAYOUT.byteOffset(groupElement("misc_arity"));

    public static long misc_arity$offset() {
        return misc_arity$OFFSET;
    }

    public static int misc_arity(MemorySegment struct) {
        return struct.get(misc_arity$LAYOUT, misc_arity$OFFSET);
    }
    private static final AddressLayout misc_first_child$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("misc_first_child"));
    private static final long misc_first_child$OFFSET = $LAYOUT.byteOffset(groupElement("misc_first_child"));

    public static long misc_first_child$offset() {
        return misc_first_child$OFFSET;
    }

    public static MemorySegment misc_first_child(MemorySegment struct) {
        return struct.get(misc_first_child$LAYOUT, misc_first_child$OFFSET);
    }
    private static final AddressLayout cpuset$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("cpuset"));
    private static final long cpuset$OFFSET = $LAYOUT.byteOffset(groupElement("cpuset"));

    public static long cpuset$offset() {
        return cpuset$OFFSET;
    }

    public static MemorySegment cpuset(MemorySegment struct) {
        return struct.get(cpuset$LAYOUT, cpuset$OFFSET);
    }
    private static final AddressLayout complete_cpuset$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("complete_cpuset"));
    private static final long complete_cpuset$OFFSET = $LAYOUT.byteOffset(groupElement("complete_cpuset"));

    public static long complete_cpuset$offset() {
        return complete_cpuset$OFFSET;
    }

    public static MemorySegment complete_cpuset(MemorySegment struct) {
        return struct.get(complete_cpuset$LAYOUT, complete_cpuset$OFFSET);
    }
    private static final AddressLayout nodeset$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("nodeset"));
    private static final long nodeset$OFFSET = $LAYOUT.byteOffset(groupElement("nodeset"));

    public static long nodeset$offset() {
        return nodeset$OFFSET;
    }

    public static MemorySegment nodeset(MemorySegment struct) {
        return struct.get(nodeset$LAYOUT, nodeset$OFFSET);
    }
    private static final AddressLayout complete_nodeset$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("complete_nodeset"));
    private static final long complete_nodeset$OFFSET = $LAYOUT.byteOffset(groupElement("complete_nodeset"));

    public static long complete_nodeset$offset() {
        return complete_nodeset$OFFSET;
    }

    public static MemorySegment complete_nodeset(MemorySegment struct) {
        return struct.get(complete_nodeset$LAYOUT, complete_nodeset$OFFSET);
    }
    private static final AddressLayout infos$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("infos"));
    private static final long infos$OFFSET = $LAYOUT.byteOffset(groupElement("infos"));

    public static long infos$offset() {
        return infos$OFFSET;
    }

    public static MemorySegment infos(MemorySegment struct) {
        return struct.get(infos$LAYOUT, infos$OFFSET);
    }
    private static final ValueLayout.OfInt infos_count$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("infos_count"));
    private static final long infos_count$OFFSET = $LAYOUT.byteOffset(groupElement("infos_count"));

    public static long infos_count$offset() {
        return infos_count$OFFSET;
    }

    public static int infos_count(MemorySegment struct) {
        return struct.get(infos_count$LAYOUT, infos_count$OFFSET);
    }
    private static final AddressLayout userdata$LAYOUT = (AddressLayout) $LAYOUT.select(groupElement("userdata"));
    private static final long userdata$OFFSET = $LAYOUT.byteOffset(groupElement("userdata"));

    public static long userdata$offset() {
        return userdata$OFFSET;
    }

    public static MemorySegment userdata(MemorySegment struct) {
        return struct.get(userdata$LAYOUT, userdata$OFFSET);
    }
    private static final ValueLayout.OfLong gp_index$LAYOUT = (ValueLayout.OfLong) $LAYOUT.select(groupElement("gp_index"));
    private static final long gp_index$OFFSET = $LAYOUT.byteOffset(groupElement("gp_index"));

    public static long gp_index$offset() {
        return gp_index$OFFSET;
    }

    public static long gp_index(MemorySegment struct) {
        return struct.get(gp_index$LAYOUT, gp_index$OFFSET);
    }
}
