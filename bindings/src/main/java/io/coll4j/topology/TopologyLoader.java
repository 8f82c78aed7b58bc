package io.coll4j.topology;

/**
 * A source of a {@link Topology}: {@link HwlocLoader} (this machine through hwloc),
 * {@link SysfsLoader} (this machine through Linux sysfs), {@link SyntheticLoader} and
 * {@link XmlLoader} (another machine, described to hwloc). {@link Topology#load(String)} picks one
 * from a spec string.
 */
public sealed interface TopologyLoader permits HwlocLoader, SysfsLoader, SyntheticLoader, XmlLoader {
    /**
     * Loads the topology; every native resource used is released before this returns.
     *
     * @throws IllegalArgumentException when the source is invalid or cannot work on this machine
     */
    Topology load();
}
