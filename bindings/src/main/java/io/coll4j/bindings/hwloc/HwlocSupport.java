package io.coll4j.bindings.hwloc;

/**
 * What the loaded topology supports ({@code hwloc_topology_get_support}); only the flags coll4j
 * uses. For a synthetic or XML topology hwloc reports no binding support: it describes another
 * machine.
 */
public record HwlocSupport(boolean discoveryPu, boolean discoveryNuma, boolean discoveryNumaMemory,
                           boolean setThisThreadCpubind, boolean getThisThreadCpubind,
                           boolean getThisThreadLastCpuLocation, boolean setAreaMembind,
                           boolean getAreaMemlocation, boolean allocMembind, boolean bindMembind,
                           boolean migrateMembind) {
}
