package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * PCI device attributes ({@code attr->pcidev}; 16-bit PCI domains, the default ABI).
 * {@snippet lang = c :
 * struct hwloc_pcidev_attr_s {
 *   unsigned short domain; // without HWLOC_HAVE_32BITS_PCI_DOMAIN, the default ABI
 *   unsigned char bus, dev, func;
 *   unsigned short class_id;
 *   unsigned short vendor_id, device_id, subvendor_id, subdevice_id;
 *   unsigned char revision;
 *   float linkspeed;
 * };
 * }
 */
@SuppressWarnings({"unused", "restricted"})
public final class hwloc_pcidev_attr_s {
    private hwloc_pcidev_attr_s() {
    }

    private static final GroupLayout $LAYOUT = MemoryLayout.structLayout(
            C_SHORT.withName("domain"),
            C_CHAR.withName("bus"),
            C_CHAR.withName("dev"),
            C_CHAR.withName("func"),
            MemoryLayout.paddingLayout(1),
            C_SHORT.withName("class_id"),
            C_SHORT.withName("vendor_id"),
            C_SHORT.withName("device_id"),
            C_SHORT.withName("subvendor_id"),
            C_SHORT.withName("subdevice_id"),
            C_CHAR.withName("revision"),
            MemoryLayout.paddingLayout(3),
            C_FLOAT.withName("linkspeed")
    ).withName("hwloc_pcidev_attr_s");

    /** The layout of {@code struct hwloc_pcidev_attr_s}. */
    public static GroupLayout layout() {
        return $LAYOUT;
    }

    public static long sizeof() {
        return $LAYOUT.byteSize();
    }

    /** {@code addr} (a zero-length pointer read from native memory) sized to one {@code struct hwloc_pcidev_attr_s}. */
    public static MemorySegment reinterpret(MemorySegment addr) {
        return addr.reinterpret($LAYOUT.byteSize());
    }

    private static final ValueLayout.OfShort domain$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("domain"));
    private static final long domain$OFFSET = $LAYOUT.byteOffset(groupElement("domain"));

    public static long domain$offset() {
        return domain$OFFSET;
    }

    public static short domain(MemorySegment struct) {
        return struct.get(domain$LAYOUT, domain$OFFSET);
    }
    private static final ValueLayout.OfByte bus$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("bus"));
    private static final long bus$OFFSET = $LAYOUT.byteOffset(groupElement("bus"));

    public static long bus$offset() {
        return bus$OFFSET;
    }

    public static byte bus(MemorySegment struct) {
        return struct.get(bus$LAYOUT, bus$OFFSET);
    }
    private static final ValueLayout.OfByte dev$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("dev"));
    private static final long dev$OFFSET = $LAYOUT.byteOffset(groupElement("dev"));

    public static long dev$offset() {
        return dev$OFFSET;
    }

    public static byte dev(MemorySegment struct) {
        return struct.get(dev$LAYOUT, dev$OFFSET);
    }
    private static final ValueLayout.OfByte func$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("func"));
    private static final long func$OFFSET = $LAYOUT.byteOffset(groupElement("func"));

    public static long func$offset() {
        return func$OFFSET;
    }

    public static byte func(MemorySegment struct) {
        return struct.get(func$LAYOUT, func$OFFSET);
    }
    private static final ValueLayout.OfShort class_id$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("class_id"));
    private static final long class_id$OFFSET = $LAYOUT.byteOffset(groupElement("class_id"));

    public static long class_id$offset() {
        return class_id$OFFSET;
    }

    public static short class_id(MemorySegment struct) {
        return struct.get(class_id$LAYOUT, class_id$OFFSET);
    }
    private static final ValueLayout.OfShort vendor_id$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("vendor_id"));
    private static final long vendor_id$OFFSET = $LAYOUT.byteOffset(groupElement("vendor_id"));

    public static long vendor_id$offset() {
        return vendor_id$OFFSET;
    }

    public static short vendor_id(MemorySegment struct) {
        return struct.get(vendor_id$LAYOUT, vendor_id$OFFSET);
    }
    private static final ValueLayout.OfShort device_id$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("device_id"));
    private static final long device_id$OFFSET = $LAYOUT.byteOffset(groupElement("device_id"));

    public static long device_id$offset() {
        return device_id$OFFSET;
    }

    public static short device_id(MemorySegment struct) {
        return struct.get(device_id$LAYOUT, device_id$OFFSET);
    }
    private static final ValueLayout.OfShort subvendor_id$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("subvendor_id"));
    private static final long subvendor_id$OFFSET = $LAYOUT.byteOffset(groupElement("subvendor_id"));

    public static long subvendor_id$offset() {
        return subvendor_id$OFFSET;
    }

    public static short subvendor_id(MemorySegment struct) {
        return struct.get(subvendor_id$LAYOUT, subvendor_id$OFFSET);
    }
    private static final ValueLayout.OfShort subdevice_id$LAYOUT = (ValueLayout.OfShort) $LAYOUT.select(groupElement("subdevice_id"));
    private static final long subdevice_id$OFFSET = $LAYOUT.byteOffset(groupElement("subdevice_id"));

    public static long subdevice_id$offset() {
        return subdevice_id$OFFSET;
    }

    public static short subdevice_id(MemorySegment struct) {
        return struct.get(subdevice_id$LAYOUT, subdevice_id$OFFSET);
    }
    private static final ValueLayout.OfByte revision$LAYOUT = (ValueLayout.OfByte) $LAYOUT.select(groupElement("revision"));
    private static final long revision$OFFSET = $LAYOUT.byteOffset(groupElement("revision"));

    public static long revision$offset() {
        return revision$OFFSET;
    }

    public static byte revision(MemorySegment struct) {
        return struct.get(revision$LAYOUT, revision$OFFSET);
    }
    private static final ValueLayout.OfFloat linkspeed$LAYOUT = (ValueLayout.OfFloat) $LAYOUT.select(groupElement("linkspeed"));
    private static final long linkspeed$OFFSET = $LAYOUT.byteOffset(groupElement("linkspeed"));

    public static long linkspeed$offset() {
        return linkspeed$OFFSET;
    }

    public static float linkspeed(MemorySegment struct) {
        return struct.get(linkspeed$LAYOUT, linkspeed$OFFSET);
    }
}
