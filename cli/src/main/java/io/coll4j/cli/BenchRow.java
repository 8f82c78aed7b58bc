package io.coll4j.cli;

import io.coll4j.Collective;

/**
 * One measured point: a collective with one algorithm at one size. {@code bytes} per rank as the CLI contract (docs/design.md)
 * defines it (allreduce/reduce/bcast: the vector; reduce-scatter: the input; allgather: the output).
 * {@code wrong} is -1 when the results were not checked.
 *
 * <p>{@code label} is what the row is called in the table, the plot and the CSV's {@code label} column: the algorithm's
 * name, or {@code auto→NAME} for the row {@code -a auto} ran (one row per size and algorithm: with
 * {@code -a auto,push} a size where auto picks push has the one row {@code auto→push}). {@code spreadPct} is
 * (max − min) / mean of the timed batches, in %; {@code settleBatches} the steady-state warm-up's batches (-1: a
 * fixed {@code -x}), {@code settled} false when that warm-up hit its time cap. {@code ipAvgUs} and {@code ipWrong}
 * are the in-place measurement (NaN and -1: none).
 */
record BenchRow(Collective collective, String algorithm, boolean autoPick, int threads, long bytes, long count,
                String dtype, String op, int root, long iterations, double avgUs, double minUs, double maxUs,
                double[] percentileUs, long wrong, String label, double spreadPct, int settleBatches, boolean settled,
                double ipAvgUs, long ipWrong) {

    /** What {@code -a auto} is labelled with when it ran {@code algorithm}. */
    static String autoLabel(String algorithm) {
        return "auto→" + algorithm;
    }

    BenchRow(Collective collective, String algorithm, boolean autoPick, int threads, long bytes, long count,
             String dtype, String op, int root, long iterations, double avgUs, double minUs, double maxUs,
             double[] percentileUs, long wrong) {
        this(collective, algorithm, autoPick, threads, bytes, count, dtype, op, root, iterations, avgUs, minUs, maxUs,
                percentileUs, wrong, algorithm, Double.NaN, -1, true, Double.NaN, -1);
    }

    BenchRow withLabel(String l) {
        return new BenchRow(collective, algorithm, autoPick, threads, bytes, count, dtype, op, root, iterations, avgUs, minUs,
                maxUs, percentileUs, wrong, l, spreadPct, settleBatches, settled, ipAvgUs, ipWrong);
    }

    BenchRow withSteadiness(double spread, int batches, boolean done) {
        return new BenchRow(collective, algorithm, autoPick, threads, bytes, count, dtype, op, root, iterations, avgUs, minUs,
                maxUs, percentileUs, wrong, label, spread, batches, done, ipAvgUs, ipWrong);
    }

    /** This row with the in-place measurement {@code ip} of the same point beside it. */
    BenchRow withInPlace(BenchRow ip) {
        return new BenchRow(collective, algorithm, autoPick, threads, bytes, count, dtype, op, root, iterations, avgUs, minUs,
                maxUs, percentileUs, wrong, label, spreadPct, settleBatches, settled && ip.settled, ip.avgUs, ip.wrong);
    }

    /** True for the row {@code -a auto} ran. */
    boolean isAuto() {
        return label.startsWith("auto→");
    }

    /** bytes / avg time, in GB/s (10^9 bytes per second). */
    double algbw() {
        return bw(avgUs);
    }

    /** nccl-tests' bus bandwidth: algbw × the collective's factor. */
    double busbw() {
        return algbw() * collective.busBandwidthFactor(threads);
    }

    boolean hasInPlace() {
        return !Double.isNaN(ipAvgUs);
    }

    double ipAlgbw() {
        return hasInPlace() ? bw(ipAvgUs) : Double.NaN;
    }

    double ipBusbw() {
        return ipAlgbw() * collective.busBandwidthFactor(threads);
    }

    private double bw(double us) {
        // a barrier moves no data (beside another collective's row with -a barrier it carries that row's size)
        return us <= 0 || bytes == 0 || collective == Collective.BARRIER ? 0 : bytes / (us * 1e3);
    }

    boolean validated() {
        return wrong >= 0;
    }

    /** Wrong elements of both measurements, -1 when neither was checked. */
    long allWrong() {
        return wrong < 0 && ipWrong < 0 ? -1 : Math.max(0, wrong) + Math.max(0, ipWrong);
    }
}
