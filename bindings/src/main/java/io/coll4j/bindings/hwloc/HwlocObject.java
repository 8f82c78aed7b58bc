package io.coll4j.bindings.hwloc;

import java.util.List;
import java.util.Map;

/**
 * An immutable copy of one hwloc object and its subtree, taken while the topology was loaded; it
 * holds no native memory.
 *
 * @param type           object type
 * @param logicalIndex   index among the objects of the same type, in topology order
 * @param osIndex        OS index ({@code -1} when hwloc has none, {@code HWLOC_UNKNOWN_INDEX})
 * @param depth          level depth; negative special depths for memory objects (NUMA nodes: -3)
 * @param name           object name or {@code null}
 * @param subtype        subtype or {@code null}
 * @param cpuset         OS indices of the PUs covered
 * @param nodeset        OS indices of the NUMA nodes covered
 * @param totalMemory    bytes of memory in the NUMA nodes below
 * @param localMemory    for a NUMA node, its own memory in bytes; else 0
 * @param cache          cache attributes for cache objects, else {@code null}
 * @param infos          the object's info pairs (e.g. {@code CPUVendor}, {@code Inclusive})
 * @param children       normal children ({@code children[0..arity-1]})
 * @param memoryChildren memory children ({@code memory_first_child} list: NUMA nodes, memory-side caches)
 */
public record HwlocObject(HwlocObjectType type, int logicalIndex, int osIndex, int depth, String name,
                          String subtype, List<Integer> cpuset, List<Integer> nodeset, long totalMemory,
                          long localMemory, HwlocCache cache, Map<String, String> infos,
                          List<HwlocObject> children, List<HwlocObject> memoryChildren) {
    public HwlocObject {
        cpuset = List.copyOf(cpuset);
        nodeset = List.copyOf(nodeset);
        infos = Map.copyOf(infos);
        children = List.copyOf(children);
        memoryChildren = List.copyOf(memoryChildren);
    }

    /** The value of info {@code key}, or {@code null}. */
    public String info(String key) {
        return infos.get(key);
    }
}
