package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Alltoall of {@code bytes} per rank (its whole send buffer, bytes/p to each rank). One operation is one call by one rank; {@code algorithm} runs every algorithm {@code collbench list}
 * shows for it, the {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot
 * deadlock: {@link CollectiveBench}.
 */
public class AlltoallBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"direct", "push", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.ALLTOALL;
    }

    @Benchmark
    public void alltoall(Control control) {
        call(control);
    }
}
