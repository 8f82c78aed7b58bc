package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Barrier latency per algorithm. One operation is one {@code barrier} call by one rank; {@code algorithm}
 * runs every algorithm {@code collbench list} shows for it, the {@code cyclicbarrier} baseline last.
 * Threads, buffers and why iteration ends cannot deadlock: {@link CollectiveBench}.
 */
public class BarrierBench extends CollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"dissemination", "tree", "central", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.BARRIER;
    }

    @Benchmark
    public void barrier(Control control) {
        call(control);
    }
}
