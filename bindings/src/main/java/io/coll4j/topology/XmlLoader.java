package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocTopology;

import java.nio.file.Path;

/**
 * A machine from an hwloc XML export ({@code lstopo machine.xml}, {@code hwloc_topology_export_xml})
 * loaded with {@code hwloc_topology_set_xml}. It describes another machine (or this one at another
 * time), so binding to it is a no-op.
 */
public record XmlLoader(Path file) implements TopologyLoader {

    @Override
    public Topology load() {
        try (HwlocTopology t = HwlocTopology.loadXml(file)) {
            return new Topology(HwlocLoader.toNode(t.root()),
                    "xml:" + file.toAbsolutePath() + " (via hwloc " + Hwloc.version() + ")", Topology.Origin.XML);
        }
    }
}
