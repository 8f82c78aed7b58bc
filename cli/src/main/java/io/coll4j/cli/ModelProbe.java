package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.internal.Reducers;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Pu;
import io.coll4j.topology.Topology;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The measurements of the {@link MachineModel}'s parameters on this machine [HMPI §3.4 "parameter
 * estimation"], shared by {@code collbench tune} (which writes them to a profile) and {@code collbench explain
 * --measure} (which calibrates the model in the same run it measures the collectives, so its check does not
 * depend on the minute a profile was made in). Prints one row per parameter (model value, then min / median
 * / max over the repetitions). Each repetition keeps its undisturbed value (the best window or batch of
 * samples: on a machine shared with other processes the rest is the same quantity plus interference); the model takes the best repetition (the lowest latency, the highest bandwidth). A
 * repetition cannot be faster than the hardware, only slower, and on a shared machine the state flips for
 * seconds at a time: the median then models the disturbed machine, which the best-batch measurements of
 * {@code explain} and {@code collbench} do not see (the numbers: docs/measurements.md).
 *
 * <ul>
 *   <li>line latency per level: two threads bound to two cores of the level exchange flags (each writes
 *       its line and waits for the other's); a = the time of one round. Levels the machine does not have (a second
 *       LLC group, a second package) keep the default, and a note says so;</li>
 *   <li>call overhead o: an 8-byte allreduce on two ranks less one line hand-over (the software path
 *       every call pays);</li>
 *   <li>copy bandwidth, one core: in cache (L2/4 bytes just written by a core sharing the LLC, as in
 *       every collective), streaming (two buffers of twice the
 *       cache capacity, temporal stores) and with non-temporal stores ({@link Copy#nonTemporal});</li>
 *   <li>the effective cache capacity C and the rates of reading a result from L2, LLC and DRAM
 *       ({@link CacheResidency});</li>
 *   <li>memory bandwidth: every core NT-copying its own NUMA-local buffers at once; bytes read plus
 *       bytes written per second (the congestion term 1/B of [HMPI §2.1]);</li>
 *   <li>reduction throughput per dtype (in cache: {@code dst = mine + theirs}, theirs just written by
 *       a peer core; streaming: {@code dst = a + b}: {@link Reducer#reduceMany} with k = 2, the
 *       kernel the algorithms call), in cache and
 *       streaming, in bytes of dst per second.</li>
 * </ul>
 * Each measurement takes a few tens of milliseconds; the whole run stays well under a minute.
 */
final class ModelProbe {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** Small buffers and few rounds (for tests: the numbers are rough). */
    private final boolean quick;
    /** Whether {@link #measure} ran: the JIT has compiled every probe, a re-measure needs one warm-up repetition, not two. */
    private boolean measured;

    /** The collective whose call overhead o this probe measures ({@link #callOverhead}). */
    private final Collective overheadOf;

    ModelProbe(boolean quick) {
        this(quick, Collective.ALLREDUCE);
    }

    /** A probe whose o is that of {@code collective}'s calls (explain --measure prices that collective's rows with it). */
    ModelProbe(boolean quick, Collective collective) {
        this.quick = quick;
        this.overheadOf = overheadCollective(collective);
    }

    /** min / median / max of one parameter over the repetitions. */
    record Spread(double min, double median, double max) {
        static Spread of(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            return new Spread(s[0], s[s.length / 2], s[s.length - 1]);
        }
    }

    /**
     * The measured model, each parameter's spread (min, median, max) by profile name, notes on what was not
     * measured, and {@code reads}: one core reading its result as {@code collbench --consume} does, from L2, LLC
     * or DRAM (not model parameters: explain adds the read to every prediction alike), and the effective cache
     * capacity the model's C is set to.
     */
    record Result(MachineModel model, Map<String, Object> spreads, List<String> notes, CacheResidency reads) {
    }

    /**
     * Measures every parameter on {@code topo} ({@code reps} repetitions each), printing the table to
     * {@code out}; {@code source} names the result ({@link MachineModel#source}).
     */
    Result measure(PrintWriter out, Topology topo, int reps, String source) {
        MachineModel d = MachineModel.defaults(topo);
        out.printf("%-28s %12s %12s %12s %12s  %s%n", "parameter", "model", "min", "median", "max", "unit");
        Map<String, Object> spreads = new LinkedHashMap<>();
        List<String> notes = new ArrayList<>();
        long rounds = quick ? 500 : 20_000;
        double sameL3 = latency(out, spreads, notes, "lineLatencySameL3", topo, pair(topo, Level.SAME_L3), reps, rounds,
                d.lineLatencySameL3(), "no two cores share an LLC");
        double crossL3 = latency(out, spreads, notes, "lineLatencyCrossL3", topo, pair(topo, Level.CROSS_L3), reps, rounds,
                d.lineLatencyCrossL3(), "one LLC group per package");
        double crossPkg = latency(out, spreads, notes, "lineLatencyCrossPackage", topo, pair(topo, Level.CROSS_PACKAGE), reps,
                rounds, d.lineLatencyCrossPackage(), "one package");

        long cached = copyBytes(d);
        long stream = streamBytes(d);
        double copyCached;
        double copyStream;
        double nt;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(stream, 4096);
            MemorySegment dst = arena.allocate(stream, 4096);
            src.fill((byte) 1);
            dst.fill((byte) 2);
            Pu[] peers = pair(topo, Level.SAME_L3);
            if (peers == null) {
                notes.add("copyBandwidthCached, reduceBandwidth.*.cached: no two cores share an LLC: measured on one core");
                copyCached = bandwidth(out, spreads, "copyBandwidthCached", reps, () -> {
                    Copy.temporal(dst, 0, src, 0, cached);
                    return cached;
                });
            } else {
                copyCached = peerBandwidth(out, spreads, "copyBandwidthCached", topo, peers, reps, cached, true,
                        (mine, theirs) -> Copy.temporal(mine, 0, theirs, 0, cached));
            }
            copyStream = bandwidth(out, spreads, "copyBandwidthStream", reps, () -> {
                Copy.temporal(dst, 0, src, 0, stream);
                return stream;
            });
            if (!Copy.nativeAvailable()) {
                notes.add("ntCopyBandwidth: native NT copy unavailable (" + Copy.nativeStatus() + "): measured the temporal fallback");
            }
            nt = bandwidth(out, spreads, "ntCopyBandwidth", reps, () -> {
                Copy.nonTemporal(dst, 0, src, 0, stream);
                return stream;
            });
        }
        // a result read as collbench --consume reads it, from L2, LLC and DRAM, and the effective C
        CacheResidency reads = CacheResidency.measure(out, spreads, d.l2Bytes(), d.cacheCapacity(), stream, reps, repNs(), warmNs());
        double mem = memoryBandwidth(out, spreads, topo, reps, streamBytes(d));
        double crossBw = d.crossPackageBandwidth();
        if (topo.packages().size() < 2) {
            notes.add("crossPackageBandwidth: one package: kept the default " + gb(crossBw) + " GB/s");
            out.printf("%-28s %12s %12s %12s %12s  GB/s (default: one package)%n", "crossPackageBandwidth", gb(crossBw), "-", "-", "-");
        } else {
            crossBw = mem;
            notes.add("crossPackageBandwidth: set to the memory bandwidth (not measured separately)");
            out.printf("%-28s %12s %12s %12s %12s  GB/s (= memoryBandwidth, not measured separately)%n", "crossPackageBandwidth",
                    gb(crossBw), "-", "-", "-");
        }

        Map<DType, Double> redCached = new EnumMap<>(DType.class);
        Map<DType, Double> redStream = new EnumMap<>(DType.class);
        long redCachedBytes = foldBytes(d);
        long redStreamBytes = quick ? 8L << 20 : Math.max(32L << 20, d.cacheCapacity());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] three = touched(arena, 3, redStreamBytes);
            MemorySegment dst = three[2];
            MemorySegment[] srcs = {three[0], three[1]};
            long[] offs = {0, 0};
            Pu[] peers = pair(topo, Level.SAME_L3);
            // f64 first: the default dtype, measured before anything else shares the JIT's attention
            for (DType t : List.of(DType.F64, DType.F32, DType.I64, DType.I32)) {
                Reducer r = Reducers.of(t, Op.SUM);
                // many calls of a few KiB first: invocation and loop counts get the kernel to C2 with its
                // vector loop hot (C1 code, or C2 code compiled while the loop was rare, boxes the vectors
                // and runs 5-10x slower, for good [reductions' VectorReducer])
                for (int i = 0; i < (quick ? 500 : 5_000); i++) {
                    r.reduceMany(dst, 0, srcs, offs, 2, 4096 / t.size());
                }
                String name = "reduceBandwidth." + t.cliName() + ".cached";
                if (peers == null) {
                    redCached.put(t, bandwidth(out, spreads, name, reps, () -> {
                        r.reduceMany(dst, 0, srcs, offs, 2, redCachedBytes / t.size());
                        return redCachedBytes;
                    }));
                } else {
                    redCached.put(t, foldCached(out, spreads, name, topo, peers, reps, redCachedBytes, r, t));
                }
                redStream.put(t, bandwidth(out, spreads, "reduceBandwidth." + t.cliName() + ".stream", reps, () -> {
                    r.reduceMany(dst, 0, srcs, offs, 2, redStreamBytes / t.size());
                    return redStreamBytes;
                }));
            }
        }
        MachineModel noOverhead = new MachineModel(sameL3, crossL3, crossPkg, copyCached, copyStream, nt, mem, crossBw,
                redCached.get(DType.F64), redStream.get(DType.F64), reads.cacheCapacity(), d.l2Bytes(), source, redCached, redStream,
                0);
        MachineModel m = noOverhead.withCallOverhead(callOverhead(out, spreads, topo, pair(topo, Level.SAME_L3), noOverhead, reps));
        measured = true;
        return new Result(m, spreads, notes, reads);
    }

    /**
     * Untimed repetitions before a team's timed ones (its buffers' pages touched, its threads running; at first
     * also the JIT's compilations): two, one when quick or after {@link #measure}.
     */
    private int warmUps() {
        return quick || measured ? 1 : 2;
    }

    /** Bytes of each buffer of the DRAM probes: twice the topology's cache, at least 64 MiB (8 MiB quick). */
    private long streamBytes(MachineModel d) {
        return quick ? 8L << 20 : Math.max(64L << 20, 2 * d.cacheCapacity());
    }

    /** Bytes of the in-cache copy probe: a quarter of the L2, as a slice of the sliced algorithms. */
    private static long copyBytes(MachineModel d) {
        return Math.max(16 << 10, Math.min(d.l2Bytes() / 4, 1L << 20));
    }

    /** Bytes of dst of the in-cache fold probe (two sources and dst: 3/8 of the L2). */
    private static long foldBytes(MachineModel d) {
        return Math.max(8 << 10, Math.min(d.l2Bytes() / 8, 256L << 10));
    }

    /**
     * {@code dst = mine + theirs} of {@code t}, into my own buffer: the k = 2 fold of a tree or tile. Theirs is
     * a send buffer its owner wrote before the calls, not rewritten between them (as in collbench's loop and
     * an application's that reduces the same buffer repeatedly): the fold reads lines this core already
     * shares. Lines a peer writes during the call are priced apart, at a line transfer each
     * (CopyCost.peerWritten); with theirs rewritten before every fold this measured well under the collectives'
     * own folds (the numbers: docs/measurements.md).
     */
    private double foldCached(PrintWriter out, Map<String, Object> spreads, String name, Topology topo, Pu[] peers, int reps,
                              long bytes, Reducer r, DType t) {
        return peerBandwidth(out, spreads, name, topo, peers, reps, bytes, false, (mine, theirs) -> {
            MemorySegment[] two = {mine, theirs};
            r.reduceMany(mine.asSlice(bytes), 0, two, new long[]{0, 0}, 2, bytes / t.size());
        });
    }

    /**
     * {@code base} with the parameters that move with the machine's state re-measured, once each (a fraction
     * of a second): a_α, o, and the in-cache copy and fold rates of {@code dtype}. On a shared virtual machine the
     * cores can flip every few tens of seconds between a fast and a slow line hand-over (cross-core copies at
     * half the rate in the slow one; the numbers: docs/measurements.md), so {@code explain --measure} re-measures
     * these before each algorithm's row: every row is priced with the machine of its own minute. With
     * {@code dram} (a size beyond the cache) also the memory bandwidth of all cores together, which other
     * processes' memory traffic takes a share of (a minute apart, far less than its calibration measured).
     * Prints nothing; with no two cores sharing an
     * LLC, {@code base}.
     */
    MachineModel remeasure(MachineModel base, Topology topo, DType dtype, boolean dram) {
        Pu[] peers = pair(topo, Level.SAME_L3);
        if (peers == null) {
            return base;
        }
        PrintWriter none = new PrintWriter(java.io.Writer.nullWriter());
        Map<String, Object> spreads = new LinkedHashMap<>();
        double a = latency(none, spreads, new ArrayList<>(), "a", topo, peers, 1, quick ? 500 : 20_000,
                base.lineLatencySameL3(), "");
        long cached = copyBytes(base);
        double copy = peerBandwidth(none, spreads, "copy", topo, peers, 1, cached, true,
                (mine, theirs) -> Copy.temporal(mine, 0, theirs, 0, cached));
        DType rates = dtype.valueType();
        double fold = foldCached(none, spreads, "fold", topo, peers, 1, foldBytes(base), Reducers.of(rates, Op.SUM), rates);
        Map<DType, Double> redCached = new EnumMap<>(base.reduceCachedByDtype());
        redCached.put(dtype, fold);
        MachineModel inCache = new MachineModel(a, base.lineLatencyCrossL3(), base.lineLatencyCrossPackage(), copy,
                base.copyBandwidthStream(), base.ntCopyBandwidth(), base.memoryBandwidth(), base.crossPackageBandwidth(),
                redCached.get(DType.F64), base.reduceBandwidthStream(), base.cacheCapacity(), base.l2Bytes(), base.source(),
                redCached, base.reduceStreamByDtype(), 0);
        double o = callOverhead(none, spreads, topo, peers, inCache, 1);
        if (!dram) {
            return inCache.withCallOverhead(o);
        }
        // beyond the cache: the DRAM rates, which other processes' memory traffic takes a share of, again
        double mem = memoryBandwidth(none, spreads, topo, 1, streamBytes(base));
        long stream = streamBytes(base);
        Map<DType, Double> redStream = new EnumMap<>(base.reduceStreamByDtype());
        double copyStream;
        double nt;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] three = touched(arena, 3, stream);
            MemorySegment x = three[0];
            MemorySegment y = three[1];
            MemorySegment z = three[2];
            copyStream = best(() -> {
                Copy.temporal(y, 0, x, 0, stream);
                return stream;
            }, repNs());
            nt = best(() -> {
                Copy.nonTemporal(y, 0, x, 0, stream);
                return stream;
            }, repNs());
            Reducer r = Reducers.of(rates, Op.SUM);
            MemorySegment[] srcs = {x, y};
            long[] offs = {0, 0};
            redStream.put(dtype, best(() -> {
                r.reduceMany(z, 0, srcs, offs, 2, stream / rates.size());
                return stream;
            }, repNs()));
        }
        return new MachineModel(a, base.lineLatencyCrossL3(), base.lineLatencyCrossPackage(), copy, copyStream, nt, mem,
                base.crossPackageBandwidth(), redCached.get(DType.F64), redStream.get(DType.F64), base.cacheCapacity(),
                base.l2Bytes(), base.source(), redCached, redStream, o);
    }

    /** {@code n} page-aligned buffers of {@code bytes}, zeroed by this thread (their pages touched before timing). */
    private static MemorySegment[] touched(Arena arena, int n, long bytes) {
        MemorySegment[] out = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            out[i] = arena.allocate(bytes, 4096);
            out[i].fill((byte) 0);
        }
        return out;
    }

    /**
     * Of two re-measurements of the same parameters ({@link #remeasure}), each parameter's undisturbed value: the
     * lower latency and overhead, the higher rate (a measurement can only be slowed by other processes). {@code
     * explain --measure} prices a row with the best of the re-measurements just before and just after it: its
     * best batch is undisturbed if the machine was undisturbed at any time during the row.
     */
    static MachineModel best(MachineModel x, MachineModel y) {
        Map<DType, Double> redCached = new EnumMap<>(DType.class);
        Map<DType, Double> redStream = new EnumMap<>(DType.class);
        for (DType t : DType.values()) {
            redCached.put(t, Math.max(x.reduceCachedByDtype().get(t), y.reduceCachedByDtype().get(t)));
            redStream.put(t, Math.max(x.reduceStreamByDtype().get(t), y.reduceStreamByDtype().get(t)));
        }
        return new MachineModel(Math.min(x.lineLatencySameL3(), y.lineLatencySameL3()), x.lineLatencyCrossL3(),
                x.lineLatencyCrossPackage(), Math.max(x.copyBandwidthCached(), y.copyBandwidthCached()),
                Math.max(x.copyBandwidthStream(), y.copyBandwidthStream()), Math.max(x.ntCopyBandwidth(), y.ntCopyBandwidth()),
                Math.max(x.memoryBandwidth(), y.memoryBandwidth()), x.crossPackageBandwidth(), redCached.get(DType.F64),
                redStream.get(DType.F64), x.cacheCapacity(), x.l2Bytes(), x.source(), redCached, redStream,
                Math.min(x.callOverhead(), y.callOverhead()));
    }

    private static String gb(double bps) {
        return String.format(Locale.ROOT, "%.2f", bps / 1e9);
    }

    /** One timed operation: the bytes it moves (as the parameter counts them). */
    interface Op1 {
        long run();
    }

    /**
     * Bytes per second of {@code one}: a warm-up of {@link #warmNs} (the JIT compiles the vector kernels
     * and the pages get touched), then {@code reps} repetitions, each calling {@code one} for at least
     * {@link #repNs} so a repetition is not a single short call at the mercy of a timer tick.
     */
    private double bandwidth(PrintWriter out, Map<String, Object> spreads, String name, int reps, Op1 one) {
        warm(one);
        double[] v = new double[reps];
        for (int i = 0; i < reps; i++) {
            v[i] = best(one, repNs());
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  GB/s%n", name, gb(s.max()), gb(s.min()), gb(s.median()), gb(s.max()));
        out.flush();
        spreads.put(name, List.of(s.min(), s.median(), s.max()));
        return s.max();
    }

    /**
     * Runs {@code one} until its rate is steady: at least {@link #warmNs}, then until two consecutive 20 ms
     * windows show no more than 10% speed-up (tiered compilation first runs the Vector API kernels in C1 code that is
     * orders of magnitude slower; on a busy machine C2 may take seconds), at most 5 s.
     */
    private void warm(Op1 one) {
        long t0 = System.nanoTime();
        double last = timed(one, 20_000_000L);
        while (System.nanoTime() - t0 < (quick ? 20_000_000L : 5_000_000_000L)) {
            double now = timed(one, 20_000_000L);
            if (System.nanoTime() - t0 >= warmNs() && now <= 1.1 * last) {
                return;
            }
            last = now;
        }
    }

    private long warmNs() {
        return quick ? 20_000_000L : 250_000_000L;
    }

    private long repNs() {
        return quick ? 5_000_000L : 40_000_000L;
    }

    /**
     * The best rate of {@code one} over windows of at least 2 ms within {@code totalNs}: on a machine shared
     * with other processes the best window is the one in which this thread had its core and its cache to
     * itself, which is what the model describes (explain checks it against the best batch likewise).
     */
    private static double best(Op1 one, long totalNs) {
        double best = 0;
        long t0 = System.nanoTime();
        do {
            best = Math.max(best, timed(one, 2_000_000L));
        } while (System.nanoTime() - t0 < totalNs);
        return best;
    }

    private static double timed(Op1 one, long minNs) {
        long bytes = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            bytes += one.run();
            t = System.nanoTime();
        } while (t - t0 < minNs);
        return bytes / ((t - t0) * 1e-9);
    }

    /** An operation of rank 0 on its own buffer and one rank 1 has just written. */
    interface PeerOp {
        void run(MemorySegment mine, MemorySegment theirs);
    }

    /**
     * Bytes per second of {@code op} on data another core wrote (HMPI's b_α: every copy and fold of a
     * collective reads lines a peer wrote, never only its own): with {@code rewrite} rank 1 rewrites its buffer
     * before every op (the lines are modified in its cache), without it only once before the first; both
     * synchronise, rank 0 runs {@code op} timed, both synchronise; per repetition rank 0's fastest op (the
     * statistic explain and collbench compare with, their best batch: with other processes loading the
     * machine even the 10th percentile of ops was disturbed).
     */
    private double peerBandwidth(PrintWriter out, Map<String, Object> spreads, String name, Topology topo, Pu[] pair,
                                 int reps, long bytes, boolean rewrite, PeerOp op) {
        // a re-measurement (explain, before and after every row) takes a quarter: under load the 400
        // barrier-separated copies were most of a re-measurement, most of a small size's time
        int iters = quick ? 10 : measured ? 100 : 400;
        double[] v = new double[reps];
        Placement where = Placement.parse(pair[0].osIndex() + "," + pair[1].osIndex());
        try (Team team = Team.builder().ranks(2).topology(topo).placement(where).timeout(Duration.ofSeconds(60)).build()) {
            MemorySegment[] bufs = new MemorySegment[3];
            team.run(rank -> {
                if (rank.id() == 0) {
                    bufs[0] = rank.allocate(2 * bytes);
                    bufs[0].fill((byte) 0);
                } else {
                    bufs[1] = rank.allocate(bytes);
                    bufs[2] = rank.allocate(bytes);
                    bufs[2].fill((byte) 0);
                    Copy.temporal(bufs[1], 0, bufs[2], 0, bytes);   // my lines
                }
            });
            long[] ns = new long[iters];
            for (int rep = -warmUps(); rep < reps; rep++) {
                team.run(rank -> {
                    for (int i = 0; i < iters; i++) {
                        if (rewrite && rank.id() == 1) {
                            Copy.temporal(bufs[1], 0, bufs[2], 0, bytes);   // my lines, modified again
                        }
                        rank.barrier();
                        if (rank.id() == 0) {
                            long t0 = System.nanoTime();
                            op.run(bufs[0], bufs[1]);
                            ns[i] = System.nanoTime() - t0;
                        }
                        rank.barrier();
                    }
                });
                if (rep >= 0) {
                    v[rep] = bytes / (measured ? bestWindowMean(ns) : Arrays.stream(ns).min().orElseThrow() * 1e-9);
                }
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  GB/s (source written by PU %d%s, read on PU %d)%n", name, gb(s.max()), gb(s.min()),
                gb(s.median()), gb(s.max()), pair[1].osIndex(), rewrite ? " before each op" : " once", pair[0].osIndex());
        out.flush();
        spreads.put(name, List.of(s.min(), s.median(), s.max()));
        return s.max();
    }

    /**
     * o: the software cost of a collective call, of the collective this probe calibrates for
     * ({@link #overheadOf}). Measured as an 8-byte call of that collective's reference algorithm
     * ({@link #overheadAlgorithm}: one hand-over, or the fewest the collective has) on two ranks sharing an LLC,
     * less the hand-overs and copies its cost charges besides o ({@code noOverhead}: the model measured so far,
     * o = 0; for the dissemination allreduce, T = o + a_α), and at least the time of the same call on a team of
     * one (no peer: the bare call path). The best of many short batches drops the batches another process
     * interrupted. Per collective because the call paths differ: measured with the allreduce (whose call
     * dispatches a fold), o priced the 16 B–1 KiB flat bcast rows up to 54% over (median +27%) while the
     * 8–512 B allreduce rows were 8–11% under.
     */
    private double callOverhead(PrintWriter out, Map<String, Object> spreads, Topology topo, Pu[] pair, MachineModel noOverhead,
                                int reps) {
        String alg = overheadAlgorithm(overheadOf);
        double beside = pair == null ? 0 : AlgorithmCatalog.find(overheadOf, alg).cost(noOverhead, 2, overheadShape(overheadOf, 2).bytes());
        double[] v = new double[reps];
        double[] one = new double[reps];
        for (int rep = -warmUps(); rep < reps; rep++) {
            double alone = perCall(topo, null);
            double two = pair == null ? alone : perCall(topo, pair);
            if (rep >= 0) {
                one[rep] = alone;
                v[rep] = Math.max(alone, two - beside);
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  ns (8-byte %s %s on %s, less its %s ns of hand-overs; alone %s ns)%n",
                "callOverhead", ns(s.min()), ns(s.min()), ns(s.median()), ns(s.max()), alg, overheadOf.cliName(),
                pair == null ? "one rank" : "PUs " + pair[0].osIndex() + " and " + pair[1].osIndex(), ns(beside),
                ns(Spread.of(one).median()));
        out.flush();
        spreads.put("callOverhead", List.of(s.min(), s.median(), s.max()));
        return s.min();
    }

    /**
     * The algorithm whose 8-byte call o is measured with: the one with the fewest hand-overs at that size (the
     * value in the flag line where it has one). Collectives without one of their own use the allreduce's.
     */
    static String overheadAlgorithm(Collective c) {
        return switch (c) {
            case ALLREDUCE -> "dissemination";
            case BCAST -> "flat";
            case ALLGATHER, REDUCE_SCATTER, REDUCE -> "direct";
            default -> throw new IllegalArgumentException("no reference call for " + c.cliName());
        };
    }

    /** The collective o is calibrated for: its own where it has a reference call, else the allreduce. */
    static Collective overheadCollective(Collective c) {
        return switch (c) {
            case ALLREDUCE, BCAST, ALLGATHER, REDUCE_SCATTER, REDUCE -> c;
            default -> Collective.ALLREDUCE;
        };
    }

    /**
     * Seconds per op of the best window of consecutive ops lasting about {@value #ROW_BATCH_NS} ns, as a row of
     * {@code explain} keeps its best batch of ~20 us: a re-measurement prices a row, and the fastest single op of
     * a hundred is a lower order statistic than the row's best batch mean (the copy and fold rates re-measured that
     * way priced the 16 KiB-2 MiB allreduce rows 7-16% under in every run, replicated and direct alike).
     */
    static double bestWindowMean(long[] ns) {
        long fastest = Arrays.stream(ns).min().orElseThrow();
        int w = (int) Math.max(1, Math.min(ns.length, Math.ceil((double) ROW_BATCH_NS / Math.max(1, fastest))));
        long sum = 0;
        for (int i = 0; i < w; i++) {
            sum += ns[i];
        }
        long best = sum;
        for (int i = w; i < ns.length; i++) {
            sum += ns[i] - ns[i - w];
            best = Math.min(best, sum);
        }
        return best * 1e-9 / w;
    }

    /** How long a row's batch lasts in {@code explain} (its batches are sized to ~20 us of predicted time). */
    static final long ROW_BATCH_NS = 20_000;

    /** Calls per batch of the o probe: an 8-byte row's batch (explain batches ~20 us: ~130 calls of ~0.15 us). */
    static final int ROW_BATCH_CALLS = 128;

    /** The shape of {@code c}'s reference call on {@code ranks} ranks: 8 bytes per rank (one f64). */
    static CollectiveBenchmark.Shape overheadShape(Collective c, int ranks) {
        // reduce-scatter and allgather count bytes for all ranks, the rest per rank
        int share = c == Collective.REDUCE_SCATTER || c == Collective.ALLGATHER ? ranks : 1;
        return CollectiveBenchmark.Shape.of(c, 8L * share, DType.F64, ranks);
    }

    /**
     * Per-call time (the best of many short batches, as explain's best batch) of the 8-byte reference call of
     * {@link #overheadOf} on one rank, or on the two PUs of {@code pair}.
     */
    private double perCall(Topology topo, Pu[] pair) {
        // as explain times an 8-byte row: 10 000 calls in batches of about 20 us. The best of more batches is a
        // lower order statistic than the row's best batch: with 200 batches of 200 calls (and the better of the
        // re-measurements before and after a row) the 8-byte allreduce rows measured 8-25% over o + a_alpha
        int per = quick ? 50 : ROW_BATCH_CALLS;
        int batches = quick ? 10 : (int) (CollectiveBenchmark.defaultIterations(8) / ROW_BATCH_CALLS);
        double[] batchNs = new double[batches];
        int ranks = pair == null ? 1 : 2;
        CollectiveBenchmark.Shape shape = overheadShape(overheadOf, ranks);
        String alg = overheadAlgorithm(overheadOf);
        Team.Builder b = Team.builder().ranks(ranks).topology(topo).timeout(Duration.ofSeconds(60));
        if (pair != null) {
            b.placement(Placement.parse(pair[0].osIndex() + "," + pair[1].osIndex()));
        }
        try (Team team = b.build()) {
            team.run(rank -> {
                MemorySegment x = rank.allocate(Math.max(64, shape.sendBytes()));
                MemorySegment y = rank.allocate(Math.max(64, shape.recvBytes()));
                // a persistent plan, as collbench and explain call the collectives
                CollectivePlan plan = rank.plan(overheadOf, shape.callCount(), DType.F64, Op.SUM, 0, alg);
                MemorySegment send = x.asSlice(0, shape.sendBytes());
                MemorySegment recv = y.asSlice(0, shape.recvBytes());
                for (int k = 0; k < batches; k++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < per; i++) {
                        plan.execute(send, recv);
                    }
                    if (rank.id() == 0) {
                        batchNs[k] = (System.nanoTime() - t0) / (double) per;
                    }
                }
            });
        }
        Arrays.sort(batchNs);
        return batchNs[0] * 1e-9;
    }

    enum Level { SAME_L3, CROSS_L3, CROSS_PACKAGE }

    /** Two PUs on different cores at {@code level}, or null when the machine has no such pair. */
    static Pu[] pair(Topology t, Level level) {
        for (Pu a : t.pus()) {
            for (Pu b : t.pus()) {
                if (a.core() == b.core()) {
                    continue;
                }
                boolean match = switch (level) {
                    case SAME_L3 -> a.l3() == b.l3() && a.pkg() == b.pkg();
                    case CROSS_L3 -> a.l3() != b.l3() && a.pkg() == b.pkg();
                    case CROSS_PACKAGE -> a.pkg() != b.pkg();
                };
                if (match) {
                    return new Pu[]{a, b};
                }
            }
        }
        return null;
    }

    private double latency(PrintWriter out, Map<String, Object> spreads, List<String> notes, String name, Topology topo,
                           Pu[] pair, int reps, long rounds, double fallback, String absent) {
        if (pair == null) {
            notes.add(name + ": " + absent + " on this machine: kept the default " + ns(fallback) + " ns");
            out.printf("%-28s %12s %12s %12s %12s  ns (default: %s)%n", name, ns(fallback), "-", "-", "-", absent);
            out.flush();
            return fallback;
        }
        double[] v = new double[reps];
        Placement where = Placement.parse(pair[0].osIndex() + "," + pair[1].osIndex());
        try (Team team = Team.builder().ranks(2).topology(topo).placement(where).timeout(Duration.ofSeconds(60)).build();
             Arena arena = Arena.ofShared()) {
            MemorySegment line = arena.allocate(256, 128);
            pingPong(team, line, rounds / 4);               // warm-up
            for (int i = 0; i < reps; i++) {
                v[i] = pingPong(team, line, rounds);
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  ns (PUs %d and %d)%n", name, ns(s.min()), ns(s.min()), ns(s.median()), ns(s.max()),
                pair[0].osIndex(), pair[1].osIndex());
        out.flush();
        spreads.put(name, List.of(s.min(), s.median(), s.max()));
        return s.min();
    }

    private static String ns(double seconds) {
        return String.format(Locale.ROOT, "%.1f", seconds * 1e9);
    }

    /**
     * One flag hand-over as the collectives' protocols make it: per round both ranks publish their own line
     * (release) and spin for the other's (acquire), the two transfers overlapping, which is every step of a
     * dissemination exchange and, one-sided, every ARRIVE/RELEASE wait. The flags sit 128 bytes apart (no
     * adjacent-line prefetch pairs them). The best of 50 batches of rounds drops the batches in which a
     * rank lost its core to another process, as explain's and collbench's best batch does (under load even the
     * 10th percentile was several times the quiet value).
     */
    private static double pingPong(Team team, MemorySegment line, long rounds) {
        int batches = 50;
        long per = Math.max(1, rounds / batches);
        double[] batchNs = new double[batches];
        LONG.setVolatile(line, 0L, 0L);
        LONG.setVolatile(line, 128L, 0L);
        team.run(rank -> {
            long mine = rank.id() == 0 ? 0L : 128L;
            long theirs = 128L - mine;
            long v = 0;
            for (int b = 0; b < batches; b++) {
                long t0 = System.nanoTime();
                for (long i = 0; i < per; i++) {
                    v++;
                    LONG.setRelease(line, mine, v);
                    while ((long) LONG.getAcquire(line, theirs) < v) {
                        Thread.onSpinWait();
                    }
                }
                if (rank.id() == 0) {
                    batchNs[b] = (System.nanoTime() - t0) / (double) per;
                }
            }
        });
        Arrays.sort(batchNs);
        return batchNs[0] * 1e-9;
    }

    /** Every core NT-copying its own NUMA-local buffers at once; (read + written bytes) per second of the slowest. */
    private static double memoryBandwidth(PrintWriter out, Map<String, Object> spreads, Topology topo, int reps, long bytes) {
        int p = Math.max(1, topo.cores().size());
        double[] v = new double[reps];
        try (Team team = Team.builder().ranks(p).topology(topo).timeout(Duration.ofSeconds(60)).build()) {
            MemorySegment[] src = new MemorySegment[p];
            MemorySegment[] dst = new MemorySegment[p];
            long[] ns = new long[p];
            team.run(rank -> {
                src[rank.id()] = rank.allocate(bytes);
                dst[rank.id()] = rank.allocate(bytes);
                src[rank.id()].fill((byte) 1);
                dst[rank.id()].fill((byte) 2);
            });
            for (int i = -1; i < reps; i++) {
                // best of three copies: each core's buffers are 2C each, so no copy finds its source in the LLC,
                // and the best copy is the one no other process's memory traffic slowed
                double best = 0;
                for (int k = 0; k < 3; k++) {
                    team.run(rank -> {
                        rank.barrier();
                        long t0 = System.nanoTime();
                        Copy.nonTemporal(dst[rank.id()], 0, src[rank.id()], 0, bytes);
                        rank.barrier();
                        ns[rank.id()] = System.nanoTime() - t0;
                    });
                    best = Math.max(best, 2.0 * bytes * p / (Arrays.stream(ns).max().orElseThrow() * 1e-9));
                }
                if (i >= 0) {
                    v[i] = best;
                }
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  GB/s (%d cores, NT copy, read + write)%n", "memoryBandwidth", gb(s.max()), gb(s.min()),
                gb(s.median()), gb(s.max()), p);
        out.flush();
        spreads.put("memoryBandwidth", List.of(s.min(), s.median(), s.max()));
        return s.max();
    }
}
