package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Measures one collective on one team over a size sweep, for one or more algorithms, the way OSU and
 * nccl-tests do: per size and algorithm, warm-up iterations, then timed iterations; a row per
 * (size, algorithm).
 *
 * <p>Timing: every rank times its loop; the reported mean is the slowest rank's mean per iteration
 * (the collective is done when the last rank is). Min and max are over batches of iterations
 * (batch means of the slowest rank), so the clock is read per batch, not per call — reading it per call
 * would add ~25 ns to a ~100 ns barrier. With {@code --percentiles} or {@code -c} each iteration is timed
 * on its own (percentiles need per-iteration samples; validation must not be timed).
 *
 * <p>Buffers: native memory from {@code rank.allocate} (NUMA-local) for coll4j's algorithms; for the
 * {@code cyclicbarrier} baseline plain Java arrays, as the code it stands for uses. Allocated once per
 * team at the largest size of the sweep and sliced per size.
 *
 * <p>{@code --cold}: each rank's buffers are one region of at least 2·C/p bytes (C the model's cache
 * capacity) cut into page-aligned slots, and iteration i uses slot i mod slots, so a slot is touched
 * again only after the team has walked twice the cache through: every iteration starts off-cache, as a
 * collective on data the application just streamed through does. Page-aligned slots keep the
 * hardware prefetcher (which stops at page boundaries) from warming the next slot.
 */
final class CollectiveBenchmark {
    /** Batches the timed iterations are split into for min/max. */
    static final int BATCHES = 20;

    private final Collective collective;
    private final DType dtype;
    private final Op op;
    private final int root;
    private final boolean validate;
    private final List<Integer> percentiles;
    /** Per rank: the caller of the non-blocking or persistent form being measured, null for a blocking plan. */
    private final BenchForms.Caller[] forms;
    /** {@code --consume}: every rank reads its result after each call (timed). */
    private boolean consume;
    /** Where the reads of {@code --consume} go, so the JIT cannot drop them. */
    private volatile long consumed;
    /** Wall-clock cap of the default warm-up ({@link #budgetWarmup}); unlimited for an explicit {@code -x}. */
    private long warmupBudgetNanos = Long.MAX_VALUE;
    /** Each rank's buffers: native for coll4j's algorithms, Java arrays for the baseline; slots with --cold. */
    private final BenchBuffers buffers;
    /** The non-blocking and persistent forms ({@code --nonblocking}, {@code --persistent}). */
    private final BenchForms requestForms;
    /** What {@code -c} compares a result with. */
    private final BenchReference reference;
    private final BenchRowMaker rowMaker;

    CollectiveBenchmark(Collective collective, DType dtype, Op op, int root, boolean validate, List<Integer> percentiles,
                        long maxBytes, int threads, long coldCache) {
        this.collective = collective;
        this.dtype = dtype;
        this.op = op;
        this.root = root;
        this.validate = validate;
        this.percentiles = percentiles;
        this.forms = new BenchForms.Caller[threads];
        this.buffers = new BenchBuffers(dtype, maxBytes, threads, coldCache);
        this.requestForms = new BenchForms(collective, dtype, op, root);
        this.reference = new BenchReference(collective, dtype, op, root);
        this.rowMaker = new BenchRowMaker(collective, dtype, op, root, validate, percentiles);
    }

    /** True once a measured algorithm has allocated native buffers (what {@link #checkPlacement} inspects). */
    boolean hasNativeBuffers() {
        return buffers.hasNative();
    }

    /** Where each rank's native pages are ({@link BenchBuffers#checkPlacement}); returns the buffers off their rank's node. */
    long checkPlacement(Team team, java.io.PrintWriter err) {
        return buffers.checkPlacement(team, err);
    }

    /**
     * The requested sizes of a sweep that give distinct shapes, first of each kept: a size is rounded to
     * whole elements (and, for reduce-scatter and allgather, to p of them), so a sweep from 8 B at p = 2
     * would otherwise measure and print 16 B twice.
     */
    static List<Long> distinctSizes(Collective c, List<Long> requested, DType t, int p) {
        List<Long> out = new java.util.ArrayList<>();
        Shape last = null;
        for (long s : requested) {
            Shape sh = Shape.of(c, s, t, p);
            if (!sh.equals(last)) {
                out.add(s);
                last = sh;
            }
        }
        return out;
    }

    /** Elements and byte sizes of one point of the sweep. */
    record Shape(long bytes, long count, long callCount, long sendBytes, long recvBytes) {
        static Shape of(Collective c, long requested, DType t, int p) {
            int es = t.size();
            return switch (c) {
                case BARRIER -> new Shape(0, 0, 0, 0, 0);
                case ALLREDUCE, REDUCE, BCAST -> {
                    long n = requested == 0 ? 0 : Math.max(1, requested / es);
                    yield new Shape(n * es, n, n, n * es, n * es);
                }
                case REDUCE_SCATTER, ALLGATHER -> {
                    long per = requested == 0 ? 0 : Math.max(1, requested / es / p);
                    long n = per * p;
                    boolean rs = c == Collective.REDUCE_SCATTER;
                    yield new Shape(n * es, n, per, rs ? n * es : per * es, rs ? per * es : n * es);
                }
                // ---- the rest of the vocabulary: bytes = the root's whole buffer (gather, scatter), a rank's
                // whole send buffer (alltoall), the whole vector (v-variants, scan); v-variants' buffers are
                // sized for the whole vector (a block is at most that) ----
                case GATHER, SCATTER, ALLTOALL -> {
                    long per = requested == 0 ? 0 : Math.max(1, requested / es / p);
                    long n = per * p;
                    yield new Shape(n * es, n, per, c == Collective.GATHER ? per * es : n * es,
                            c == Collective.SCATTER ? per * es : n * es);
                }
                case GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTER_V, ALLTOALLV, SCAN, EXSCAN -> {
                    long n = requested == 0 ? 0 : Math.max(1, requested / es);
                    yield new Shape(n * es, n, n, n * es, n * es);
                }
            };
        }
    }

    /** Default timed iterations for a size: many for latency-bound sizes, at least 20 (nccl-tests' default) for large ones. */
    static long defaultIterations(long bytes) {
        if (bytes <= 8192) {
            return 10_000;
        }
        return Math.max(20, Math.min(10_000, (1L << 28) / bytes));
    }

    /**
     * Default warm-up. Latency-bound sizes (10 000 timed iterations, up to ~26 KiB) get 100 000 calls:
     * the collective path is C2-compiled only after tens of thousands of calls, and on two cores the
     * compiler threads take the ranks' CPUs while they work, and an 8-byte allreduce measured after 10 000
     * warm-up calls was many times its time after 100 000 (the numbers: docs/measurements.md). Medium sizes (≥ 1000
     * iterations) warm up as many
     * calls as are timed, and at least {@link #JIT_WARMUP_CALLS}, which the wall-clock budget cuts short for the
     * large ones.
     */
    static long defaultWarmup(long iterations) {
        if (iterations >= 10_000) {
            return 100_000;
        }
        return Math.max(JIT_WARMUP_CALLS, iterations);
    }

    /**
     * Calls a row warms at least (budget permitting). A call's per-call code (the algorithm's dispatch, slicing,
     * flags) reaches C2 only after thousands of invocations, its loops much sooner; in between it runs C1's
     * profiling code, quiet and steady but slow, so batches settle on it: a 2 MiB allreduce at p = 2 warmed with 12
     * calls settled at 110–120 µs a call and timed 130–190, where 2 000 warm-up calls read 67–77.
     */
    static final long JIT_WARMUP_CALLS = 2_000;

    /** Warm-up calls between the ranks' agreements on whether the warm-up budget is spent. */
    private static final long WARMUP_CHUNK = 5_000;
    /** Default warm-up budget per (size, algorithm): enough for C2, short for a 50 µs baseline call. */
    static final long DEFAULT_WARMUP_BUDGET_NANOS = 300_000_000L;

    /**
     * {@code --consume}: after each call every rank reads its whole result (the receive buffer; the
     * buffer of a bcast; the root's of a reduce), inside the timed loop. A loop that never reads its
     * results flatters an algorithm that writes them from another core: the lines stay in the writer's
     * cache call after call and never move, where an application would pull every one of them.
     */
    void consumeResults() {
        consume = true;
    }

    /** {@code --heap}: coll4j's algorithms run on Java arrays, as the baseline does (buffers outside a shared mapping). */
    void heapBuffers() {
        buffers.heapForAll();
    }

    /** This rank's result buffer for {@code --consume}, null when it has none. */
    private MemorySegment output(int rank, MemorySegment send, MemorySegment recv) {
        return switch (collective) {
            case BARRIER -> null;
            case BCAST -> send;
            case REDUCE, GATHER, GATHERV -> rank == root ? recv : null;
            default -> recv;
        };
    }

    // ---- -a shared-view (allgather, allreduce): Rank.allgatherShared / allreduceShared, the result read in place ----

    /** Whether {@code c} has a {@code shared-view} form (a call returning a read-only view of one shared result). */
    static boolean hasSharedView(Collective c) {
        return c == Collective.ALLGATHER || c == Collective.ALLREDUCE;
    }

    /** True for {@code -a shared-view}: the call is {@link Rank#allgatherShared} or {@link Rank#allreduceShared}, its result the view. */
    private boolean sharedView(String algorithm) {
        return hasSharedView(collective) && SharedViewAllgather.NAME.equals(algorithm);
    }

    /** One call: the plan, or for {@code shared-view} the shared form (returns the view; else null). */
    private MemorySegment invoke(Rank rank, VectorLayouts.Call plan, boolean view, long callCount, MemorySegment send,
                                 MemorySegment recv) {
        if (view) {
            return collective == Collective.ALLREDUCE ? rank.allreduceShared(send, callCount, dtype, op)
                    : rank.allgatherShared(send, callCount, dtype);
        }
        execute(rank, plan, send, recv);
        return null;
    }

    /** One call of the measured form: the blocking plan, or the rank's non-blocking / persistent caller. */
    private void execute(Rank rank, VectorLayouts.Call plan, MemorySegment send, MemorySegment recv) {
        BenchForms.Caller f = forms[rank.localId()];
        if (f != null) {
            f.call(send, recv);
        } else {
            plan.run(send, recv);
        }
    }

    /** Bytes of the rank-private buffer {@link #readAll} copies through (stays in L1). */
    static final int SINK_BYTES = 16 * 1024;

    /**
     * Reads every byte of {@code seg} at copy speed: copied piece by piece into the L1-resident
     * {@code sink} (a summing loop ran at a fifth of that and would drown the collective). Returns a
     * value that depends on the last piece, so the copies cannot be dropped.
     */
    static long readAll(MemorySegment seg, MemorySegment sink) {
        if (seg == null || seg.byteSize() == 0) {
            return 0;
        }
        long size = seg.byteSize();
        for (long off = 0; off < size; off += SINK_BYTES) {
            MemorySegment.copy(seg, off, sink, 0, Math.min(SINK_BYTES, size - off));
        }
        return sink.get(ValueLayout.JAVA_BYTE, 0);
    }

    /**
     * Caps the default warm-up at {@link #DEFAULT_WARMUP_BUDGET_NANOS} of wall clock: 100 000 calls of a
     * 50 µs {@code cyclicbarrier} baseline would take 5 s per size. Not used with an explicit {@code -x}.
     */
    void budgetWarmup() {
        warmupBudgetNanos = DEFAULT_WARMUP_BUDGET_NANOS;
        steady = true;
    }

    /** The default warm-up also runs batches until they settle ({@link #settle}); an explicit -x/-w warms exactly that many calls. */
    private boolean steady;

    /** Consecutive warm-up batches whose means must lie within {@link #STEADY_TOLERANCE} of each other. */
    static final int STEADY_BATCHES = 3;
    /** (max − min) / min of the last {@link #STEADY_BATCHES} batch means, at most. */
    static final double STEADY_TOLERANCE = 0.05;
    /** Share of a batch's wall clock the JVM's compiler and collector threads may run during it and leave it clean. */
    static final double SERVICE_SHARE = 0.01;
    /** Wall clock a row's settling may take at most; a row that did not settle by then is marked. */
    static final long STEADY_CAP_NANOS = 2_000_000_000L;
    /** Settling batches are at least this long, so a batch of fast calls is not one timer tick. */
    static final long STEADY_MIN_BATCH_NANOS = 200_000L;

    /** Test hook: when set, rank 0 corrupts the first element of its checked result (the check must count it). */
    static volatile boolean corruptCheckedResultForTest;

    /**
     * Warms up until the row is in its steady state, as JMH's time-based warm-up: batches of the timed loop's size
     * (or longer, at least {@link #STEADY_MIN_BATCH_NANOS}), each timed by the slowest rank, until the last
     * {@link #STEADY_BATCHES} ran with the JIT and the collectors idle ({@link JitQuiet#jvmWork}) and are within
     * {@link #STEADY_TOLERANCE} of each other, or {@link #STEADY_CAP_NANOS} has passed.
     * A fixed count of warm-up calls was too few for large sizes: a 2 MiB allreduce at p = 2 warmed with 13 calls
     * read ~1 500 µs a call where 2 000 calls read ~104 µs (first-touch pages, cold caches and the JIT all in the
     * timed loop). The ranks agree through an allreduce (MAX) of each batch's time, so all stop at the same batch.
     */
    private void settle(Rank rank, VectorLayouts.Call plan, boolean view, long callCount, MemorySegment[] sends,
                        MemorySegment[] recvs, long batch, MemorySegment sinkBuffer, BatchState state, boolean reads,
                        RankResult res) {
        long start = System.nanoTime();
        double[] last = new double[STEADY_BATCHES];
        long calls = batch;
        long[] t = new long[3];
        int clean = 0;   // batches in a row during which the JVM's compiler and collectors stayed (nearly) idle
        long quietSince = 0;   // run time at the start of the first of them
        // one reader per process (its local rank 0): the service threads are the process's, shared by its ranks
        try (ServiceThreads service = rank.localId() == 0 ? new ServiceThreads() : null) {
            for (int b = 0; ; b++) {
                rank.barrier();
                long work = service == null ? 0 : service.nanos();
                long t0 = System.nanoTime();
                runBatch(rank, plan, view, callCount, sends, recvs, calls, sinkBuffer, state, reads);
                t[0] = System.nanoTime() - t0;
                t[1] = System.nanoTime() - start;
                t[2] = service == null ? 0 : service.nanos() - work;
                rank.allreduce(t, t, Op.MAX);   // one process's compiler or collector held up every rank of the batch
                if (t[2] > t[0] * SERVICE_SHARE) {
                    clean = 0;
                    quietSince = t[1];
                } else {
                    clean++;
                }
                last[b % STEADY_BATCHES] = t[0] / (double) calls;
                res.settleBatches = b + 1;
                if (clean >= STEADY_BATCHES && t[1] - quietSince >= JitQuiet.QUIET_NANOS) {
                    double lo = Double.MAX_VALUE;
                    double hi = 0;
                    for (double v : last) {
                        lo = Math.min(lo, v);
                        hi = Math.max(hi, v);
                    }
                    if (hi <= lo * (1 + STEADY_TOLERANCE)) {
                        res.settled = true;
                        break;
                    }
                }
                if (t[1] > STEADY_CAP_NANOS) {
                    res.settled = false;
                    break;
                }
                if (b == 0 && t[0] < STEADY_MIN_BATCH_NANOS) {
                    // the same for every rank: t[0] is the agreed maximum
                    calls = Math.max(calls, calls * STEADY_MIN_BATCH_NANOS / Math.max(1, t[0]));
                }
            }
        }
        consumed = state.sink;
    }

    /**
     * The check, outside the timed loop: fresh inputs (in place they were overwritten), a poisoned output, one call,
     * and its result compared with the scalar reference. Returns this rank's wrong elements.
     */
    private long check(Rank rank, Shape shape, Prepared prep, MemorySegment expected) {
        MemorySegment send = prep.sends()[0];
        MemorySegment recv = prep.recvs()[0];
        int r = rank.id();
        boolean bcastRoot = collective == Collective.BCAST && r == root;
        boolean inPlace = prep.inPlace();
        rank.barrier();   // every rank is out of the timed calls: none writes into a peer's buffer any more
        if (!inPlace || collective == Collective.ALLGATHER) {
            BenchReference.poison(bcastRoot ? null : collective == Collective.BCAST ? send : recv);
        }
        if (collective != Collective.BCAST || bcastRoot) {
            BenchData.fill(send, dtype, op, r, shape.sendBytes() / dtype.size());
        }
        rank.barrier();
        MemorySegment result = invoke(rank, prep.plan(), prep.view(), shape.callCount(), send, recv);
        MemorySegment got = prep.view() ? result : collective == Collective.BCAST ? send : recv;
        if (corruptCheckedResultForTest && r == 0 && !prep.view() && got != null && got.byteSize() > 0 && expected != null) {
            got.set(ValueLayout.JAVA_BYTE, 0, (byte) (got.get(ValueLayout.JAVA_BYTE, 0) ^ 0x5A));
        }
        long wrong = expected == null ? 0 : reference.wrongElements(got, expected);
        rank.barrier();   // nobody starts the next row while a peer still reads its result
        return wrong;
    }

    /**
     * {@code warmup} calls, or fewer once the budget is spent. The ranks agree on when to stop with an
     * allreduce (MAX) of their elapsed time after every chunk, so they all make the same number of calls.
     */
    private void warmUp(Rank rank, VectorLayouts.Call plan, boolean view, long callCount, MemorySegment[] sends, MemorySegment[] recvs,
                        long warmup, MemorySegment sinkBuffer, BatchState state, boolean reads) {
        long start = System.nanoTime();
        long[] elapsed = new long[1];
        for (long w = 0; w < warmup; ) {
            long chunk = Math.min(WARMUP_CHUNK, warmup - w);
            // in short batches: invoked often enough, runBatch gets a standard C2 compilation, which the timed
            // batches enter directly; a few long batches only get it compiled on-stack at its loop
            for (long done = 0; done < chunk; done += WARMUP_BATCH) {
                runBatch(rank, plan, view, callCount, sends, recvs, Math.min(WARMUP_BATCH, chunk - done), sinkBuffer, state, reads);
            }
            consumed = state.sink;
            w += chunk;
            // the timed batches start after a barrier: met here already, it is in the profile the JIT compiles
            // the shared call path (CollectiveCall.begin) with. Otherwise the first barrier of another
            // collective took a branch the compiled code had never seen (uncommon trap), and the path was
            // deoptimised and recompiled inside the first timed batches (-Xlog:jit+compilation: begin "made
            // not entrant: uncommon trap" at the start of the timed phase; batches of 60-110 ms on 2 CPUs)
            rank.barrier();
            if (w < warmup && warmupBudgetNanos != Long.MAX_VALUE) {
                elapsed[0] = System.nanoTime() - start;
                rank.allreduce(elapsed, elapsed, Op.MAX);
                if (elapsed[0] > warmupBudgetNanos) {
                    return;
                }
            }
        }
    }

    /** Calls per warm-up batch: 100 000 warm-up calls invoke {@link #runBatch} ~1 500 times. */
    private static final long WARMUP_BATCH = 64;

    /** What a rank's batches carry from one to the next: the slot of the next call, the consumed sum. */
    private static final class BatchState {
        int slot;
        long sink;
    }

    /**
     * {@code calls} calls of the measured form, cycling through the slots, each result read with
     * {@code --consume}. The warm-up runs this same method, so the JIT has compiled it before the first timed
     * batch: a timed loop of its own was compiled on-stack-replacement while the first timed batches ran,
     * and on 2 CPUs the compiler thread took a rank's CPU (8-byte rows of 200 000 calls read a mean of
     * 0.32–0.47 µs with a best batch of 0.16; a 30 000 000-call run, where that cost is spread thin, 0.17).
     * {@code reads}: each result is read ({@code --consume}; never for the barrier contender, which has none).
     */
    private void runBatch(Rank rank, VectorLayouts.Call plan, boolean view, long callCount, MemorySegment[] sends,
                          MemorySegment[] recvs, long calls, MemorySegment sinkBuffer, BatchState state, boolean reads) {
        int slots = sends.length;
        int slot = state.slot;
        long sink = state.sink;
        if (view) {
            for (long i = 0; i < calls; i++) {
                MemorySegment result = invoke(rank, plan, true, callCount, sends[slot], recvs[slot]);
                if (reads) {
                    sink += readAll(result, sinkBuffer);
                }
                slot = slot + 1 == slots ? 0 : slot + 1;
            }
        } else if (slots == 1 && !reads) {
            MemorySegment send = sends[0];
            MemorySegment recv = recvs[0];
            for (long i = 0; i < calls; i++) {
                execute(rank, plan, send, recv);
            }
        } else if (slots == 1) {
            MemorySegment send = sends[0];
            MemorySegment recv = recvs[0];
            MemorySegment out = output(rank.id(), send, recv);
            for (long i = 0; i < calls; i++) {
                execute(rank, plan, send, recv);
                sink += readAll(out, sinkBuffer);
            }
        } else {
            for (long i = 0; i < calls; i++) {
                execute(rank, plan, sends[slot], recvs[slot]);
                if (reads) {
                    sink += readAll(output(rank.id(), sends[slot], recvs[slot]), sinkBuffer);
                }
                slot = slot + 1 == slots ? 0 : slot + 1;
            }
        }
        state.slot = slot;
        state.sink = sink;
    }

    /** Measures one (size, algorithm) point. */
    BenchRow measure(Team team, long requestedBytes, String algorithm, boolean autoPick, long iterations, long warmup) {
        return measure(team, requestedBytes, algorithm, autoPick, iterations, warmup, Math.max(1, iterations / BATCHES));
    }

    /** The same with batches of {@code batch} iterations (min and max are over batch means). */
    BenchRow measure(Team team, long requestedBytes, String algorithm, boolean autoPick, long iterations, long warmup,
                     long batch) {
        return measure(team, requestedBytes, algorithm, autoPick, iterations, warmup, batch, false);
    }

    /** Measures one (size, algorithm) point in place (the result written over the input, nccl-tests' in-place column). */
    BenchRow measureInPlace(Team team, long requestedBytes, String algorithm, long iterations, long warmup) {
        return measure(team, requestedBytes, algorithm, false, iterations, warmup, Math.max(1, iterations / BATCHES), true);
    }

    private BenchRow measure(Team team, long requestedBytes, String algorithm, boolean autoPick, long iterations, long warmup,
                             long batch, boolean inPlace) {
        int p = team.globalSize();
        Shape shape = Shape.of(collective, requestedBytes, dtype, p);
        boolean baseline = algorithm.equals(io.coll4j.kernel.algo.baseline.CyclicBarrierBaselines.NAME);
        boolean perIteration = !percentiles.isEmpty();
        long n = perIteration ? iterations : (iterations + batch - 1) / batch * batch;
        RankResult[] results = new RankResult[team.size()];
        team.run(rank -> results[rank.localId()] = runRank(rank, shape, algorithm, baseline, n, warmup, batch, perIteration, inPlace));
        return rowMaker.row(shape, algorithm, autoPick, p, n, batch, perIteration, steady, results);
    }

    /**
     * Whether {@code algorithm} of this collective has an in-place form the table measures: allreduce and reduce (send
     * and receive the same buffer) and allgather (send = this rank's block of the receive buffer), as the library
     * defines in place; the blocking calls of the catalogue's algorithms only.
     */
    boolean hasInPlace(String algorithm) {
        return (collective == Collective.ALLREDUCE || collective == Collective.REDUCE || collective == Collective.ALLGATHER)
                && !algorithm.equals(BARRIER_CONTENDER) && !algorithm.equals(NONBLOCKING) && !algorithm.equals(PERSISTENT)
                && !sharedView(algorithm) && !algorithm.equals(io.coll4j.kernel.algo.baseline.CyclicBarrierBaselines.NAME);
    }

    /** {@code -a barrier}: the team's barrier, measured beside the collective (the floor every collective pays). */
    static final String BARRIER_CONTENDER = "barrier";

    /**
     * {@code --alternate}: every contender of one size measured in turns, one batch each, back to back (A B C
     * A B C …), so each sees the same minutes of the machine. Measured one after the other (as without it),
     * two contenders land in different states of a noisy machine: the cost of a line hand-over can move 2-3x
     * between tens of seconds, and ratios of separate runs scatter far more than those of alternating batches
     * in one team (the numbers: docs/measurements.md). Every contender is
     * warmed up first (its own warm-up, then the JIT left to go quiet); the rows are in {@code names}' order,
     * each with its own mean and batch min/max. Not per iteration: -c and --percentiles time each call alone.
     */
    List<BenchRow> measureAlternated(Team team, long requestedBytes, List<String> names, String pick, long iterations,
                                     long warmup) {
        int p = team.globalSize();
        Shape shape = Shape.of(collective, requestedBytes, dtype, p);
        long batch = Math.max(1, iterations / BATCHES);
        long n = (iterations + batch - 1) / batch * batch;
        int k = names.size();
        RankResult[][] results = new RankResult[k][team.size()];
        team.run(rank -> {
            RankResult[] mine = runAlternated(rank, shape, names, n, warmup, batch);
            for (int c = 0; c < k; c++) {
                results[c][rank.localId()] = mine[c];
            }
        });
        List<BenchRow> rows = new java.util.ArrayList<>();
        for (int c = 0; c < k; c++) {
            rows.add(rowMaker.row(shape, names.get(c), names.get(c).equals(pick), p, n, batch, false, steady, results[c]));
        }
        return rows;
    }

    /** When local rank 0 started each contender's batches in the last {@link #measureAlternated} ({@code [contender][batch]}, ns). */
    private volatile long[][] batchStarts;

    long[][] lastBatchStarts() {
        return batchStarts;
    }

    private RankResult[] runAlternated(Rank rank, Shape shape, List<String> names, long n, long warmup, long batch) {
        int me = rank.localId();
        int k = names.size();
        Prepared[] preps = new Prepared[k];
        RankResult[] res = new RankResult[k];
        BatchState[] states = new BatchState[k];
        int batches = (int) (n / batch);
        long callCount = shape.callCount();
        if (me == 0) {
            batchStarts = new long[k][batches];
        }
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment sinkBuffer = consume ? scratch.allocate(SINK_BYTES, 64) : null;
            for (int c = 0; c < k; c++) {
                String a = names.get(c);
                Prepared x = prepare(rank, shape, a, a.equals(io.coll4j.kernel.algo.baseline.CyclicBarrierBaselines.NAME));
                preps[c] = x;
                states[c] = new BatchState();
                res[c] = new RankResult();
                res[c].batchNs = new long[batches];
                forms[me] = x.form();
                warmUp(rank, x.plan(), x.view(), callCount, x.sends(), x.recvs(), warmup, sinkBuffer, states[c], x.reads());
            }
            // every process's local rank 0: each JVM compiles on its own (a --processes child's compiler took the CPU
            // of the spinning ranks while only process 0 had waited for its own)
            if (rank.localId() == 0 && warmup >= JitQuiet.MIN_WARMUP) {
                JitQuiet.await();
            }
            rank.barrier();
            for (int b = 0; b < batches; b++) {
                for (int c = 0; c < k; c++) {
                    Prepared x = preps[c];
                    forms[me] = x.form();
                    long t0 = System.nanoTime();
                    if (me == 0) {
                        batchStarts[c][b] = t0;
                    }
                    runBatch(rank, x.plan(), x.view(), callCount, x.sends(), x.recvs(), batch, sinkBuffer, states[c], x.reads());
                    long ns = System.nanoTime() - t0;
                    res[c].batchNs[b] = ns;
                    res[c].totalNs += ns;
                }
            }
            for (BatchState st : states) {
                consumed = st.sink;
            }
            if (validate) {
                for (int c = 0; c < k; c++) {
                    if (!names.get(c).equals(BARRIER_CONTENDER)) {
                        forms[me] = preps[c].form();
                        res[c].wrong = check(rank, shape, preps[c], reference.expected(scratch, rank, shape, preps[c].plan()));
                    }
                }
            }
        } finally {
            forms[me] = null;
            for (Prepared x : preps) {
                if (x != null && x.form() != null) {
                    x.form().close();
                }
            }
        }
        if (rank.size() != rank.localSize()) {
            for (RankResult r : res) {
                r.acrossProcesses(rank);
            }
        }
        return res;
    }

    /** One rank's buffers and call of one contender at one size: what {@link #runBatch} runs. */
    private record Prepared(VectorLayouts.Call plan, boolean view, BenchForms.Caller form, MemorySegment[] sends, MemorySegment[] recvs,
                            boolean reads, boolean inPlace) {
    }

    /**
     * This rank's buffer slots (filled with the input) and plan of {@code algorithm} at {@code shape}; {@value
     * #BARRIER_CONTENDER} is the team's barrier, run on the same slots (it touches none).
     */
    private Prepared prepare(Rank rank, Shape shape, String algorithm, boolean baseline) {
        return prepare(rank, shape, algorithm, baseline, false);
    }

    private Prepared prepare(Rank rank, Shape shape, String algorithm, boolean baseline, boolean inPlace) {
        int r = rank.id();        // global: the data and the validation
        int es = dtype.size();
        boolean bcastRoot = collective == Collective.BCAST && r == root;
        BenchBuffers.Slots slots = buffers.slots(rank, shape, baseline);
        MemorySegment[] sends = slots.sends();
        MemorySegment[] recvs = slots.recvs();
        for (int k = 0; k < sends.length; k++) {
            if (inPlace && collective == Collective.ALLGATHER) {
                // in place: this rank's block of the receive buffer is its input
                sends[k] = recvs[k].asSlice(r * shape.sendBytes(), shape.sendBytes());
            } else if (inPlace) {
                recvs[k] = sends[k];
            }
            if (collective != Collective.BCAST || bcastRoot) {
                BenchData.fill(sends[k], dtype, op, r, shape.sendBytes() / es);
            }
        }
        if (algorithm.equals(BARRIER_CONTENDER)) {
            VectorLayouts.Call barrier = VectorLayouts.call(rank.plan(Collective.BARRIER, 0, dtype, op, root, "auto"),
                    Collective.BARRIER, 0, rank.size(), r);
            return new Prepared(barrier, false, null, sends, recvs, false, false);
        }
        boolean view = sharedView(algorithm);
        VectorLayouts.Call plan = VectorLayouts.call(rank.plan(collective, shape.callCount(), dtype, op, root,
                view || algorithm.equals(NONBLOCKING) || algorithm.equals(PERSISTENT) || rank.size() != rank.localSize()
                        ? "auto" : algorithm),
                collective, shape.callCount(), rank.size(), r);
        return new Prepared(plan, view, requestForms.caller(rank, shape, algorithm, sends, recvs, plan), sends, recvs, consume, inPlace);
    }

    private RankResult runRank(Rank rank, Shape shape, String algorithm, boolean baseline, long n, long warmup, long batch,
                               boolean perIteration, boolean inPlace) {
        int r = rank.id();
        int me = rank.localId();
        Prepared prep = prepare(rank, shape, algorithm, baseline, inPlace);
        MemorySegment[] sends = prep.sends();
        MemorySegment[] recvs = prep.recvs();
        int slots = sends.length;
        boolean bcastRoot = collective == Collective.BCAST && r == root;
        MemorySegment send = sends[0];
        MemorySegment recv = recvs[0];
        boolean view = prep.view();
        boolean reads = prep.reads();
        boolean checks = validate && !algorithm.equals(BARRIER_CONTENDER);
        VectorLayouts.Call plan = prep.plan();
        forms[me] = prep.form();
        long callCount = shape.callCount();
        RankResult res = new RankResult();
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment expected = checks ? reference.expected(scratch, rank, shape, plan) : null;
            MemorySegment sinkBuffer = consume ? scratch.allocate(SINK_BYTES, 64) : null;
            BatchState state = new BatchState();
            warmUp(rank, plan, view, callCount, sends, recvs, warmup, sinkBuffer, state, reads);
            // every process's local rank 0 waits for its own JVM's JIT (see runAlternated)
            if (rank.localId() == 0 && warmup >= JitQuiet.MIN_WARMUP) {
                JitQuiet.await();
            }
            if (steady) {
                settle(rank, plan, view, callCount, sends, recvs, batch, sinkBuffer, state, reads, res);
            }
            rank.barrier();
            if (perIteration) {
                // --percentiles: every call timed on its own, into this rank's histogram (no stored samples to sort)
                org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(3_600_000_000_000L, 3);
                for (int i = 0; i < n; i++) {
                    send = sends[i % slots];
                    recv = recvs[i % slots];
                    long t0 = System.nanoTime();
                    MemorySegment result = invoke(rank, plan, view, callCount, send, recv);
                    if (reads) {
                        consumed = readAll(view ? result : output(r, send, recv), sinkBuffer);
                    }
                    long t1 = System.nanoTime();
                    h.recordValue(Math.min(t1 - t0, h.getHighestTrackableValue()));
                    res.totalNs += t1 - t0;
                }
                res.pctNs = new long[percentiles.size() + 2];
                res.pctNs[0] = h.getMinValue();
                res.pctNs[1] = h.getMaxValue();
                for (int k = 0; k < percentiles.size(); k++) {
                    res.pctNs[k + 2] = h.getValueAtPercentile(percentiles.get(k));
                }
            } else {
                int batches = (int) (n / batch);
                res.batchNs = new long[batches];
                long start = System.nanoTime();
                long t = start;
                for (int b = 0; b < batches; b++) {
                    runBatch(rank, plan, view, callCount, sends, recvs, batch, sinkBuffer, state, reads);
                    long now = System.nanoTime();
                    res.batchNs[b] = now - t;
                    t = now;
                }
                res.totalNs = t - start;
                consumed = state.sink;
            }
            if (checks) {
                // outside the timed loop, as nccl-tests checks: one more call on fresh inputs and a poisoned output
                res.wrong = check(rank, shape, prep, expected);
            }
        }
        if (forms[me] != null) {
            forms[me].close();
            forms[me] = null;
        }
        if (rank.size() != rank.localSize()) {
            res.acrossProcesses(rank);
        }
        return res;
    }

    // ---- non-blocking and persistent forms (--nonblocking, --persistent) ----

    /** The name of the row that measures {@code rank.iallreduce(...).await()} (the collective's non-blocking form) ({@code --nonblocking}). */
    static final String NONBLOCKING = "nonblocking";
    /** The name of the row that measures {@code start(); await()} of a persistent request ({@code --persistent}). */
    static final String PERSISTENT = "persistent";

    DType dtype() {
        return dtype;
    }

    Op op() {
        return op;
    }

    /** Issues the collective in its non-blocking form (a v-variant with the rank's {@link VectorLayouts} call). */
    io.coll4j.Request issue(Rank rank, MemorySegment s, MemorySegment r, long n) {
        return requestForms.issue(rank, s, r, n);
    }

    /**
     * Algorithm names for {@code -a}: {@code all} (every algorithm of the collective, baseline last), or a
     * comma-separated list of names and {@code auto}, measured side by side in that order (duplicates once).
     */
    static List<String> algorithms(Collective c, String a) {
        if (a.equalsIgnoreCase("all")) {
            List<String> all = new java.util.ArrayList<>(AlgorithmCatalog.of(c).stream().map(x -> x.name()).toList());
            if (hasSharedView(c)) {
                all.add(SharedViewAllgather.NAME);
            }
            return List.copyOf(all);
        }
        java.util.LinkedHashSet<String> names = new java.util.LinkedHashSet<>();
        for (String part : a.split(",", -1)) {
            String name = part.strip().toLowerCase(java.util.Locale.ROOT);
            if (name.isEmpty()) {
                throw new IllegalArgumentException("empty algorithm name in '" + a + "'");
            }
            if (name.equals(BARRIER_CONTENDER) && c != Collective.BARRIER) {
                names.add(name);   // the team's barrier beside the collective (every collective's floor)
                continue;
            }
            if (!name.equals("auto") && !(hasSharedView(c) && name.equals(SharedViewAllgather.NAME))) {
                AlgorithmCatalog.find(c, name);        // IllegalArgumentException listing the valid names
            }
            names.add(name);
        }
        return List.copyOf(names);
    }
}
