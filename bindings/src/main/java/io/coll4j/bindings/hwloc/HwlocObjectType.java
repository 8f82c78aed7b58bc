package io.coll4j.bindings.hwloc;

import io.coll4j.bindings.hwloc.internal.hwloc_h;

/** {@code hwloc_obj_type_t}, with hwloc's own names ({@code hwloc_obj_type_string}). */
public enum HwlocObjectType {
    MACHINE(hwloc_h.HWLOC_OBJ_MACHINE, "Machine"),
    PACKAGE(hwloc_h.HWLOC_OBJ_PACKAGE, "Package"),
    CORE(hwloc_h.HWLOC_OBJ_CORE, "Core"),
    PU(hwloc_h.HWLOC_OBJ_PU, "PU"),
    L1CACHE(hwloc_h.HWLOC_OBJ_L1CACHE, "L1Cache"),
    L2CACHE(hwloc_h.HWLOC_OBJ_L2CACHE, "L2Cache"),
    L3CACHE(hwloc_h.HWLOC_OBJ_L3CACHE, "L3Cache"),
    L4CACHE(hwloc_h.HWLOC_OBJ_L4CACHE, "L4Cache"),
    L5CACHE(hwloc_h.HWLOC_OBJ_L5CACHE, "L5Cache"),
    L1ICACHE(hwloc_h.HWLOC_OBJ_L1ICACHE, "L1iCache"),
    L2ICACHE(hwloc_h.HWLOC_OBJ_L2ICACHE, "L2iCache"),
    L3ICACHE(hwloc_h.HWLOC_OBJ_L3ICACHE, "L3iCache"),
    GROUP(hwloc_h.HWLOC_OBJ_GROUP, "Group"),
    NUMANODE(hwloc_h.HWLOC_OBJ_NUMANODE, "NUMANode"),
    BRIDGE(hwloc_h.HWLOC_OBJ_BRIDGE, "Bridge"),
    PCI_DEVICE(hwloc_h.HWLOC_OBJ_PCI_DEVICE, "PCIDev"),
    OS_DEVICE(hwloc_h.HWLOC_OBJ_OS_DEVICE, "OSDev"),
    MISC(hwloc_h.HWLOC_OBJ_MISC, "Misc"),
    MEMCACHE(hwloc_h.HWLOC_OBJ_MEMCACHE, "MemCache"),
    DIE(hwloc_h.HWLOC_OBJ_DIE, "Die");

    private static final HwlocObjectType[] BY_CODE = new HwlocObjectType[hwloc_h.HWLOC_OBJ_TYPE_MAX];

    static {
        for (HwlocObjectType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final String hwlocName;

    HwlocObjectType(int code, String hwlocName) {
        this.code = code;
        this.hwlocName = hwlocName;
    }

    /** The C enum value. */
    public int code() {
        return code;
    }

    /** hwloc's name of the type ("Package", "NUMANode", "L3Cache", …). */
    public String hwlocName() {
        return hwlocName;
    }

    /** The type of C value {@code code}. */
    public static HwlocObjectType of(int code) {
        if (code < 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
            throw new IllegalArgumentException("unknown hwloc_obj_type_t " + code);
        }
        return BY_CODE[code];
    }

    /** A data or unified cache (L1..L5). */
    public boolean isDataCache() {
        return code >= hwloc_h.HWLOC_OBJ_L1CACHE && code <= hwloc_h.HWLOC_OBJ_L5CACHE;
    }

    /** An instruction cache (L1i..L3i). */
    public boolean isInstructionCache() {
        return code >= hwloc_h.HWLOC_OBJ_L1ICACHE && code <= hwloc_h.HWLOC_OBJ_L3ICACHE;
    }

    /** A memory object: NUMA node or memory-side cache, found among memory children in hwloc 2.x. */
    public boolean isMemory() {
        return this == NUMANODE || this == MEMCACHE;
    }
}
