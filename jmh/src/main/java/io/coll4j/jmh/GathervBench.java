package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Gatherv of {@code bytes} split unevenly ({@link VectorShapes}) to root 0. One operation is one call by one rank; {@code algorithm} runs every algorithm {@code collbench list}
 * shows for it, the {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot
 * deadlock: {@link CollectiveBench}.
 */
public class GathervBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"push", "direct", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.GATHERV;
    }

    @Benchmark
    public void gatherv(Control control) {
        call(control);
    }
}
