package io.coll4j.topology;

import java.util.List;

/**
 * A NUMA node.
 *
 * @param index       logical index
 * @param osIndex     the OS's node number, what memory binding takes
 * @param memoryBytes local memory in bytes (0 when unknown)
 * @param pkg         logical index of the package it belongs to, -1 when it spans packages or has no CPU
 * @param pus         logical indices of the PUs local to it (empty for a memory-only node)
 */
public record NumaNode(int index, int osIndex, long memoryBytes, int pkg, List<Integer> pus) {
    public NumaNode {
        pus = List.copyOf(pus);
    }
}
