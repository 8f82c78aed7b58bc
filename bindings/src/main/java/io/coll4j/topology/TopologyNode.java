package io.coll4j.topology;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One object of the machine tree, as {@code lstopo} shows it: Machine at the root, then Package,
 * Die, Group, caches, Core and PU; NUMA nodes (and memory-side caches) are listed first among the
 * children of the object they are attached to (hwloc 2 keeps them in a separate memory-children
 * list; here they are in {@link #children()} with {@link Type#isMemory()}). Immutable.
 *
 * @param type         object type
 * @param logicalIndex index among objects of the same type in tree order (hwloc's logical index, L#)
 * @param osIndex      the OS's number for it (P#), -1 when none
 * @param cpuset       OS indices of the PUs it covers, ascending
 * @param memoryBytes  for a NUMA node its local memory; for other objects the memory of the NUMA nodes
 *                     below (hwloc's {@code total_memory}); 0 when unknown
 * @param cache        cache attributes for {@link Type#CACHE}, else {@code null}
 * @param info         extra name/value pairs (hwloc infos such as {@code CPUVendor}, {@code Inclusive})
 * @param children     memory children first, then normal children, each in logical order
 */
public record TopologyNode(Type type, int logicalIndex, int osIndex, List<Integer> cpuset, long memoryBytes,
                           Cache cache, Map<String, String> info, List<TopologyNode> children) {

    public TopologyNode {
        Objects.requireNonNull(type, "type");
        cpuset = List.copyOf(cpuset);
        info = Map.copyOf(info);
        children = List.copyOf(children);
        if ((type == Type.CACHE) != (cache != null)) {
            throw new IllegalArgumentException("cache: attributes are required for, and only for, CACHE objects");
        }
    }

    /** Object types, with lstopo's names. */
    public enum Type {
        MACHINE("Machine"), PACKAGE("Package"), DIE("Die"), GROUP("Group"), NUMANODE("NUMANode"),
        MEMCACHE("MemCache"), CACHE("Cache"), CORE("Core"), PU("PU"), MISC("Misc");

        private final String displayName;

        Type(String displayName) {
            this.displayName = displayName;
        }

        /** lstopo's name ("NUMANode", "Package"; caches are named by level, see {@link Cache#name()}). */
        public String displayName() {
            return displayName;
        }

        /** NUMA nodes and memory-side caches: attached beside the CPU hierarchy, not inside it. */
        public boolean isMemory() {
            return this == NUMANODE || this == MEMCACHE;
        }
    }

    /**
     * Cache attributes.
     *
     * @param level     1 for L1, …
     * @param sizeBytes size of this instance in bytes (0 when unknown)
     * @param lineBytes line size in bytes (0 when unknown)
     * @param kind      unified, data or instruction
     */
    public record Cache(int level, long sizeBytes, int lineBytes, Kind kind) {
        /** What the cache holds. */
        public enum Kind { UNIFIED, DATA, INSTRUCTION }

        /** lstopo's short name: "L3", "L2", "L1d", "L1i". */
        public String name() {
            return "L" + level + switch (kind) {
                case UNIFIED -> "";
                case DATA -> "d";
                case INSTRUCTION -> "i";
            };
        }
    }

    /** The type's name as lstopo prints it: "Package", "NUMANode", "L3", "L1d", "PU". */
    public String typeName() {
        return cache != null ? cache.name() : type.displayName();
    }

    /** True when this cache holds data (unified or data cache); false for instruction caches and non-caches. */
    public boolean isDataCache() {
        return cache != null && cache.kind() != Cache.Kind.INSTRUCTION;
    }

    /** True when this is a data or unified cache of {@code level}. */
    public boolean isDataCache(int level) {
        return isDataCache() && cache.level() == level;
    }
}
