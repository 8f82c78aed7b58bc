package io.coll4j.jmh;

import io.coll4j.Collective;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.Control;

/**
 * Allreduce (F64 SUM) of {@code bytes}, out of place. One operation is one {@code allreduce} call by one
 * rank; {@code algorithm} runs every algorithm {@code collbench list} shows for it, the
 * {@code cyclicbarrier} baseline last. Threads, buffers and why iteration ends cannot deadlock: {@link
 * CollectiveBench}.
 */
public class AllreduceBench extends SizedCollectiveBench {
    /** Algorithm name (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"dissemination", "flat", "tree", "tiled", "direct", "push", "replicated", "ma-sliced", "staged-sliced", "ma-socket", "cyclicbarrier"})
    public String algorithm;

    @Override
    Collective collective() {
        return Collective.ALLREDUCE;
    }

    @Benchmark
    public void allreduce(Control control) {
        call(control);
    }
}
