package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Scatter of {@code bytes} (the root's whole send buffer, bytes/p per rank) from root 0. One operation is one call by one rank; {@code algorithm} runs every algorithm {@code collbench list}
 * shows for it, the {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot
 * deadlock: {@link CollectiveBench}.
 */
public class ScatterBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"flat", "direct", "two-stage", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.SCATTER;
    }

    @Benchmark
    public void scatter(Control control) {
        call(control);
    }
}
