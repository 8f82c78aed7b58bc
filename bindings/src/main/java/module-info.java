/**
 * coll4j's bindings: the machine's topology (hwloc through FFM, sysfs or lstopo XML as fallbacks), thread
 * and memory binding (libc), and the native copy/fold library {@code libcoll4j.so}.
 *
 * <p>Users see {@code io.coll4j.topology} (topologies, placements, binding results). The raw bindings
 * are internal to coll4j: exported only to the kernel and to coll4j's CLI and JMH suites (the latter two
 * run from the class path, where these qualified exports are not needed; they document who may use them).
 * Downcalls are made from this module, so it needs {@code --enable-native-access=io.coll4j.bindings}
 * on the module path ({@code ALL-UNNAMED} on the class path).
 */
module io.coll4j.bindings {
    requires java.xml;   // XmlLoader reads lstopo's XML

    exports io.coll4j.topology;

    exports io.coll4j.bindings.copy to io.coll4j, io.coll4j.cli, io.coll4j.jmh;
    exports io.coll4j.bindings.libc to io.coll4j, io.coll4j.cli;
    exports io.coll4j.bindings.hwloc to io.coll4j, io.coll4j.cli;
}
