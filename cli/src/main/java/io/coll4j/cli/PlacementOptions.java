package io.coll4j.cli;

import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code --topology} and {@code --bind}: which machine, and where the ranks go on it (a picocli mixin). */
final class PlacementOptions {
    @Mixin
    TopologyOption machine = new TopologyOption();

    @Option(names = "--bind", paramLabel = "HOW", defaultValue = "compact",
            description = "compact|scatter|none, or a list of OS PU numbers like 0,2,4 (default ${DEFAULT-VALUE})")
    String bind;

    /** The topology ({@code auto}: this machine, loaded once per process). */
    Topology topology() {
        return machine.topology();
    }

    Placement placement() {
        return Placement.parse(bind);
    }
}
