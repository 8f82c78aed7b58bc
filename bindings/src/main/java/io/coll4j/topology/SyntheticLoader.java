package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocTopology;

/**
 * A synthetic machine described to hwloc ({@code hwloc_topology_set_synthetic}), e.g.
 * {@code "pack:2 numa:2 l3:1 core:4 pu:2"}: 2 packages, each with 2 NUMA nodes of one L3 and 4
 * cores of 2 PUs — 32 PUs. hwloc gives caches default sizes (L3 16 MB, 64-byte lines) unless the
 * description sets them ({@code l3:1(size=32MB)}). Binding to it is a no-op.
 */
public record SyntheticLoader(String description) implements TopologyLoader {

    @Override
    public Topology load() {
        try (HwlocTopology t = HwlocTopology.loadSynthetic(description)) {
            return new Topology(HwlocLoader.toNode(t.root()),
                    "synthetic:" + description + " (via hwloc " + Hwloc.version() + ")", Topology.Origin.SYNTHETIC);
        }
    }
}
