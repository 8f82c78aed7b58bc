package io.coll4j.topology;

import java.util.List;

/**
 * A core.
 *
 * @param index   logical index
 * @param osIndex the OS's core id (unique only within a package), -1 if unknown
 * @param l3      logical index of its L3 cache, -1 if none
 * @param numa    logical index of its NUMA node, -1 if none
 * @param pkg     logical index of its package, -1 if none
 * @param pus     logical indices of its PUs
 */
public record Core(int index, int osIndex, int l3, int numa, int pkg, List<Integer> pus) {
    public Core {
        pus = List.copyOf(pus);
    }
}
