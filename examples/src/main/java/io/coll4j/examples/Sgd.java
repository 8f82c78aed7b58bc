package io.coll4j.examples;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CyclicBarrier;

/**
 * Data-parallel SGD of a sparse logistic regression ({@link SparseLogistic}): every rank holds a replica of
 * the weights, computes the gradient of its own mini-batch, the ranks sum the gradients, and every replica
 * takes the same step. With ~10^6 weights and 32 samples per rank the gradient is sparse to compute but
 * dense to reduce and apply: the step is dominated by moving and applying 4 MB, the communication-heavy
 * regime of data-parallel training.
 *
 * <p>coll4j runs the step sharded ({@link #coll4j}): reduce-scatter of the gradients (bf16 by default),
 * each rank's update of its own block, allgather of the weight blocks. The averaging scale
 * {@code 1/(p·batch)} is folded into the step.
 */
@Command(name = "sgd", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Data-parallel SGD, sparse logistic regression: per step every rank takes its own mini-batch, "
                + "gradients are summed over the ranks (f32) and every weight replica takes the step w -= lr/(p*batch) * sum.",
                "Implementations: coll4j (reduce-scatter of the gradients, in bf16 unless --grad f32; each rank steps its own block of "
                        + "the weights; allgather of the blocks into every replica), cyclicbarrier (await; each thread sums its slice of every "
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

    @Option(names = "--grad", defaultValue = "bf16", paramLabel = "bf16|f32",
            description = "Type coll4j reduces the gradients in: bf16 (accumulated in f32 per rank, rounded once, summed in f32 "
                    + "lanes, half the bytes) or f32 (default: ${DEFAULT-VALUE}). The other implementations reduce in f32.")
    String grad;

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
        this(features, nnz, batch, steps, lr, threads, seed, "bf16");
    }

    /** For tests: {@code grad} is coll4j's gradient type, {@code bf16} or {@code f32}. */
    public Sgd(int features, int nnz, int batch, int steps, float lr, int threads, long seed, String grad) {
        this.grad = grad;
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
        return String.format(Locale.ROOT, "%d weights f32, %d samples/rank/step x %d steps, %d nnz/sample, coll4j gradients %s",
                features, batch, steps, nnz, grad);
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
        if (!grad.equals("bf16") && !grad.equals("f32")) {
            throw new IllegalArgumentException("--grad must be bf16 or f32, got '" + grad + "'");
        }
        if (!(lr > 0)) {
            throw new IllegalArgumentException("--lr must be > 0, got " + lr);
        }
    }

    @Override
    protected long heapBytes() {
        // per thread a weight and a gradient vector (f32) and a gradient of every rank in the baselines, the shared
        // weights; the training samples (an int index and a float value per non-zero)
        return product(4, features, 3L * threads + 4) + product(8, steps, threads, batch, nnz) + product(8, 4096, nnz);
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

    /**
     * The sharded step: the gradients are reduce-scattered, each rank updates its own block of the weights, and
     * the blocks are allgathered into every replica. (YHCCL's multi-node allreduce is a reduce-scatter, an
     * allreduce across nodes and an allgather [YHCCL §5.5]; the update between the two halves is this example's.) It
     * moves the same bytes as an allreduce of the gradient, but each rank reads the summed gradient and
     * writes the weights of one block instead of all of them. With {@code --grad bf16} each rank rounds its
     * f32 gradient to bf16 where its batch touched it (sparse), and the reduce-scatter reads half the bytes;
     * the sums are computed in f32 lanes and rounded once per element.
     */
    private Result coll4j() {
        float[][] weights = new float[threads][];
        CommClock[] clocks = new CommClock[threads];
        double[] seconds = new double[1];
        double[] median = new double[1];
        float scale = scale();
        boolean bf16 = grad.equals("bf16");
        DType gradType = bf16 ? DType.BF16 : DType.F32;
        // weights and gradients padded to a multiple of p: every rank owns one block of the same length
        int block = Math.ceilDiv(features, threads);
        int padded = block * threads;
        try (Team team = team(threads).build()) {
            team.run(rank -> {
                int id = rank.id();
                int p = rank.size();
                CommClock clock = new CommClock();
                float[] w = new float[padded];
                float[] g = new float[padded];
                MemorySegment wSeg = MemorySegment.ofArray(w);
                MemorySegment ownBlock = wSeg.asSlice((long) id * block * Float.BYTES, (long) block * Float.BYTES);
                // bf16: the rounded gradient and the block of the sum in the team's (native) memory, where the
                // half-type folds run as vectors
                MemorySegment gradSeg = bf16 ? rank.allocate((long) padded * gradType.size()) : MemorySegment.ofArray(g);
                float[] sum = bf16 ? null : new float[block];
                MemorySegment sumSeg = bf16 ? rank.allocate((long) block * gradType.size()) : MemorySegment.ofArray(sum);
                CollectivePlan reduceScatter = rank.plan(Collective.REDUCE_SCATTER, block, gradType, Op.SUM);
                CollectivePlan allgather = rank.plan(Collective.ALLGATHER, block, DType.F32, null);
                rank.barrier();
                long t0 = System.nanoTime();
                IterationTimes laps = new IterationTimes();
                laps.start();
                for (int step = 0; step < steps; step++) {
                    int from = (step * p + id) * batch;
                    train.gradient(w, from, from + batch, g);
                    if (bf16) {
                        train.touchedToBf16(from, from + batch, g, gradSeg);
                    }
                    clock.start();
                    reduceScatter.execute(gradSeg, sumSeg);
                    clock.stop();
                    if (bf16) {
                        SparseLogistic.stepBlockBf16(w, id * block, sumSeg, scale, block);
                        train.clearTouched(from, from + batch, gradSeg);
                    } else {
                        SparseLogistic.stepBlock(w, id * block, sum, 0, scale, block);
                    }
                    clock.start();
                    allgather.execute(ownBlock, wSeg);
                    clock.stop();
                    train.clearTouched(from, from + batch, g);
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
        return new Result(Arrays.copyOf(weights[0], features), clocks[0].seconds(), seconds[0], median[0]);
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
