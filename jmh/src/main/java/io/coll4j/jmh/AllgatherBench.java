package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Allgather to {@code bytes}: each rank contributes bytes/p. One operation is one {@code allgather} call by
 * one rank; {@code algorithm} runs every algorithm {@code collbench list} shows for it, the
 * {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot deadlock: {@link
 * CollectiveBench}.
 */
public class AllgatherBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"direct", "push", "pipelined", "shared-copy", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.ALLGATHER;
    }

    @Benchmark
    public void allgather(Control control) {
        call(control);
    }
}
