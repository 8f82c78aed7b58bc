package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.cli.CollectiveBenchmark.Shape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.util.List;

/**
 * The printed row of one (size, algorithm) point from what every rank measured: the slowest rank's mean, the batch
 * minimum and maximum (or, per iteration, the percentiles), the warm-up's steadiness and the wrong elements.
 */
record BenchRowMaker(Collective collective, DType dtype, Op op, int root, boolean validate, List<Integer> percentiles) {
    /** The row of one (size, algorithm) point from what every rank of this process measured. */
    BenchRow row(Shape shape, String algorithm, boolean autoPick, int p, long n, long batch, boolean perIteration,
                 boolean steady, RankResult[] results) {
        long total = 0;
        long wrong = validate ? 0 : -1;
        for (RankResult r : results) {
            total = Math.max(total, r.totalNs);
            if (validate) {
                wrong += r.wrong;
            }
        }
        double avgUs = total / (double) n / 1e3;
        double minUs;
        double maxUs;
        double[] pct = new double[percentiles.size()];
        double spread;
        if (perIteration) {
            // the slowest rank's: min, max and each percentile of every rank's histogram, the largest
            long[] m = new long[percentiles.size() + 2];
            for (RankResult r : results) {
                for (int k = 0; k < m.length; k++) {
                    m[k] = Math.max(m[k], r.pctNs[k]);
                }
            }
            minUs = m[0] / 1e3;
            maxUs = m[1] / 1e3;
            for (int k = 0; k < pct.length; k++) {
                pct[k] = m[k + 2] / 1e3;
            }
            spread = Double.NaN;
        } else {
            int batches = (int) (n / batch);
            minUs = Double.MAX_VALUE;
            maxUs = 0;
            for (int b = 0; b < batches; b++) {
                long m = 0;
                for (RankResult r : results) {
                    m = Math.max(m, r.batchNs[b]);
                }
                double us = m / (double) batch / 1e3;
                minUs = Math.min(minUs, us);
                maxUs = Math.max(maxUs, us);
            }
            spread = avgUs > 0 ? (maxUs - minUs) / avgUs * 100 : 0;
        }
        int settleBatches = 0;
        boolean settled = true;
        for (RankResult r : results) {
            settleBatches = Math.max(settleBatches, r.settleBatches);
            settled &= r.settled;
        }
        // the barrier contender's row is a barrier's, at the size of the rows it stands beside
        Collective c = algorithm.equals(CollectiveBenchmark.BARRIER_CONTENDER) ? Collective.BARRIER : collective;
        return new BenchRow(c, algorithm, autoPick, p, shape.bytes(), shape.count(),
                c == Collective.BARRIER ? "-" : dtype.cliName(), c.reduces() ? op.cliName() : "-",
                c.rooted() ? root : -1, n, avgUs, minUs, maxUs, pct, wrong)
                .withSteadiness(spread, steady ? settleBatches : -1, settled);
    }
}
