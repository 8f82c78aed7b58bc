package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Broadcast of {@code bytes} from rank 0. One operation is one {@code bcast} call by one rank;
 * {@code algorithm} runs every algorithm {@code collbench list} shows for it, the {@code cyclicbarrier} baseline
 * last. Threads, buffers and why iteration ends cannot deadlock: {@link CollectiveBench}.
 */
public class BcastBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"flat", "two-stage", "pipelined", "direct", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.BCAST;
    }

    @Benchmark
    public void bcast(Control control) {
        call(control);
    }
}
