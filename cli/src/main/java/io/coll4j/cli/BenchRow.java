package io.coll4j.cli;

import io.coll4j.Collective;

/**
 * One measured point: a collective with one algorithm at one size. {@code bytes} per rank as the CLI contract (docs/design.md)
 * defines it (allreduce/reduce/bcast: the vector; reduce-scatter: the input; allgather: the output).
 * {@code wrong} is -1 when the results were not validated.
 */
record BenchRow(Collective collective, String algorithm, boolean autoPick, int threads, long bytes, long count,
                String dtype, String op, int root, long iterations, double avgUs, double minUs, double maxUs,
                double[] percentileUs, long wrong) {

    /** bytes / avg time, in GB/s (10^9 bytes per second). */
    double algbw() {
        // a barrier moves no data (beside another collective's row with -a barrier it carries that row's size)
        return avgUs <= 0 || bytes == 0 || collective == Collective.BARRIER ? 0 : bytes / (avgUs * 1e3);
    }

    /** nccl-tests' bus bandwidth: algbw × the collective's factor. */
    double busbw() {
        return algbw() * collective.busBandwidthFactor(threads);
    }

    boolean validated() {
        return wrong >= 0;
    }
}
