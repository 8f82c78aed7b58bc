package io.coll4j.topology;

import java.util.List;

/**
 * The cores sharing one L3 cache: the intrasocket level of HMPI's hierarchy [HMPI §2.1] (on many CPUs one
 * package, the socket of YHCCL's socket-aware reduction [YHCCL §3.3]).
 *
 * @param index     logical index of the L3 cache
 * @param sizeBytes size of this L3 instance
 * @param pkg       logical index of its package, -1 if none
 * @param numaNodes logical indices of the NUMA nodes its PUs belong to
 * @param cores     logical indices of its cores
 * @param pus       logical indices of its PUs
 */
public record L3Group(int index, long sizeBytes, int pkg, List<Integer> numaNodes, List<Integer> cores, List<Integer> pus) {
    public L3Group {
        numaNodes = List.copyOf(numaNodes);
        cores = List.copyOf(cores);
        pus = List.copyOf(pus);
    }
}
