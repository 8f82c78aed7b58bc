package io.coll4j.cli;

import io.coll4j.topology.Topology;
import picocli.CommandLine.Option;

/** {@code --topology}: which machine a command models or runs on (a picocli mixin). */
final class TopologyOption {
    @Option(names = "--topology", paramLabel = "SRC", defaultValue = "auto",
            description = "auto|hwloc|sysfs|synthetic:SPEC|xml:FILE (default ${DEFAULT-VALUE}), "
                    + "e.g. synthetic:\"pack:2 numa:2 l3:1 core:4 pu:2\"")
    String source;

    /** The topology ({@code auto}: this machine, loaded once per process). */
    Topology topology() {
        return source.strip().equals("auto") ? Topology.host() : Topology.load(source);
    }
}
