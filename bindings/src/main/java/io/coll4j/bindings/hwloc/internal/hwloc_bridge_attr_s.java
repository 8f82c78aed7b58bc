package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_CHAR;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_INT;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.C_SHORT;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Bridge attributes ({@code attr->bridge}). coll4j filters I/O objects out; the layout is here so
 * that {@link hwloc_obj_attr_u} has the size of the C union (the bridge member is its largest).
 * {@snippet lang = c :
 * struct hwloc_bridge_attr_s {
 *   union {
 *     struct hwloc_pcidev_attr_s pci;
 *   } upstream;
 *   hwloc_obj_bridge_type_t upstream_type;
 *   union {
 *     struct {
 *       unsigned short domain; // without HWLOC_HAVE_32BITS_PCI_DOMAIN, the default ABI
 *       unsigned char secondary_bus, subordinate_bus;
 *     } pci;
 *   } downstream;
 *   hwloc_obj_bridge_type_t downstream_type;
 *   unsigned depth;
 * };
 * }
 */
@SuppressWarnings("unused")
public final class hwloc_bridge_attr_s {
    private hwloc_bridge_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.unionLayout(hwloc_pcidev_attr_s.layout().withName("pci")).withName("upstream"),
            C_INT.withName("upstream_type"),
            MemoryLayout.unionLayout(
                    MemoryLayout.structLayout(
                            C_SHORT.withName("domain"),
                            C_CHAR.withName("secondary_bus"),
                            C_CHAR.withName("subordinate_bus")
                    ).withName("pci")
            ).withName("downstream"),
            C_INT.withName("downstream_type"),
            C_INT.withName("depth")
    ).withName("hwloc_bridge_attr_s");

    /** The layout of {@code struct hwloc_bridge_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    private static final ValueLayout.OfInt depth$LAYOUT = (ValueLayout.OfInt) $LAYOUT.select(groupElement("depth"));
    private static final long depth$OFFSET = $LAYOUT.byteOffset(groupElement("depth"));

    public static long depth$offset() {
        return depth$OFFSET;
    }

    public static int depth(MemorySegment struct) {
        return struct.get(depth$LAYOUT, depth$OFFSET);
    }
}
