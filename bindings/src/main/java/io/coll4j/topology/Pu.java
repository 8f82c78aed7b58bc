package io.coll4j.topology;

/**
 * A processing unit (hardware thread).
 *
 * @param index   logical index (topology order, L#)
 * @param osIndex the OS's CPU number (P#), what affinity calls take
 * @param core    logical index of its core, -1 if none
 * @param l3      logical index of its L3 cache, -1 if none
 * @param numa    logical index of its NUMA node, -1 if none
 * @param pkg     logical index of its package, -1 if none
 */
public record Pu(int index, int osIndex, int core, int l3, int numa, int pkg) {
}
