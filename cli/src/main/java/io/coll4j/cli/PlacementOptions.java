package io.coll4j.cli;

import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import picocli.CommandLine.Option;

/** {@code --topology} and {@code --bind}: which machine, and where the ranks go on it (a picocli mixin). */
final class PlacementOptions {
    @Option(names = "--topology", paramLabel = "SRC", defaultValue = "auto",
            description = "auto|hwloc|sysfs|synthetic:SPEC|xml:FILE (default ${DEFAULT-VALUE}), "
                    + "e.g. synthetic:\"pack:2 numa:2 l3:1 core:4 pu:2\"")
    String topology;

    @Option(names = "--bind", paramLabel = "HOW", defaultValue = "compact",
            description = "compact|scatter|none, or a list of OS PU numbers like 0,2,4 (default ${DEFAULT-VALUE})")
    String bind;

    /** The topology ({@code auto}: this machine, loaded once per process). */
    Topology topology() {
        return topology.strip().equals("auto") ? Topology.host() : Topology.load(topology);
    }

    Placement placement() {
        return Placement.parse(bind);
    }
}
