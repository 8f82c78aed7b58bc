package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.MemorySegment;

import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;

/**
 * The {@code static inline} helpers of {@code hwloc/inlines.h} and {@code hwloc/helper.h}, which the
 * library does not export, re-implemented over the exported functions of {@link hwloc_h} and the
 * struct accessors of {@link hwloc_obj}. Each method follows its C original line for line and keeps
 * its name; objects are {@code hwloc_obj_t} segments sized by {@link hwloc_obj#reinterpret}, and
 * {@code NULL} is {@link MemorySegment#NULL}.
 *
 * <p>hwloc 2.x keeps NUMA nodes (and memory-side caches) out of the normal children: they hang off
 * {@code memory_first_child} of a CPU-side object and live at the special depth
 * {@link hwloc_h#HWLOC_TYPE_DEPTH_NUMANODE} (-3). {@link #hwloc_get_nbobjs_by_type} and
 * {@link #hwloc_get_obj_by_type} handle that through {@code hwloc_get_type_depth}, which returns the
 * special depth; {@link #hwloc_get_next_child} walks normal, then memory, then I/O, then Misc children.
 */
@SuppressWarnings("restricted")   // FFM binding code: reinterpret/downcall are its job
public final class HwlocInlines {
    private HwlocInlines() {
    }

    /** {@code obj} as a {@code hwloc_obj_t} of the right size, or {@code NULL}. */
    private static MemorySegment obj(MemorySegment addr) {
        return isNull(addr) ? MemorySegment.NULL : hwloc_obj.reinterpret(addr);
    }

    private static boolean isNull(MemorySegment s) {
        return s.address() == 0L;
    }

    /** {@code hwloc_get_root_obj}: the Machine object at depth 0. */
    public static MemorySegment hwloc_get_root_obj(MemorySegment topology) {
        return obj(hwloc_get_obj_by_depth(topology, 0, 0));
    }

    /** {@code hwloc_get_nbobjs_by_type}: 0 when no such object, -1 when at several depths (Groups). */
    public static int hwloc_get_nbobjs_by_type(MemorySegment topology, int type) {
        int depth = hwloc_get_type_depth(topology, type);
        if (depth == HWLOC_TYPE_DEPTH_UNKNOWN) {
            return 0;
        }
        if (depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
            return -1;
        }
        return hwloc_get_nbobjs_by_depth(topology, depth);
    }

    /** {@code hwloc_get_obj_by_type}: the {@code idx}-th object (logical index) of {@code type}, or {@code NULL}. */
    public static MemorySegment hwloc_get_obj_by_type(MemorySegment topology, int type, int idx) {
        int depth = hwloc_get_type_depth(topology, type);
        if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
            return MemorySegment.NULL;
        }
        return obj(hwloc_get_obj_by_depth(topology, depth, idx));
    }

    /** {@code hwloc_get_next_obj_by_depth}: the next cousin of {@code prev} at {@code depth} ({@code NULL} prev: the first). */
    public static MemorySegment hwloc_get_next_obj_by_depth(MemorySegment topology, int depth, MemorySegment prev) {
        if (isNull(prev)) {
            return obj(hwloc_get_obj_by_depth(topology, depth, 0));
        }
        if (hwloc_obj.depth(prev) != depth) {
            return MemorySegment.NULL;
        }
        return obj(hwloc_obj.next_cousin(prev));
    }

    /** {@code hwloc_get_next_obj_by_type}. */
    public static MemorySegment hwloc_get_next_obj_by_type(MemorySegment topology, int type, MemorySegment prev) {
        int depth = hwloc_get_type_depth(topology, type);
        if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
            return MemorySegment.NULL;
        }
        return hwloc_get_next_obj_by_depth(topology, depth, prev);
    }

    /**
     * {@code hwloc_get_ancestor_obj_by_depth}: the ancestor of {@code obj} at {@code depth}. Like the C
     * helper it only makes sense for normal depths (a NUMA node's parent is a normal object).
     */
    public static MemorySegment hwloc_get_ancestor_obj_by_depth(MemorySegment topology, int depth, MemorySegment obj) {
        if (hwloc_obj.depth(obj) < depth) {
            return MemorySegment.NULL;
        }
        MemorySegment ancestor = obj;
        while (!isNull(ancestor) && hwloc_obj.depth(ancestor) > depth) {
            ancestor = obj(hwloc_obj.parent(ancestor));
        }
        return ancestor;
    }

    /** {@code hwloc_get_ancestor_obj_by_type}: the nearest strict ancestor of {@code obj} of {@code type}, or {@code NULL}. */
    public static MemorySegment hwloc_get_ancestor_obj_by_type(MemorySegment topology, int type, MemorySegment obj) {
        MemorySegment ancestor = obj(hwloc_obj.parent(obj));
        while (!isNull(ancestor) && hwloc_obj.type(ancestor) != type) {
            ancestor = obj(hwloc_obj.parent(ancestor));
        }
        return ancestor;
    }

    /** {@code hwloc_get_next_child}: iterates normal children, then memory, I/O and Misc children. */
    public static MemorySegment hwloc_get_next_child(MemorySegment topology, MemorySegment parent, MemorySegment prev) {
        MemorySegment next;
        int state = 0;
        if (!isNull(prev)) {
            int t = hwloc_obj.type(prev);
            if (t == HWLOC_OBJ_MISC) {
                state = 3;
            } else if (t == HWLOC_OBJ_BRIDGE || t == HWLOC_OBJ_PCI_DEVICE || t == HWLOC_OBJ_OS_DEVICE) {
                state = 2;
            } else if (t == HWLOC_OBJ_NUMANODE || t == HWLOC_OBJ_MEMCACHE) {
                state = 1;
            }
            next = obj(hwloc_obj.next_sibling(prev));
        } else {
            next = obj(hwloc_obj.first_child(parent));
        }
        if (isNull(next) && state == 0) {
            next = obj(hwloc_obj.memory_first_child(parent));
            state = 1;
        }
        if (isNull(next) && state == 1) {
            next = obj(hwloc_obj.io_first_child(parent));
            state = 2;
        }
        if (isNull(next) && state == 2) {
            next = obj(hwloc_obj.misc_first_child(parent));
        }
        return next;
    }

    /** {@code hwloc_obj_type_is_dcache}: a data or unified cache (L1..L5). */
    public static boolean hwloc_obj_type_is_dcache(int type) {
        return type >= HWLOC_OBJ_L1CACHE && type <= HWLOC_OBJ_L5CACHE;
    }

    /** {@code hwloc_obj_type_is_icache}: an instruction cache (L1i..L3i). */
    public static boolean hwloc_obj_type_is_icache(int type) {
        return type >= HWLOC_OBJ_L1ICACHE && type <= HWLOC_OBJ_L3ICACHE;
    }

    /** {@code hwloc_obj_type_is_cache}: any CPU cache. */
    public static boolean hwloc_obj_type_is_cache(int type) {
        return hwloc_obj_type_is_dcache(type) || hwloc_obj_type_is_icache(type);
    }

    /** {@code hwloc_obj_type_is_memory}: NUMA nodes and memory-side caches, which are memory children. */
    public static boolean hwloc_obj_type_is_memory(int type) {
        return type == HWLOC_OBJ_NUMANODE || type == HWLOC_OBJ_MEMCACHE;
    }

    /**
     * {@code hwloc_get_cache_type_depth}: the depth of level-{@code cachelevel} data/unified caches of
     * {@code cachetype} ({@code -1}: any type; then {@link hwloc_h#HWLOC_TYPE_DEPTH_MULTIPLE} when
     * several depths match), or {@link hwloc_h#HWLOC_TYPE_DEPTH_UNKNOWN}.
     */
    public static int hwloc_get_cache_type_depth(MemorySegment topology, int cachelevel, int cachetype) {
        int found = HWLOC_TYPE_DEPTH_UNKNOWN;
        for (int depth = 0; ; depth++) {
            MemorySegment o = obj(hwloc_get_obj_by_depth(topology, depth, 0));
            if (isNull(o)) {
                break;
            }
            if (!hwloc_obj_type_is_dcache(hwloc_obj.type(o))) {
                continue;
            }
            MemorySegment cache = hwloc_obj_attr_u.cache(hwloc_obj_attr_u.reinterpret(hwloc_obj.attr(o)));
            if (hwloc_cache_attr_s.depth(cache) != cachelevel) {
                continue;
            }
            if (cachetype == -1) {
                if (found != HWLOC_TYPE_DEPTH_UNKNOWN) {
                    return HWLOC_TYPE_DEPTH_MULTIPLE;
                }
                found = depth;
                continue;
            }
            int t = hwloc_cache_attr_s.type(cache);
            if (t == cachetype || t == HWLOC_OBJ_CACHE_UNIFIED) {
                return depth;
            }
        }
        return found;
    }

    /** {@code hwloc_get_pu_obj_by_os_index}: the PU with OS index {@code osIndex}, or {@code NULL}. */
    public static MemorySegment hwloc_get_pu_obj_by_os_index(MemorySegment topology, int osIndex) {
        MemorySegment o = MemorySegment.NULL;
        while (!isNull(o = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_PU, o))) {
            if (hwloc_obj.os_index(o) == osIndex) {
                return o;
            }
        }
        return MemorySegment.NULL;
    }

    /** {@code hwloc_get_numanode_obj_by_os_index}: the NUMA node with OS index {@code osIndex}, or {@code NULL}. */
    public static MemorySegment hwloc_get_numanode_obj_by_os_index(MemorySegment topology, int osIndex) {
        MemorySegment o = MemorySegment.NULL;
        while (!isNull(o = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, o))) {
            if (hwloc_obj.os_index(o) == osIndex) {
                return o;
            }
        }
        return MemorySegment.NULL;
    }

    /** {@code hwloc_obj_get_info_by_name}: the value of info {@code name} of {@code obj}, or {@code null}. */
    public static String hwloc_obj_get_info_by_name(MemorySegment obj, String name) {
        int count = hwloc_obj.infos_count(obj);
        if (count == 0) {
            return null;
        }
        MemorySegment infos = hwloc_obj.infos(obj).reinterpret(count * hwloc_info_s.sizeof());
        for (int i = 0; i < count; i++) {
            MemorySegment info = infos.asSlice(i * hwloc_info_s.sizeof(), hwloc_info_s.sizeof());
            if (name.equals(string(hwloc_info_s.name(info)))) {
                return string(hwloc_info_s.value(info));
            }
        }
        return null;
    }

    /** A NUL-terminated C string at {@code addr}, or {@code null} for {@code NULL}. */
    public static String string(MemorySegment addr) {
        return isNull(addr) ? null : addr.reinterpret(Long.MAX_VALUE).getString(0);
    }
}
