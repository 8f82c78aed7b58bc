package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Reduce-scatter of {@code bytes} (every rank's send buffer) with uneven per-rank counts ({@link VectorShapes}). One operation is one call by one rank; {@code algorithm} runs every algorithm {@code collbench list}
 * shows for it, the {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot
 * deadlock: {@link CollectiveBench}.
 */
public class ReduceScatterVBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"inline", "direct", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.REDUCE_SCATTER_V;
    }

    @Benchmark
    public void reduceScatterV(Control control) {
        call(control);
    }
}
