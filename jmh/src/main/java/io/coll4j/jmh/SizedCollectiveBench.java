package io.coll4j.jmh;

import org.openjdk.jmh.annotations.Param;

/**
 * The collectives that move data: {@code bytes} per call as in {@code collbench -m} (K/M/G suffixes,
 * powers of 1024), from latency-bound 8 B through L2- and LLC-sized messages to 64 MiB in DRAM.
 */
public abstract class SizedCollectiveBench extends CollectiveBench {
    /** Message bytes (read by {@link CollectiveBench#attach} through JMH's parameters). */
    @Param({"8", "4K", "256K", "4M", "64M"})
    public String bytes;
}
