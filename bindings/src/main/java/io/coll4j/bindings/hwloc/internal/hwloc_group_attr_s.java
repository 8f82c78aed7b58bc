package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Group attributes ({@code attr->group}).
 * {@snippet lang = c :
 * struct hwloc_group_attr_s {
 *   unsigned depth;
 *   unsigned kind;
 *   unsigned subkind;
 *   unsigned char dont_merge;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_group_attr_s {
    private hwloc_group_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_INT.withName("depth"),
            C_INT.withName("kind"),
            C_INT.withName("subkind"),
            C_CHAR.withName("dont_merge"),
            MemoryLayout.paddingLayout(3)
    ).withName("hwloc_group_attr_s");

    /** The layout of {@code struct hwloc_group_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_group_attr_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfInt depth$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("depth"));
    private static final long depth$OFFSET = $LAYOUT.byteOffset(groupElement("depth"));

    public static long depth$offset() {
        return depth$OFFSET;
    }

    public static int depth(MemorySegment struct) {
        return struct.get(depth$LAYOUT, depth$OFFSET);
    }
    private static final ValueLayout.OfInt kind$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("kind"));
    private static final long kind$OFFSET = $LAYOUT.byteOffset(groupElement("kind"));

    public static long kind$offset() {
        return kind$OFFSET;
    }

    public static int kind(MemorySegment struct) {
        return struct.get(kind$LAYOUT, kind$OFFSET);
    }
    private static final ValueLayout.OfInt subkind$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("subkind"));
    private static final long subkind$OFFSET = $LAYOUT.byteOffset(groupElement("subkind"));

    public static long subkind$offset() {
        return subkind$OFFSET;
    }

    public static int subkind(MemorySegment struct) {
        return struct.get(subkind$LAYOUT, subkind$OFFSET);
    }
    private static final ValueLayout.OfByte dont_merge$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("dont_merge"));
    private static final long dont_merge$OFFSET = $LAYOUT.byteOffset(groupElement("dont_merge"));

    public static long dont_merge$offset() {
        return dont_merge$OFFSET;
    }

    public static byte dont_merge(MemorySegment struct) {
        return struct.get(dont_merge$LAYOUT, dont_merge$OFFSET);
    }
}
