package io.coll4j.jmh;

import io.coll4j.internal.TeamInternals;
import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The plumbing every collective suite shares (issue 8): one measured JMH operation is one collective call
 * by one rank, and the ranks are JMH's own worker threads. A benchmark-scoped {@link Shared} state builds
 * the {@link Team} of {@code ranks} ranks; each worker thread (this class is the thread-scoped state)
 * takes the next rank id and adopts it with {@link Team#attach}, then makes a {@link CollectivePlan} for
 * the subclass's collective with the {@code algorithm} parameter — the route {@code collbench} takes, so
 * the {@code cyclicbarrier} baseline runs exactly as there. Buffers: native, from {@link Rank#allocate}
 * (NUMA-local, first touched by the rank's own thread) for coll4j's algorithms; plain {@code double[]}
 * for the baseline, as the code it stands for uses. Data is F64 with SUM, root 0, out of place.
 * {@code bytes} is the message size as in {@code collbench -m}: the whole vector for allreduce, reduce,
 * bcast, reduce-scatter (each rank receives bytes/p) and allgather (each rank sends bytes/p).
 *
 * <p><b>Threads.</b> {@code ranks} must equal JMH's thread count: the class runs {@code @Threads(2)} with
 * {@code ranks=2}; for p ranks pass both {@code -t p -p ranks=p}. A mismatch fails the trial at once with a
 * message saying so (a rank without a thread would leave every collective waiting). Only one value of
 * {@code ranks} per JMH run can therefore succeed.
 *
 * <p><b>Why iteration ends cannot deadlock.</b> JMH ends an iteration by raising {@code isDone}; every
 * worker thread leaves its measurement loop on its own, after whichever call it is in. So rank A may have
 * entered call k+1 while rank B saw {@code isDone} after call k: A waits in the collective for B. With
 * the default synchronised iterations B then keeps calling the benchmark method in the "warmdown" loop
 * until every thread has left its measurement loop, and only then do all threads meet at JMH's
 * pre-teardown latch (jmh-core 1.37, generated {@code *_jmhTest} and {@code InfraControl}). Neither
 * {@code @Group} (group threads stop just as independently) nor a timeout (the team would abort) helps.
 * The protocol here makes the warmdown calls finish what measurement started:
 * <ul>
 *   <li>Each rank publishes how many calls it has entered ({@link Shared#entered}, one padded slot per
 *       rank, a release store before each call).</li>
 *   <li>While {@link Control#stopMeasurement} is false (JMH raises it right after {@code isDone}) a call is
 *       a <em>fresh</em> collective call. Once it is true a call only <em>catches up</em>: it runs calls
 *       until this rank has entered as many as the rank that entered most, and never starts a new one.</li>
 *   <li>Every call a rank returns from has been entered by every rank. The algorithms of barrier,
 *       allreduce, reduce-scatter, allgather and every baseline guarantee this themselves
 *       ({@link CollectiveAlgorithm#observesAllEntries}); for the others (bcast, reduce: a root or leaf may
 *       finish early) the rank waits after the call until every rank's counter has reached it.</li>
 * </ul>
 * Then nothing is left waiting when the warmdown loop closes: a thread announces warmdown only after
 * returning from its last fresh call, so by then every rank has entered every fresh call; catch-up calls
 * never go past the highest fresh call; so when the last thread announces, every rank has entered every
 * call anyone entered, and every call in flight can complete. Until then no thread stops being called.
 * All ranks end each iteration with the same count. Cost per measured call: one volatile read and one
 * plain store (x86), plus, for bcast and reduce only, reading the p entry counters after each call. A
 * call that sees {@code stopMeasurement} while still inside the measurement loop is counted as an
 * operation; that needs JMH's two stores ending the iteration to fall between the loop's check and the
 * call's, so at most one per thread per iteration, and practically never.
 *
 * <p>Modes: AverageTime (default), Throughput and SampleTime share JMH's warmdown loop and use the
 * protocol. SingleShotTime with a batch size ({@code -bm ss -bs N}) needs none: every thread runs exactly
 * N calls per iteration, so there the calls are bare (JMH reports the time of the whole batch). Turning off
 * synchronised iterations ({@code -si false}) removes the warmdown loop and is refused.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public abstract class CollectiveBench {
    /** Data type by default: what {@code collbench} defaults to. */
    static final DType DTYPE = DType.F64;
    static final int ROOT = 0;

    /** Team size; must equal JMH's thread count ({@code -t}). */
    @Param({"2"})
    public int ranks;

    /**
     * Element type ({@code -p dtype=BF16}, any {@link DType} name; the baseline refuses the pair types) and,
     * for the reducing suites, the op ({@code -p op=AVG}, any {@link Op} name but USER).
     */
    @Param({"F64"})
    public String dtype;

    @Param({"SUM"})
    public String op;

    private Shared shared;
    private Rank rank;
    private CollectivePlan plan;
    /** The v-variants' counts and displacements of this rank (null arrays for the others). */
    private long[] sendCounts, sendDispls, recvCounts, recvDispls;
    private MemorySegment send;
    private MemorySegment recv;
    /** Calls this rank has entered in the trial (its {@link Shared#entered} slot holds the same). */
    private long calls;
    /** False in SingleShotTime: every thread runs the same batch, no catching up. */
    private boolean catchUp;
    /** True when the algorithm lets some rank return before every rank has entered the call. */
    private boolean awaitEntries;

    /** The collective this suite measures. */
    abstract Collective collective();

    /** The team and the entry counters, one per JMH run (fork and parameter set). */
    @State(Scope.Benchmark)
    public static class Shared {
        /** Slots are this many longs apart: 128 bytes, as the adjacent-line prefetcher pairs lines. */
        static final int STRIDE = 16;

        Team team;
        /** Calls entered by rank r, at index r × STRIDE. */
        AtomicLongArray entered;
        final AtomicInteger nextRank = new AtomicInteger();
        /** Ranks whose threads have detached at the end of the trial. */
        final AtomicInteger detached = new AtomicInteger();

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            int ranks = checkThreads(params.getParam("ranks"), params.getThreads());
            if (!params.shouldSynchIterations() && params.getMode() != Mode.SingleShotTime) {
                throw new IllegalStateException("collective benchmarks need synchronised iterations (JMH's default): "
                        + "with -si false a rank could wait forever in a collective for a thread that already left the "
                        + "iteration; drop -si false, or use -bm ss -bs N (every thread runs exactly N calls)");
            }
            entered = new AtomicLongArray(ranks * STRIDE);
            team = Team.builder().ranks(ranks).build();
        }

        /**
         * Closes the team once every thread has detached its rank: JMH lets the first thread past the trial's
         * end run this while others may still be detaching, and closing a team with attached ranks aborts it.
         */
        @TearDown(Level.Trial)
        public void close() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (detached.get() < nextRank.get() && System.nanoTime() < deadline) {
                Thread.yield();
            }
            if (team != null) {
                team.close();
            }
        }

        /** The highest number of calls any rank has entered. */
        long maxEntered() {
            long max = 0;
            for (int i = 0; i < entered.length(); i += STRIDE) {
                max = Math.max(max, entered.getAcquire(i));
            }
            return max;
        }

        /** Waits until every rank has entered {@code call} calls; fails if the team aborted meanwhile. */
        void awaitEntered(long call) {
            for (int i = 0; i < entered.length(); i += STRIDE) {
                int spins = 0;
                while (entered.getAcquire(i) < call) {
                    if (++spins % 64 == 0) {
                        if (team.isAborted()) {
                            throw new IllegalStateException("the team aborted while rank " + i / STRIDE
                                    + " had not entered call " + call);
                        }
                        Thread.yield();    // more ranks than cores: let the rank we wait for run
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
        }
    }

    /**
     * {@code ranks} parsed and compared with JMH's thread count; {@link IllegalArgumentException} naming
     * both and the options to fix it when they differ.
     */
    static int checkThreads(String ranksParam, int threads) {
        int ranks;
        try {
            ranks = Integer.parseInt(ranksParam.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("ranks must be a positive integer, got '" + ranksParam + "'");
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
        }
        if (ranks != threads) {
            throw new IllegalArgumentException("ranks=" + ranks + " but JMH runs " + threads + " worker thread"
                    + (threads == 1 ? "" : "s") + ": every rank is one JMH thread, so pass the same number to both, "
                    + "e.g. -t " + ranks + " -p ranks=" + ranks + " (and one ranks value per JMH run)");
        }
        return ranks;
    }

    /**
     * Elements per call and bytes of the send and receive buffers of one rank for {@code bytes} over
     * {@code p} ranks, as {@code collbench} sizes them: at least one element, F64.
     */
    record Shape(long callCount, long sendBytes, long recvBytes) {
        static Shape of(Collective c, long bytes, int p) {
            return of(c, bytes, p, DTYPE.size());
        }

        /** The same for elements of {@code es} bytes. */
        static Shape of(Collective c, long bytes, int p, long es) {
            return switch (c) {
                case BARRIER -> new Shape(0, 0, 0);
                case ALLREDUCE, REDUCE, BCAST -> {
                    long n = Math.max(1, bytes / es);
                    yield new Shape(n, n * es, n * es);
                }
                case REDUCE_SCATTER -> {
                    long per = Math.max(1, bytes / es / p);
                    yield new Shape(per, per * p * es, per * es);
                }
                case ALLGATHER -> {
                    long per = Math.max(1, bytes / es / p);
                    yield new Shape(per, per * es, per * p * es);
                }
                // ---- the rest of the vocabulary, bytes as collbench: the root's whole buffer (gather, scatter), a
                // rank's whole send buffer (alltoall), the whole vector (v-variants, split unevenly; scan) ----
                case GATHER, SCATTER, ALLTOALL -> {
                    long per = Math.max(1, bytes / es / p);
                    yield new Shape(per, c == Collective.GATHER ? per * es : per * p * es,
                            c == Collective.SCATTER ? per * es : per * p * es);
                }
                case GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTER_V, ALLTOALLV, SCAN, EXSCAN -> {
                    long n = Math.max(1, bytes / es);
                    yield new Shape(n, n * es, n * es);
                }
            };
        }
    }

    @Setup(Level.Trial)
    public void attach(Shared team, BenchmarkParams params) {
        shared = team;
        int id = team.nextRank.getAndIncrement();
        rank = team.team.attach(id);
        Collective c = collective();
        // the subclasses declare these parameters (their values differ per collective); read them here by name
        String algorithm = params.getParam("algorithm");
        String bytes = params.getParam("bytes");
        DType t = DType.parse(dtype);
        Shape shape = Shape.of(c, bytes == null ? 0 : CopyBench.parseSize(bytes), ranks, t.size());
        boolean baseline = AlgorithmCatalog.isBaseline(AlgorithmCatalog.find(c, algorithm));
        send = buffer(shape.sendBytes(), baseline, t);
        recv = buffer(shape.recvBytes(), baseline, t);
        if (send != null) {
            fill(send, t, shape.sendBytes() / t.size(), id);
        }
        plan = rank.plan(c, shape.callCount(), t, Op.parse(op), ROOT, algorithm);
        long[][] v = VectorShapes.layout(c, shape.callCount(), ranks, id);
        sendCounts = v[0];
        sendDispls = v[1];
        recvCounts = v[2];
        recvDispls = v[3];
        catchUp = params.getMode() != Mode.SingleShotTime;
        awaitEntries = false;
        for (int r = 0; r < ranks; r++) {
            awaitEntries |= !TeamInternals.algorithm(plan).observesAllEntries(r, ROOT, ranks);
        }
        awaitEntries &= catchUp;
        calls = 0;
    }

    /**
     * Native memory of the rank, or for the baseline a heap array of the dtype's own type (what a Java
     * developer's arrays are; a pair type's is long[]).
     */
    private MemorySegment buffer(long bytes, boolean heap, DType t) {
        if (bytes == 0) {
            return null;
        }
        if (!heap) {
            return rank.allocate(bytes);
        }
        return switch (t.isPair() ? DType.I64 : t) {
            case F64 -> MemorySegment.ofArray(new double[Math.toIntExact(bytes / 8)]);
            case F32 -> MemorySegment.ofArray(new float[Math.toIntExact(bytes / 4)]);
            case I32, U32 -> MemorySegment.ofArray(new int[Math.toIntExact(bytes / 4)]);
            case F16, BF16 -> MemorySegment.ofArray(new short[Math.toIntExact(bytes / 2)]);
            default -> MemorySegment.ofArray(new long[Math.toIntExact((bytes + 7) / 8)]);
        };
    }

    /** Rank {@code id}'s input: small values near 1 of the value type (a pair's index is the rank). */
    private static void fill(MemorySegment s, DType t, long count, int id) {
        DType v = t.valueType();
        for (long i = 0; i < count; i++) {
            double x = id + 1 + (i & 15) * 0.125;
            long at = i * t.size();
            ScalarReference.set(v, s, at, switch (v) {
                case F64 -> Double.doubleToRawLongBits(x);
                case F32 -> Float.floatToRawIntBits((float) x);
                case F16 -> Float.floatToFloat16((float) x);
                case BF16 -> Float.floatToRawIntBits((float) x) >>> 16;
                default -> (long) (x * 8);
            });
            if (t.isPair()) {
                ScalarReference.set(v.size() == 4 ? DType.I32 : DType.I64, s, at + v.size(), id);
            }
        }
    }

    @TearDown(Level.Trial)
    public void detach() {
        if (rank != null) {
            rank.close();
            shared.detached.incrementAndGet();
        }
    }

    /** One benchmark operation: a fresh collective call, or, once JMH stops measuring, catching up (class comment). */
    final void call(Control control) {
        if (!catchUp || !control.stopMeasurement) {
            enterAndRun();
            return;
        }
        while (calls < shared.maxEntered()) {
            enterAndRun();
        }
    }

    private void enterAndRun() {
        long n = ++calls;
        // release: pairs with getAcquire in maxEntered (peers catching up) and awaitEntered (peers' entry wait)
        shared.entered.setRelease(rank.id() * Shared.STRIDE, n);
        if (sendCounts == null && recvCounts == null) {
            plan.execute(send, recv);
        } else {
            plan.execute(send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
        }
        if (awaitEntries) {
            shared.awaitEntered(n);
        }
    }
}
