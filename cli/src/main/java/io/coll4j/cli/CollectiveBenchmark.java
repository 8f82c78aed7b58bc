package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
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
    private final long maxBytes;
    private final int threads;
    /** Per rank: the caller of the non-blocking or persistent form being measured, null for a blocking plan. */
    private final Caller[] forms;
    /** Per rank: native send/recv at the sweep's largest size, and Java arrays for the baseline. */
    /** {@code --consume}: every rank reads its result after each call (timed). */
    private boolean consume;
    /** Where the reads of {@code --consume} go, so the JIT cannot drop them. */
    private volatile long consumed;
    /** Wall-clock cap of the default warm-up ({@link #budgetWarmup}); unlimited for an explicit {@code -x}. */
    private long warmupBudgetNanos = Long.MAX_VALUE;
    private final MemorySegment[] nativeSend;
    private final MemorySegment[] nativeRecv;
    private final MemorySegment[] heapSend;
    private final MemorySegment[] heapRecv;
    /** Cache capacity to overrun with {@code --cold}, 0 for warm runs. */
    private final long coldCache;
    private final long regionBytes;

    CollectiveBenchmark(Collective collective, DType dtype, Op op, int root, boolean validate, List<Integer> percentiles,
                        long maxBytes, int threads, long coldCache) {
        this.collective = collective;
        this.dtype = dtype;
        this.op = op;
        this.root = root;
        this.validate = validate;
        this.percentiles = percentiles;
        this.maxBytes = maxBytes;
        this.threads = threads;
        this.forms = new Caller[threads];
        this.nativeSend = new MemorySegment[threads];
        this.nativeRecv = new MemorySegment[threads];
        this.heapSend = new MemorySegment[threads];
        this.heapRecv = new MemorySegment[threads];
        this.coldCache = coldCache;
        // warm: the largest buffer; cold: at least 2C/p per send and per recv region, so the team's regions span 4C
        long region = Math.max(maxBytes, 1);
        if (coldCache > 0) {
            region = Math.max(2 * slotBytes(maxBytes), roundUp(2 * coldCache / threads, PAGE));
        }
        this.regionBytes = region;
    }

    static final long PAGE = 4096;

    private static long roundUp(long v, long to) {
        return (v + to - 1) / to * to;
    }

    private static long slotBytes(long bytes) {
        return roundUp(Math.max(bytes, 1), PAGE);
    }

    /** True once a measured algorithm has allocated native buffers (what {@link #checkPlacement} inspects). */
    boolean hasNativeBuffers() {
        return nativeSend[0] != null;
    }

    /**
     * Asks hwloc ({@code hwloc_get_area_memlocation}) on which NUMA nodes each rank's send and receive
     * pages are, prints one line per rank to {@code err}, and returns how many buffers are not wholly on
     * their rank's node.
     */
    long checkPlacement(Team team, java.io.PrintWriter err) {
        if (!io.coll4j.bindings.hwloc.Hwloc.isAvailable()) {
            err.println("placement: hwloc not available (" + io.coll4j.bindings.hwloc.Hwloc.unavailableReason() + "): not checked");
            return 0;
        }
        long bad = 0;
        try (io.coll4j.bindings.hwloc.HwlocTopology host = io.coll4j.bindings.hwloc.HwlocTopology.loadHost()) {
            io.coll4j.topology.Topology topo = team.topology();
            for (int r = 0; r < threads; r++) {
                io.coll4j.topology.Pu pu = team.placement().pu(r);
                int node = pu.numa() >= 0 && pu.numa() < topo.numaNodes().size() ? topo.numaNodes().get(pu.numa()).osIndex() : -1;
                StringBuilder line = new StringBuilder("placement: rank " + r + " (PU " + pu.osIndex() + ", NUMA node " + node + "):");
                boolean ok = true;
                for (String which : new String[]{"send", "recv"}) {
                    MemorySegment seg = which.equals("send") ? nativeSend[r] : nativeRecv[r];
                    List<Integer> nodes = host.areaMemoryLocation(seg);
                    boolean local = nodes.equals(List.of(node));
                    ok &= local || nodes.isEmpty();
                    if (!local && !nodes.isEmpty()) {
                        bad++;
                    }
                    line.append(' ').append(which).append(' ').append(seg.byteSize()).append(" B on ")
                            .append(nodes.isEmpty() ? "no node yet (untouched)" : "node(s) " + nodes);
                }
                line.append(ok ? ": local" : ": WARNING pages off the rank's NUMA node");
                err.println(line);
            }
        } catch (RuntimeException e) {
            err.println("placement: hwloc query failed: " + e.getMessage());
        }
        err.flush();
        return bad;
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
     * calls as are timed; large, bandwidth-bound ones a tenth, at least 5.
     */
    static long defaultWarmup(long iterations) {
        if (iterations >= 10_000) {
            return 100_000;
        }
        return iterations >= 1000 ? iterations : Math.max(5, iterations / 10);
    }

    /** Warm-up calls between the ranks' agreements on whether the warm-up budget is spent. */
    private static final long WARMUP_CHUNK = 5_000;
    /** Default warm-up budget per (size, algorithm): enough for C2, short for a 50 µs baseline call. */
    static final long DEFAULT_WARMUP_BUDGET_NANOS = 300_000_000L;

    /**
     * Caps the default warm-up at {@link #DEFAULT_WARMUP_BUDGET_NANOS} of wall clock: 100 000 calls of a
     * 50 µs {@code cyclicbarrier} baseline would take 5 s per size. Not used with an explicit {@code -x}.
     */
    /**
     * {@code --consume}: after each call every rank reads its whole result (the receive buffer; the
     * buffer of a bcast; the root's of a reduce), inside the timed loop. A loop that never reads its
     * results flatters an algorithm that writes them from another core: the lines stay in the writer's
     * cache call after call and never move, where an application would pull every one of them.
     */
    void consumeResults() {
        consume = true;
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
        Caller f = forms[rank.localId()];
        if (f != null) {
            f.call(send, recv);
        } else {
            plan.run(send, recv);
        }
    }

    /**
     * Waits, at most 2 s, until the JIT has compiled nothing for 50 ms. The warm-up queues compilations that
     * C2 finishes in the background; on a 2-CPU machine a compiler thread still at work takes a rank's CPU,
     * and the first timed rows (8 B: 0.2 µs per call) measured it — 1 to 16 µs instead of 0.2. The other
     * ranks wait for this one at the barrier that follows.
     */
    /** 50 ms: a 250 ms window changed nothing measurable (first 8 B rows, 4 + 4 alternated sweeps). */
    static final long QUIET_NANOS = 50_000_000L;

    static void awaitJitQuiet() {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long start = System.nanoTime();
        long quietSince = start;
        long last = jit.getTotalCompilationTime();
        while (System.nanoTime() - start < 2_000_000_000L && System.nanoTime() - quietSince < QUIET_NANOS) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    /** Warm-ups shorter than this skip {@link #awaitJitQuiet} (latency-bound rows warm up with 100 000 calls). */
    static final long JIT_QUIET_MIN_WARMUP = 1000;

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
    /** Wall clock a row's settling may take at most; a row that did not settle by then is marked. */
    static final long STEADY_CAP_NANOS = 1_000_000_000L;
    /** Settling batches are at least this long, so a batch of fast calls is not one timer tick. */
    static final long STEADY_MIN_BATCH_NANOS = 200_000L;

    /** Test hook: when set, rank 0 corrupts the first element of its checked result (the check must count it). */
    static volatile boolean corruptCheckedResultForTest;

    /**
     * Warms up until the row is in its steady state, as JMH's time-based warm-up: batches of the timed loop's size
     * (or longer, at least {@link #STEADY_MIN_BATCH_NANOS}), each timed by the slowest rank, until the last
     * {@link #STEADY_BATCHES} are within {@link #STEADY_TOLERANCE} of each other or {@link #STEADY_CAP_NANOS} has passed.
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
        long[] t = new long[2];
        for (int b = 0; ; b++) {
            rank.barrier();
            long t0 = System.nanoTime();
            runBatch(rank, plan, view, callCount, sends, recvs, calls, sinkBuffer, state, reads);
            t[0] = System.nanoTime() - t0;
            t[1] = System.nanoTime() - start;
            rank.allreduce(t, t, Op.MAX);
            last[b % STEADY_BATCHES] = t[0] / (double) calls;
            res.settleBatches = b + 1;
            if (b + 1 >= STEADY_BATCHES) {
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
            poison(bcastRoot ? null : collective == Collective.BCAST ? send : recv);
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
        long wrong = expected == null ? 0 : wrongElements(got, expected);
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

    /** What one rank measured. */
    private static final class RankResult {
        long totalNs;
        long[] batchNs;
        /** --percentiles: this rank's min, max and each percentile (ns), from its histogram. */
        long[] pctNs;
        long wrong;
        /** The steady-state warm-up: batches run, and whether the last ones settled before the cap. */
        int settleBatches;
        boolean settled = true;
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
        return row(shape, algorithm, autoPick, p, n, batch, perIteration, results);
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
            rows.add(row(shape, names.get(c), names.get(c).equals(pick), p, n, batch, false, results[c]));
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
            if (rank.id() == 0 && warmup >= JIT_QUIET_MIN_WARMUP) {
                awaitJitQuiet();
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
                        res[c].wrong = check(rank, shape, preps[c], expected(scratch, rank, shape, preps[c].plan()));
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
                acrossProcesses(rank, r);
            }
        }
        return res;
    }

    /** The row of one (size, algorithm) point from what every rank of this process measured. */
    private BenchRow row(Shape shape, String algorithm, boolean autoPick, int p, long n, long batch, boolean perIteration,
                         RankResult[] results) {
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
        Collective c = algorithm.equals(BARRIER_CONTENDER) ? Collective.BARRIER : collective;
        return new BenchRow(c, algorithm, autoPick, p, shape.bytes(), shape.count(),
                c == Collective.BARRIER ? "-" : dtype.cliName(), c.reduces() ? op.cliName() : "-",
                c.rooted() ? root : -1, n, avgUs, minUs, maxUs, pct, wrong)
                .withSteadiness(spread, steady ? settleBatches : -1, settled);
    }

    /** One rank's buffers and call of one contender at one size: what {@link #runBatch} runs. */
    private record Prepared(VectorLayouts.Call plan, boolean view, Caller form, MemorySegment[] sends, MemorySegment[] recvs,
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
        int me = rank.localId();  // this process's arrays
        MemorySegment sendRegion;
        MemorySegment recvRegion;
        if (baseline) {
            if (heapSend[me] == null) {
                heapSend[me] = array(regionBytes);
                heapRecv[me] = array(regionBytes);
            }
            sendRegion = heapSend[me];
            recvRegion = heapRecv[me];
        } else {
            if (nativeSend[me] == null) {
                nativeSend[me] = rank.allocate(regionBytes);
                nativeRecv[me] = rank.allocate(regionBytes);
            }
            sendRegion = nativeSend[me];
            recvRegion = nativeRecv[me];
        }
        int es = dtype.size();
        boolean bcastRoot = collective == Collective.BCAST && r == root;
        // warm: one slot at offset 0; cold: every page-aligned slot of the region, each filled with the input
        int slots = coldCache > 0 ? (int) Math.max(1, Math.min(1 << 20,
                regionBytes / slotBytes(Math.max(shape.sendBytes(), shape.recvBytes())))) : 1;
        long stride = slotBytes(Math.max(shape.sendBytes(), shape.recvBytes()));
        MemorySegment[] sends = new MemorySegment[slots];
        MemorySegment[] recvs = new MemorySegment[slots];
        for (int k = 0; k < slots; k++) {
            sends[k] = sendRegion.asSlice(k * stride, shape.sendBytes());
            recvs[k] = recvRegion.asSlice(k * stride, shape.recvBytes());
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
        return new Prepared(plan, view, caller(rank, shape, algorithm, sends, recvs, plan), sends, recvs, consume, inPlace);
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
            MemorySegment expected = checks ? expected(scratch, rank, shape, plan) : null;
            MemorySegment sinkBuffer = consume ? scratch.allocate(SINK_BYTES, 64) : null;
            BatchState state = new BatchState();
            warmUp(rank, plan, view, callCount, sends, recvs, warmup, sinkBuffer, state, reads);
            if (rank.id() == 0 && warmup >= JIT_QUIET_MIN_WARMUP) {
                awaitJitQuiet();
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
            acrossProcesses(rank, res);
        }
        return res;
    }

    /**
     * A team over several processes: every rank takes the slowest process's times (MAX) and the wrong
     * elements of all (SUM), so global rank 0 prints the job's row, as the single-process maxima over ranks.
     */
    private static void acrossProcesses(Rank rank, RankResult res) {
        long[] one = {res.totalNs};
        rank.allreduce(one, one, Op.MAX);
        res.totalNs = one[0];
        for (long[] a : new long[][]{res.pctNs, res.batchNs}) {
            if (a != null) {
                rank.allreduce(a, a, Op.MAX);
            }
        }
        one[0] = res.wrong;
        rank.allreduce(one, one, Op.SUM);
        res.wrong = rank.localId() == 0 ? one[0] : 0;   // measure() sums its process's ranks: count the job's total once
    }

    // ---- non-blocking and persistent forms (--nonblocking, --persistent) ----

    /** The name of the row that measures {@code rank.iallreduce(...).await()} (the collective's non-blocking form) ({@code --nonblocking}). */
    static final String NONBLOCKING = "nonblocking";
    /** The name of the row that measures {@code start(); await()} of a persistent request ({@code --persistent}). */
    static final String PERSISTENT = "persistent";

    /** One timed call of the form being measured. */
    interface Caller extends AutoCloseable {
        void call(MemorySegment send, MemorySegment recv);

        @Override
        default void close() {
        }
    }

    /** The blocking plan of {@code algorithm}, or the non-blocking or persistent form. */
    private Caller caller(Rank rank, Shape shape, String algorithm, MemorySegment[] sends, MemorySegment[] recvs,
                          VectorLayouts.Call layout) {
        long n = shape.callCount();
        return switch (algorithm) {
            case NONBLOCKING -> (s, r) -> issue(rank, s, r, n, layout).await();
            case PERSISTENT -> new PersistentCaller(rank, sends, recvs, n, layout);
            default -> null;
        };
    }

    DType dtype() {
        return dtype;
    }

    Op op() {
        return op;
    }

    /** Issues the collective in its non-blocking form (a v-variant with the rank's {@link VectorLayouts} call). */
    io.coll4j.Request issue(Rank rank, MemorySegment s, MemorySegment r, long n) {
        return issue(rank, s, r, n, VectorLayouts.call(null, collective, n, rank.size(), rank.id()));
    }

    /** Issues the collective in its non-blocking form; {@code v} holds a v-variant's counts and displacements. */
    private io.coll4j.Request issue(Rank rank, MemorySegment s, MemorySegment r, long n, VectorLayouts.Call v) {
        return switch (collective) {
            case BARRIER -> rank.ibarrier();
            case BCAST -> rank.ibcast(s, n, dtype, root);
            case REDUCE -> rank.ireduce(s, r, n, dtype, op, root);
            case ALLREDUCE -> rank.iallreduce(s, r, n, dtype, op);
            case REDUCE_SCATTER -> rank.ireduceScatter(s, r, n, dtype, op);
            case ALLGATHER -> rank.iallgather(s, r, n, dtype);
            case GATHER -> rank.igather(s, r, n, dtype, root);
            case SCATTER -> rank.iscatter(s, r, n, dtype, root);
            case ALLTOALL -> rank.ialltoall(s, r, n, dtype);
            case SCAN -> rank.iscan(s, r, n, dtype, op);
            case EXSCAN -> rank.iexscan(s, r, n, dtype, op);
            case GATHERV -> rank.igatherv(s, v.sendCounts()[0], r, v.recvCounts(), v.recvDispls(), dtype, root);
            case SCATTERV -> rank.iscatterv(s, v.sendCounts(), v.sendDispls(), r, v.recvCounts()[0], dtype, root);
            case ALLGATHERV -> rank.iallgatherv(s, v.sendCounts()[0], r, v.recvCounts(), v.recvDispls(), dtype);
            case REDUCE_SCATTER_V -> rank.ireduceScatterV(s, r, v.recvCounts(), dtype, op);
            case ALLTOALLV -> rank.ialltoallv(s, v.sendCounts(), v.sendDispls(), r, v.recvCounts(), v.recvDispls(), dtype);
        };
    }

    /**
     * Persistent requests bound once per buffer slot (one for a warm run); a call is {@code start();
     * await()} of the slot's request — the same slot as the last call needs no lookup.
     */
    private final class PersistentCaller implements Caller {
        private final MemorySegment[] sends;
        private final io.coll4j.PersistentRequest[] requests;
        private int last;

        PersistentCaller(Rank rank, MemorySegment[] sends, MemorySegment[] recvs, long n, VectorLayouts.Call v) {
            this.sends = sends;
            this.requests = new io.coll4j.PersistentRequest[sends.length];
            for (int k = 0; k < sends.length; k++) {
                MemorySegment s = sends[k];
                MemorySegment r = recvs[k];
                if (collective.vector()) {
                    requests[k] = rank.init(v.plan(), s, v.sendCounts(), v.sendDispls(), r, v.recvCounts(), v.recvDispls());
                    continue;
                }
                requests[k] = switch (collective) {
                    case BARRIER -> rank.barrierInit();
                    case BCAST -> rank.bcastInit(s, n, dtype, root);
                    case REDUCE -> rank.reduceInit(s, r, n, dtype, op, root);
                    case ALLREDUCE -> rank.allreduceInit(s, r, n, dtype, op);
                    case REDUCE_SCATTER -> rank.reduceScatterInit(s, r, n, dtype, op);
                    case ALLGATHER -> rank.allgatherInit(s, r, n, dtype);
                    case GATHER -> rank.gatherInit(s, r, n, dtype, root);
                    case SCATTER -> rank.scatterInit(s, r, n, dtype, root);
                    case ALLTOALL -> rank.alltoallInit(s, r, n, dtype);
                    case SCAN -> rank.scanInit(s, r, n, dtype, op);
                    case EXSCAN -> rank.exscanInit(s, r, n, dtype, op);
                    default -> throw new IllegalArgumentException(collective.cliName() + " has no persistent form");
                };
            }
        }

        @Override
        public void call(MemorySegment send, MemorySegment recv) {
            if (sends[last] != send) {
                last = 0;
                while (sends[last] != send) {
                    last++;
                }
            }
            io.coll4j.PersistentRequest r = requests[last];
            r.start();
            r.await();
        }

        @Override
        public void close() {
            for (io.coll4j.PersistentRequest r : requests) {
                r.close();
            }
        }
    }

    private MemorySegment array(long bytes) {
        // the dtype's own array type; a pair's is long[], whose 8-byte slots are counted in bytes, not elements
        Class<?> component = dtype.arrayType().componentType();
        int slot = component == double.class || component == long.class ? 8 : component == short.class ? 2 : 4;
        int len = Math.toIntExact(Math.max(1, (bytes + slot - 1) / slot));
        return switch (java.lang.reflect.Array.newInstance(component, len)) {
            case double[] d -> MemorySegment.ofArray(d);
            case float[] f -> MemorySegment.ofArray(f);
            case int[] i -> MemorySegment.ofArray(i);
            case long[] l -> MemorySegment.ofArray(l);
            case short[] h -> MemorySegment.ofArray(h);
            default -> throw new IllegalStateException("no array for " + dtype);
        };
    }

    /** Fills a buffer the collective must overwrite, so a no-op cannot pass validation. */
    private static void poison(MemorySegment seg) {
        if (seg != null) {
            seg.fill((byte) 0x7B);
        }
    }

    /** What this rank's output must hold, or null when it has none (reduce off the root, barrier). */
    private MemorySegment expected(Arena arena, Rank rank, Shape s, VectorLayouts.Call call) {
        int p = rank.size();
        int r = rank.id();
        int es = dtype.size();
        return switch (collective) {
            case BARRIER -> null;
            case REDUCE -> r == root ? folded(arena, s.count(), 0, p) : null;
            case ALLREDUCE -> folded(arena, s.count(), 0, p);
            case REDUCE_SCATTER -> folded(arena, s.callCount(), r * s.callCount(), p);
            case BCAST -> {
                MemorySegment e = arena.allocate(Math.max(s.bytes(), 1)).asSlice(0, s.bytes());
                for (long i = 0; i < s.count(); i++) {
                    BenchData.put(e, dtype, i, BenchData.input(dtype, null, root, i));
                }
                yield e;
            }
            case GATHER, GATHERV, ALLGATHERV -> {
                if (collective != Collective.ALLGATHERV && r != root) {
                    yield null;
                }
                long uniform = s.callCount();
                long[] rc = call.recvCounts();
                long total = collective == Collective.GATHER ? uniform * p : s.count();
                MemorySegment e = arena.allocate(Math.max(total * es, 1)).asSlice(0, total * es);
                long at = 0;
                for (int q = 0; q < p; q++) {
                    long n = rc == null ? uniform : rc[q];
                    for (long i = 0; i < n; i++) {
                        BenchData.put(e.asSlice(at * es), dtype, i, BenchData.input(dtype, null, q, i));
                    }
                    at += n;
                }
                yield e;
            }
            case SCATTER, SCATTERV -> {
                long n = collective == Collective.SCATTER ? s.callCount() : call.recvCounts()[0];
                long from = collective == Collective.SCATTER ? r * n : VectorLayouts.packed(VectorLayouts.split(s.count(), p))[r];
                MemorySegment e = arena.allocate(Math.max(n * es, 1)).asSlice(0, n * es);
                for (long i = 0; i < n; i++) {
                    BenchData.put(e, dtype, i, BenchData.input(dtype, null, root, from + i));
                }
                yield e;
            }
            case REDUCE_SCATTER_V -> folded(arena, call.recvCounts()[r], call.recvDispls()[r], p);
            case ALLTOALL, ALLTOALLV -> {
                MemorySegment e = arena.allocate(Math.max(s.recvBytes(), 1)).asSlice(0, s.recvBytes());
                long at = 0;
                for (int q = 0; q < p; q++) {
                    long n = collective == Collective.ALLTOALL ? s.callCount() : call.recvCounts()[q];
                    // rank q's block for me starts at its displacement for me: r·count, or its packed split
                    long from = collective == Collective.ALLTOALL ? r * n
                            : VectorLayouts.call(null, collective, s.count(), p, q).sendDispls()[r];
                    for (long i = 0; i < n; i++) {
                        BenchData.put(e.asSlice(at * es), dtype, i, BenchData.input(dtype, null, q, from + i));
                    }
                    at += n;
                }
                yield e.asSlice(0, at * es);
            }
            case SCAN, EXSCAN -> {
                int upTo = collective == Collective.SCAN ? r + 1 : r;
                if (upTo == 0) {
                    yield null;
                }
                yield folded(arena, s.count(), 0, upTo);
            }
            case ALLGATHER -> {
                MemorySegment e = arena.allocate(Math.max(s.bytes(), 1)).asSlice(0, s.bytes());
                long per = s.callCount();
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < per; i++) {
                        BenchData.put(e.asSlice(q * per * es), dtype, i, BenchData.input(dtype, null, q, i));
                    }
                }
                yield e;
            }
        };
    }

    private MemorySegment folded(Arena arena, long count, long first, int p) {
        MemorySegment e = arena.allocate(Math.max(count * dtype.size(), 1)).asSlice(0, count * dtype.size());
        for (long i = 0; i < count; i++) {
            BenchData.put(e, dtype, i, BenchData.fold(dtype, op, p, first + i));
        }
        return e;
    }

    /** Elements of {@code got} that differ from {@code expected} (bitwise: benchmark inputs never produce NaN). */
    private long wrongElements(MemorySegment got, MemorySegment expected) {
        if (MemorySegment.mismatch(got, 0, expected.byteSize(), expected, 0, expected.byteSize()) < 0) {
            return 0;
        }
        long wrong = 0;
        long n = expected.byteSize() / dtype.size();
        for (long i = 0; i < n; i++) {
            if (!BenchData.same(dtype, BenchData.get(expected, dtype, i), BenchData.get(got, dtype, i))) {
                wrong++;
            }
        }
        return wrong;
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
