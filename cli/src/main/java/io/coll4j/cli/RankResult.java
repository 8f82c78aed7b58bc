package io.coll4j.cli;

import io.coll4j.Rank;
import io.coll4j.reductions.Op;

/** What one rank measured at one (size, algorithm) point, in {@link CollectiveBenchmark}'s timing loop. */
final class RankResult {
    long totalNs;
    long[] batchNs;
    /** --percentiles: this rank's min, max and each percentile (ns), from its histogram. */
    long[] pctNs;
    long wrong;
    /** The steady-state warm-up: batches run, and whether the last ones settled before the cap. */
    int settleBatches;
    boolean settled = true;

    /**
     * A team over several processes: every rank takes the slowest process's times (MAX) and the wrong
     * elements of all (SUM), so global rank 0 prints the job's row, as the single-process maxima over ranks.
     */
    void acrossProcesses(Rank rank) {
        long[] one = {totalNs};
        rank.allreduce(one, one, Op.MAX);
        totalNs = one[0];
        for (long[] a : new long[][]{pctNs, batchNs}) {
            if (a != null) {
                rank.allreduce(a, a, Op.MAX);
            }
        }
        one[0] = wrong;
        rank.allreduce(one, one, Op.SUM);
        wrong = rank.localId() == 0 ? one[0] : 0;   // measure() sums its process's ranks: count the job's total once
    }
}
