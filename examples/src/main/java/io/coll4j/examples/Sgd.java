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
import java.util.concurrent.CyclicBarrier;

/**
 * Data-parallel SGD of a sparse logistic regression ({@link SparseLogistic}): every rank holds a replica of
 * the weights, computes the gradient of its own mini-batch, the ranks sum the gradients (f32 allreduce),
 * and every replica takes the same step. With ~10^6 weights and 32 samples per rank the gradient is
 * sparse to compute but dense to reduce and apply: the step is dominated by moving and applying 4 MB, the
 * communication-heavy regime of data-parallel training.
 *
 * <p>Gradient averaging is {@code SUM} followed by a scale of {@code 1/(p·batch)} folded into the step
 * ({@link #gradientSum}); an {@code AVG} op, bf16 gradients or a non-blocking allreduce overlapped with the
 * gradient computation bucket by bucket replace exactly that one call once coll4j has them.
 */
@Command(name = "sgd", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Data-parallel SGD, sparse logistic regression: per step every rank takes its own mini-batch, "
                + "gradients are summed over the ranks (f32) and every weight replica takes the step w -= lr/(p*batch) * sum.",
                "Implementations: coll4j (allreduce of the gradient), cyclicbarrier (await; each thread sums its slice of every "
                        + "thread's gradient array into a shared array; await; every replica steps from the shared array), "
                        + "single (one thread, the same global batch of p*batch samples per step).",
                "Warm-up: one untimed training run per implementation.",
                "Check: test accuracy (4096 held-out samples) within 0.01 of single's."})
public final class Sgd extends Workload {
    /** Accuracy tolerance against the single-thread run: the gradient sums differ only in float rounding order. */
    public static final double ACCURACY_TOLERANCE = 0.01;

    @Option(names = "--features", defaultValue = "1048576", description = "Weights (features), f32 (default: ${DEFAULT-VALUE} = 2^20).")
    int features;

    @Option(names = "--nnz", defaultValue = "32", description = "Non-zero features per sample (default: ${DEFAULT-VALUE}).")
    int nnz;

    @Option(names = "--batch", defaultValue = "32", description = "Samples per rank per step (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--steps", defaultValue = "1000", description = "SGD steps (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--lr", defaultValue = "2.0", description = "Learning rate (default: ${DEFAULT-VALUE}).")
    float lr;

    private SparseLogistic train;
    private SparseLogistic test;
    private Double referenceAccuracy;

    /** Weights after training, rank 0's time in communication, and the training time (threads already started). */
    public record Result(float[] w, double commSeconds, double seconds, double medianStepSeconds) {
    }

    public Sgd() {
    }

    /** For tests and callers that skip the command line. */
    public Sgd(int features, int nnz, int batch, int steps, float lr, int threads, long seed) {
        this.features = features;
        this.nnz = nnz;
        this.batch = batch;
        this.steps = steps;
        this.lr = lr;
        this.threads = threads;
        this.seed = seed;
    }

    public static void main(String[] args) {
        System.exit(Examples.execute(new Sgd(), args));
    }

    @Override
    protected String name() {
        return "sgd";
    }

    @Override
    protected List<String> allImpls() {
        return List.of(Outcome.COLL4J, Outcome.CYCLIC_BARRIER, Outcome.SINGLE);
    }

    @Override
    protected String problem() {
        return String.format(Locale.ROOT, "%d weights f32, %d samples/rank/step x %d steps, %d nnz/sample", features, batch, steps, nnz);
    }

    @Override
    protected int defaultRepeat() {
        return 3;
    }

    @Override
    protected void validate() {
        if (features < 1) {
            throw new IllegalArgumentException("--features must be >= 1, got " + features);
        }
        if (nnz < 1) {
            throw new IllegalArgumentException("--nnz must be >= 1, got " + nnz);
        }
        if (batch < 1) {
            throw new IllegalArgumentException("--batch must be >= 1, got " + batch);
        }
        if (steps < 1) {
            throw new IllegalArgumentException("--steps must be >= 1, got " + steps);
        }
        if ((long) steps * threads * batch * nnz > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--steps x --threads x --batch x --nnz must stay below 2^31 (one index array)");
        }
        if (!(lr > 0)) {
            throw new IllegalArgumentException("--lr must be > 0, got " + lr);
        }
    }

    @Override
    protected void prepare() {
        train = SparseLogistic.generate(features, nnz, steps * threads * batch, seed, 1);
        test = SparseLogistic.generate(features, nnz, 4096, seed, 2);
        referenceAccuracy = null;
    }

    @Override
    protected void release() {
        train = null;
        test = null;
    }

    @Override
    protected Outcome run(String impl) throws Exception {
        Result r = train(impl);
        double s = r.seconds();
        double acc = test.accuracy(r.w());
        if (referenceAccuracy == null) {
            referenceAccuracy = impl.equals(Outcome.SINGLE) ? acc : test.accuracy(train(Outcome.SINGLE).w());
        }
        boolean ok = Math.abs(acc - referenceAccuracy) <= ACCURACY_TOLERANCE;
        String metric = String.format(Locale.ROOT, "accuracy %.4f, %.0f samples/s, %.1f us/step, median step %.1f us", acc,
                (double) train.samples / s, s / steps * 1e6, r.medianStepSeconds() * 1e6);
        return new Outcome(impl, s, r.commSeconds(), ok, metric);
    }

    /** Test accuracy of weights {@code w} (on the prepared test set). */
    public double accuracy(float[] w) {
        return test.accuracy(w);
    }

    /** Generates the data (for callers that skip {@link #call}). */
    public void generate() {
        prepare();
    }

    /** Trains with implementation {@code impl} on the prepared data. */
    public Result train(String impl) throws Exception {
        return switch (impl) {
            case Outcome.COLL4J -> coll4j();
            case Outcome.CYCLIC_BARRIER -> cyclicBarrier();
            case Outcome.SINGLE -> single();
            default -> throw new IllegalArgumentException("impl: unknown '" + impl + "'");
        };
    }

    private float scale() {
        return lr / ((float) threads * batch);
    }

    private Result single() {
        long t0 = System.nanoTime();
        float[] w = new float[features];
        float[] grad = new float[features];
        int global = threads * batch;
        float scale = scale();
        IterationTimes laps = new IterationTimes();
        laps.start();
        for (int step = 0; step < steps; step++) {
            int from = step * global;
            train.gradient(w, from, from + global, grad);
            SparseLogistic.step(w, grad, scale, 0, features);
            train.clearTouched(from, from + global, grad);
            laps.lap();
        }
        return new Result(w, Double.NaN, since(t0), laps.medianSeconds());
    }

    /** The gradient sum of one step: the call an AVG op, bf16 or a non-blocking allreduce would replace. */
    private static void gradientSum(CollectivePlan allreduce, MemorySegment grad, MemorySegment sum) {
        allreduce.execute(grad, sum);
    }

    private Result coll4j() {
        float[][] weights = new float[threads][];
        CommClock[] clocks = new CommClock[threads];
        double[] seconds = new double[1];
        double[] median = new double[1];
        float scale = scale();
        try (Team team = team(threads).build()) {
            team.run(rank -> {
                int id = rank.id();
                int p = rank.size();
                CommClock clock = new CommClock();
                float[] w = new float[features];
                float[] grad = new float[features];
                float[] sum = new float[features];
                MemorySegment gradSeg = MemorySegment.ofArray(grad);
                MemorySegment sumSeg = MemorySegment.ofArray(sum);
                CollectivePlan allreduce = rank.plan(Collective.ALLREDUCE, features, DType.F32, Op.SUM);
                rank.barrier();
                long t0 = System.nanoTime();
                IterationTimes laps = new IterationTimes();
                laps.start();
                for (int step = 0; step < steps; step++) {
                    int from = (step * p + id) * batch;
                    train.gradient(w, from, from + batch, grad);
                    clock.start();
                    gradientSum(allreduce, gradSeg, sumSeg);
                    clock.stop();
                    SparseLogistic.step(w, sum, scale, 0, features);
                    train.clearTouched(from, from + batch, grad);
                    laps.lap();
                }
                rank.barrier();
                if (id == 0) {
                    seconds[0] = since(t0);
                    median[0] = laps.medianSeconds();
                }
                weights[id] = w;
                clocks[id] = clock;
            });
        }
        return new Result(weights[0], clocks[0].seconds(), seconds[0], median[0]);
    }

    private Result cyclicBarrier() throws Exception {
        float[][] weights = new float[threads][];
        float[][] grads = new float[threads][features];
        float[] shared = new float[features];
        CommClock[] clocks = new CommClock[threads];
        CyclicBarrier barrier = new CyclicBarrier(threads);
        double[] seconds = new double[1];
        double[] median = new double[1];
        float scale = scale();
        Throwable[] failure = new Throwable[1];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = Thread.ofPlatform().name("sgd-cyclicbarrier-" + t).unstarted(() -> {
                try {
                    CommClock clock = new CommClock();
                    float[] w = new float[features];
                    float[] grad = grads[id];
                    int lo = (int) ((long) features * id / threads);
                    int hi = (int) ((long) features * (id + 1) / threads);
                    barrier.await();
                    long t0 = System.nanoTime();
                    IterationTimes laps = new IterationTimes();
                    laps.start();
                    for (int step = 0; step < steps; step++) {
                        int from = (step * threads + id) * batch;
                        train.gradient(w, from, from + batch, grad);
                        clock.start();
                        barrier.await();          // every gradient written
                        sumSlice(grads, shared, lo, hi);
                        barrier.await();          // every slice of the sum written
                        clock.stop();
                        SparseLogistic.step(w, shared, scale, 0, features);
                        // safe: every thread finished reading grad (its slice sums) before the second await
                        train.clearTouched(from, from + batch, grad);
                        laps.lap();
                    }
                    barrier.await();
                    if (id == 0) {
                        seconds[0] = since(t0);
                        median[0] = laps.medianSeconds();
                    }
                    weights[id] = w;
                    clocks[id] = clock;
                } catch (Throwable e) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = e;
                        }
                    }
                    barrier.reset();   // the others get BrokenBarrierException instead of waiting forever
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
            throw new IllegalStateException("cyclicbarrier SGD failed", failure[0]);
        }
        return new Result(weights[0], clocks[0].seconds(), seconds[0], median[0]);
    }

    /** {@code dst[i] = Σ_t src[t][i]} over [lo, hi), in thread order. */
    private static void sumSlice(float[][] src, float[] dst, int lo, int hi) {
        System.arraycopy(src[0], lo, dst, lo, hi - lo);
        for (int t = 1; t < src.length; t++) {
            float[] s = src[t];
            for (int i = lo; i < hi; i++) {
                dst[i] += s[i];
            }
        }
    }
}
