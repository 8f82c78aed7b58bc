package io.coll4j.topology;

import java.util.List;

/**
 * A processor package (socket).
 *
 * @param index     logical index
 * @param osIndex   the OS's physical package id, -1 if unknown
 * @param numaNodes logical indices of its NUMA nodes
 * @param l3Groups  logical indices of its L3 caches
 * @param cores     logical indices of its cores
 * @param pus       logical indices of its PUs
 */
public record CpuPackage(int index, int osIndex, List<Integer> numaNodes, List<Integer> l3Groups,
                         List<Integer> cores, List<Integer> pus) {
    public CpuPackage {
        numaNodes = List.copyOf(numaNodes);
        l3Groups = List.copyOf(l3Groups);
        cores = List.copyOf(cores);
        pus = List.copyOf(pus);
    }
}
