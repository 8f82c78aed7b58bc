package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Reduce (F64 SUM) of {@code bytes} to rank 0. One operation is one {@code reduce} call by one rank;
 * {@code algorithm} runs every algorithm {@code collbench list} shows for it, the {@code cyclicbarrier} baseline
 * last. Threads, buffers and why iteration ends cannot deadlock: {@link CollectiveBench}.
 */
public class ReduceBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"tree", "direct", "ma-sliced", "staged-sliced", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.REDUCE;
    }

    @Benchmark
    public void reduce(Control control) {
        call(control);
    }
}
