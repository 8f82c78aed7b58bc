package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Reduce-scatter (F64 SUM) of {@code bytes}: each rank receives bytes/p. One operation is one
 * {@code reduce-scatter} call by one rank; {@code algorithm} runs every algorithm {@code collbench list} shows for
 * it, the {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot deadlock:
 * {@link CollectiveBench}.
 */
public class ReduceScatterBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"direct", "ma-sliced", "staged-sliced", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.REDUCE_SCATTER;
    }

    @Benchmark
    public void reduceScatter(Control control) {
        call(control);
    }
}
