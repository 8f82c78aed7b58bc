package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocCache;
import io.coll4j.bindings.hwloc.HwlocObject;
import io.coll4j.bindings.hwloc.HwlocTopology;

import java.util.ArrayList;
import java.util.List;

/**
 * This machine through hwloc ({@code hwloc_topology_init}/{@code load}, library defaults: I/O
 * objects and instruction caches filtered out, as {@code lstopo --no-io} shows minus L1i). The
 * hwloc topology is copied into the Java model and destroyed before {@link #load()} returns.
 */
public final class HwlocLoader implements TopologyLoader {

    @Override
    public Topology load() {
        try (HwlocTopology t = HwlocTopology.loadHost()) {
            return new Topology(toNode(t.root()), "hwloc " + Hwloc.version(), Topology.Origin.HWLOC);
        }
    }

    /** Converts hwloc's tree: memory children first (as lstopo prints them), then normal children. */
    static TopologyNode toNode(HwlocObject o) {
        List<TopologyNode> children = new ArrayList<>();
        for (HwlocObject m : o.memoryChildren()) {
            children.add(toNode(m));
        }
        for (HwlocObject c : o.children()) {
            children.add(toNode(c));
        }
        TopologyNode.Type type = switch (o.type()) {
            case MACHINE -> TopologyNode.Type.MACHINE;
            case PACKAGE -> TopologyNode.Type.PACKAGE;
            case DIE -> TopologyNode.Type.DIE;
            case GROUP -> TopologyNode.Type.GROUP;
            case NUMANODE -> TopologyNode.Type.NUMANODE;
            case MEMCACHE -> TopologyNode.Type.MEMCACHE;
            case CORE -> TopologyNode.Type.CORE;
            case PU -> TopologyNode.Type.PU;
            case L1CACHE, L2CACHE, L3CACHE, L4CACHE, L5CACHE, L1ICACHE, L2ICACHE, L3ICACHE -> TopologyNode.Type.CACHE;
            case MISC, BRIDGE, PCI_DEVICE, OS_DEVICE -> TopologyNode.Type.MISC;
        };
        TopologyNode.Cache cache = null;
        if (type == TopologyNode.Type.CACHE) {
            HwlocCache c = o.cache();
            TopologyNode.Cache.Kind kind = switch (c.kind()) {
                case UNIFIED -> TopologyNode.Cache.Kind.UNIFIED;
                case DATA -> TopologyNode.Cache.Kind.DATA;
                case INSTRUCTION -> TopologyNode.Cache.Kind.INSTRUCTION;
            };
            cache = new TopologyNode.Cache(c.level(), c.sizeBytes(), c.lineBytes(), kind);
        }
        long memory = type == TopologyNode.Type.NUMANODE ? o.localMemory() : o.totalMemory();
        return new TopologyNode(type, o.logicalIndex(), o.osIndex(), o.cpuset(), memory, cache, o.infos(), children);
    }
}
