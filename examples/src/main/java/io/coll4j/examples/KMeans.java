package io.coll4j.examples;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ForkJoinPool;

/**
 * Lloyd's k-means: every rank assigns its slice of the points to the nearest centroid and accumulates
 * per-cluster sums and counts; one allreduce of {@code k·d + k + 1} doubles (sums, counts, distortion) per
 * iteration gives every rank the new centroids. The assignment costs {@code N·k·d} multiply-adds per
 * iteration, the allreduce a few KiB: compute-bound, communication a small share.
 */
@Command(name = "kmeans", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lloyd's k-means on generated Gaussian blobs (k centres uniform in [-10,10]^d, unit variance), "
                + "seeded by k-means++ (fixed seed, not timed), a fixed number of iterations.",
                "Implementations: coll4j (allreduce of sums, counts and distortion per iteration), cyclicbarrier (per-thread "
                        + "partial arrays, await, each thread sums a slice into a shared array, await), smile (smile.clustering.KMeans.lloyd "
                        + "on double[][] with the same k and iteration count, in a ForkJoinPool of --threads; its own k-means++ seeding is "
                        + "inside its time), single.",
                "Check: distortion within 1e-9 (relative) of single's; smile (its own seeding, so possibly another local optimum) "
                        + "passes when its final centroids fit the data no worse than the distortion it reports."})
public final class KMeans extends Workload {
    @Option(names = "--points", defaultValue = "1000000", description = "Points (default: ${DEFAULT-VALUE}).")
    int points;

    @Option(names = {"-d", "--dims"}, defaultValue = "16", description = "Dimensions (default: ${DEFAULT-VALUE}).")
    int dims;

    @Option(names = {"-k", "--clusters"}, defaultValue = "16", description = "Clusters (default: ${DEFAULT-VALUE}).")
    int k;

    @Option(names = "--iterations", defaultValue = "20", description = "Lloyd iterations (default: ${DEFAULT-VALUE}).")
    int iterations;

    private double[] data;
    private double[] seeds;
    private Double referenceDistortion;

    /** Final centroids ({@code k·d}), the distortion of the last assignment, rank 0's communication time. */
    public record Result(double[] centroids, double distortion, double commSeconds, double seconds) {
    }

    public KMeans() {
    }

    /** For tests and callers that skip the command line. */
    public KMeans(int points, int dims, int k, int iterations, int threads, long seed) {
        this.points = points;
        this.dims = dims;
        this.k = k;
        this.iterations = iterations;
        this.threads = threads;
        this.seed = seed;
    }

    public static void main(String[] args) {
        System.exit(Examples.execute(new KMeans(), args));
    }

    @Override
    protected String name() {
        return "kmeans";
    }

    @Override
    protected List<String> allImpls() {
        return List.of(Outcome.COLL4J, Outcome.CYCLIC_BARRIER, Outcome.SMILE, Outcome.SINGLE);
    }

    @Override
    protected String problem() {
        return String.format(Locale.ROOT, "%d points d=%d k=%d, %d iterations", points, dims, k, iterations);
    }

    @Override
    protected void validate() {
        if (points < 1 || dims < 1 || (long) points * dims > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--points and --dims must be >= 1 with points x dims < 2^31, got "
                    + points + " x " + dims);
        }
        if (k < 1 || k > points) {
            throw new IllegalArgumentException("--clusters must be in 1..points, got " + k);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("--iterations must be >= 1, got " + iterations);
        }
        if (iterations > MAX_ITERATIONS) {
            throw new IllegalArgumentException("--iterations must be at most " + MAX_ITERATIONS + ", got " + iterations);
        }
    }

    /** The most Lloyd iterations {@code --iterations} may ask for. */
    static final int MAX_ITERATIONS = 1_000_000;

    @Override
    protected long heapBytes() {
        // the points, Smile's double[][] copy of them with its row headers, the k-means++ distances
        return product(3, 8, points, dims) + product(3, 8, points) + product(24, points);
    }

    @Override
    protected void prepare() {
        data = blobs(points, dims, k, seed);
        seeds = kmeansPlusPlus(data, points, dims, k, seed);
        referenceDistortion = null;
    }

    @Override
    protected void release() {
        data = null;
        seeds = null;
    }

    /** Generates the data (for callers that skip {@link #call}). */
    public void generate() {
        prepare();
    }

    /** {@code points × dims}, row-major: k Gaussian blobs of unit variance around centres uniform in [-10, 10]^d. */
    public static double[] blobs(int points, int dims, int k, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] centres = new double[k * dims];
        for (int i = 0; i < centres.length; i++) {
            centres[i] = rnd.nextDouble(-10, 10);
        }
        double[] x = new double[points * dims];
        for (int i = 0; i < points; i++) {
            int c = rnd.nextInt(k);
            for (int j = 0; j < dims; j++) {
                x[i * dims + j] = centres[c * dims + j] + rnd.nextGaussian();
            }
        }
        return x;
    }

    /**
     * Greedy k-means++ seeding (as scikit-learn's default): each new centre is the best of
     * {@code 2 + ln k} candidates drawn with probability proportional to D², the one that lowers the total D²
     * most. Plain k-means++ put two centres into one blob of a test's data now and then, where Smile's run
     * found the true clusters; the greedy draw makes that rare. Sequential, from {@code seed}, not timed.
     */
    static double[] kmeansPlusPlus(double[] x, int n, int d, int k, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
        int trials = 2 + (int) Math.log(k);
        double[] c = new double[k * d];
        double[] d2 = new double[n];
        double[] candidate = new double[n];
        double[] best = new double[n];
        java.util.Arrays.fill(d2, Double.MAX_VALUE);
        int first = rnd.nextInt(n);
        System.arraycopy(x, first * d, c, 0, d);
        double total = closer(x, n, d, first, d2, d2);
        for (int m = 1; m < k; m++) {
            double bestTotal = Double.MAX_VALUE;
            int bestPick = -1;
            for (int t = 0; t < trials; t++) {
                int pick = drawByWeight(d2, total, rnd.nextDouble());
                double sum = closer(x, n, d, pick, d2, candidate);
                if (sum < bestTotal) {
                    bestTotal = sum;
                    bestPick = pick;
                    System.arraycopy(candidate, 0, best, 0, n);
                }
            }
            System.arraycopy(x, bestPick * d, c, m * d, d);
            System.arraycopy(best, 0, d2, 0, n);
            total = bestTotal;
        }
        return c;
    }

    /** {@code out[i] = min(d2[i], |x_i − x_pick|²)}; returns the sum of out. */
    private static double closer(double[] x, int n, int d, int pick, double[] d2, double[] out) {
        double total = 0;
        int pb = pick * d;
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < d; j++) {
                double t = x[i * d + j] - x[pb + j];
                s += t * t;
            }
            out[i] = Math.min(d2[i], s);
            total += out[i];
        }
        return total;
    }

    /** An index drawn with probability proportional to {@code w[i]} ({@code u} uniform in [0, 1)). */
    private static int drawByWeight(double[] w, double total, double u) {
        double left = u * total;
        for (int i = 0; i < w.length; i++) {
            left -= w[i];
            if (left <= 0) {
                return i;
            }
        }
        return w.length - 1;
    }

    @Override
    protected Outcome run(String impl) throws Exception {
        Result r = cluster(impl);
        double s = r.seconds();
        if (referenceDistortion == null) {
            referenceDistortion = impl.equals(Outcome.SINGLE) ? r.distortion() : cluster(Outcome.SINGLE).distortion();
        }
        boolean ok;
        String metric;
        if (impl.equals(Outcome.SMILE)) {
            // Smile seeds itself (plain k-means++ from MathEx's generator), so it may settle in another local
            // optimum than ours, better or worse; check that its answer is a Lloyd result: its final centroids
            // fit the data no worse than the assignment it reports (Lloyd's update never raises the distortion)
            double refit = distortion(r.centroids());
            ok = refit <= r.distortion() * (1 + 1e-9);
            metric = String.format(Locale.ROOT, "distortion %.6e (own seeding; ours %.6e), %.3f s/iteration", r.distortion(),
                    referenceDistortion, s / iterations);
        } else {
            ok = Math.abs(r.distortion() - referenceDistortion) <= 1e-9 * referenceDistortion;
            metric = String.format(Locale.ROOT, "distortion %.6e, %.3f s/iteration", r.distortion(), s / iterations);
        }
        return new Outcome(impl, s, r.commSeconds(), ok, metric);
    }

    /** Compute-bound, 20 collective calls a run: no warm-up beyond what the first iterations do. */
    @Override
    protected void warmUp(String impl) {
    }

    /** Σ over the points of the squared distance to the nearest of {@code centroids}. */
    public double distortion(double[] centroids) {
        double[] acc = new double[reduceCount()];
        assign(centroids, 0, points, acc);
        return acc[k * dims + k];
    }

    /** Clusters the prepared data with implementation {@code impl}. */
    public Result cluster(String impl) throws Exception {
        return switch (impl) {
            case Outcome.COLL4J -> coll4j();
            case Outcome.CYCLIC_BARRIER -> cyclicBarrier();
            case Outcome.SMILE -> smile();
            case Outcome.SINGLE -> single();
            default -> throw new IllegalArgumentException("impl: unknown '" + impl + "'");
        };
    }

    /** Layout of the per-iteration reduction buffer: k·d sums, k counts, 1 distortion. */
    private int reduceCount() {
        return k * dims + k + 1;
    }

    /**
     * Assigns points [from, to) to the nearest of {@code centroids}; adds every point to its cluster's sum,
     * counts it, and adds its squared distance to the last slot of {@code acc} (cleared first).
     */
    private void assign(double[] centroids, int from, int to, double[] acc) {
        java.util.Arrays.fill(acc, 0);
        int d = dims;
        int countBase = k * d;
        double distortion = 0;
        for (int i = from; i < to; i++) {
            int base = i * d;
            int best = 0;
            double bestD = Double.MAX_VALUE;
            for (int c = 0; c < k; c++) {
                int cb = c * d;
                double s = 0;
                for (int j = 0; j < d; j++) {
                    double t = data[base + j] - centroids[cb + j];
                    s += t * t;
                }
                if (s < bestD) {
                    bestD = s;
                    best = c;
                }
            }
            int sb = best * d;
            for (int j = 0; j < d; j++) {
                acc[sb + j] += data[base + j];
            }
            acc[countBase + best] += 1;
            distortion += bestD;
        }
        acc[countBase + k] = distortion;
    }

    /** New centroids from summed {@code acc}; an empty cluster keeps its centroid. */
    private void update(double[] acc, double[] centroids) {
        int d = dims;
        for (int c = 0; c < k; c++) {
            double count = acc[k * d + c];
            if (count > 0) {
                for (int j = 0; j < d; j++) {
                    centroids[c * d + j] = acc[c * d + j] / count;
                }
            }
        }
    }

    private Result single() {
        long t0 = System.nanoTime();
        double[] centroids = seeds.clone();
        double[] acc = new double[reduceCount()];
        double distortion = 0;
        for (int it = 0; it < iterations; it++) {
            assign(centroids, 0, points, acc);
            distortion = acc[k * dims + k];
            update(acc, centroids);
        }
        return new Result(centroids, distortion, Double.NaN, since(t0));
    }

    private Result coll4j() {
        double[][] out = new double[threads][];
        double[] distortion = new double[1];
        double[] seconds = new double[1];
        CommClock[] clocks = new CommClock[threads];
        try (Team team = team(threads).build()) {
            team.run(rank -> {
                int id = rank.id();
                int p = rank.size();
                int from = (int) ((long) points * id / p);
                int to = (int) ((long) points * (id + 1) / p);
                CommClock clock = new CommClock();
                double[] centroids = seeds.clone();
                double[] acc = new double[reduceCount()];
                MemorySegment accSeg = MemorySegment.ofArray(acc);
                CollectivePlan allreduce = rank.plan(Collective.ALLREDUCE, acc.length, DType.F64, Op.SUM);
                rank.barrier();
                long t0 = System.nanoTime();
                for (int it = 0; it < iterations; it++) {
                    assign(centroids, from, to, acc);
                    clock.start();
                    allreduce.execute(accSeg, accSeg);   // in place: every rank gets the sums of all
                    clock.stop();
                    update(acc, centroids);
                }
                rank.barrier();
                if (id == 0) {
                    distortion[0] = acc[k * dims + k];
                    seconds[0] = since(t0);
                }
                out[id] = centroids;
                clocks[id] = clock;
            });
        }
        return new Result(out[0], distortion[0], clocks[0].seconds(), seconds[0]);
    }

    private Result cyclicBarrier() throws Exception {
        double[][] out = new double[threads][];
        double[] distortion = new double[1];
        CommClock[] clocks = new CommClock[threads];
        double[][] partial = new double[threads][reduceCount()];
        double[] total = new double[reduceCount()];
        double[] seconds = new double[1];
        CyclicBarrier barrier = new CyclicBarrier(threads);
        Throwable[] failure = new Throwable[1];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = Thread.ofPlatform().name("kmeans-cyclicbarrier-" + t).unstarted(() -> {
                try {
                    int from = (int) ((long) points * id / threads);
                    int to = (int) ((long) points * (id + 1) / threads);
                    int lo = (int) ((long) total.length * id / threads);
                    int hi = (int) ((long) total.length * (id + 1) / threads);
                    CommClock clock = new CommClock();
                    double[] centroids = seeds.clone();
                    barrier.await();
                    long t0 = System.nanoTime();
                    for (int it = 0; it < iterations; it++) {
                        assign(centroids, from, to, partial[id]);
                        clock.start();
                        barrier.await();     // every partial written
                        for (int i = lo; i < hi; i++) {
                            double s = 0;
                            for (double[] part : partial) {
                                s += part[i];
                            }
                            total[i] = s;
                        }
                        barrier.await();     // every slice of the total written; partials free for the next iteration
                        clock.stop();
                        update(total, centroids);
                        if (id == 0 && it == iterations - 1) {
                            distortion[0] = total[k * dims + k];
                        }
                    }
                    barrier.await();
                    if (id == 0) {
                        seconds[0] = since(t0);
                    }
                    out[id] = centroids;
                    clocks[id] = clock;
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                    barrier.reset();
                }
            });
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure[0] != null) {
            throw new IllegalStateException("cyclicbarrier k-means failed", failure[0]);
        }
        return new Result(out[0], distortion[0], clocks[0].seconds(), seconds[0]);
    }

    private Result smile() throws Exception {
        double[][] rows = new double[points][];
        for (int i = 0; i < points; i++) {
            rows[i] = java.util.Arrays.copyOfRange(data, i * dims, (i + 1) * dims);
        }
        smile.math.MathEx.setSeed(seed);
        // Smile parallelises with parallel streams; run inside a pool of --threads so it gets exactly those
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            long t0 = System.nanoTime();
            smile.clustering.KMeans m = pool.submit(() -> smile.clustering.KMeans.lloyd(rows, k, iterations, 0.0)).get();
            double s = since(t0);
            double[] c = new double[k * dims];
            for (int i = 0; i < k; i++) {
                System.arraycopy(m.centroids[i], 0, c, i * dims, dims);
            }
            return new Result(c, m.distortion, Double.NaN, s);
        } finally {
            pool.shutdown();
        }
    }
}
