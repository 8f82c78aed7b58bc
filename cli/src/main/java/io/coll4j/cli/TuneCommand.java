package io.coll4j.cli;

import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.Reducers;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Pu;
import io.coll4j.topology.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collbench tune}: measures the {@link MachineModel} parameters (docs/design.md, "Machine model and selection") on this machine
 * [HMPI §3.4 "parameter estimation"], prints each with its spread over the repetitions
 * (min / median / max) and writes a profile ({@code --profile}, {@code COLL4J_PROFILE},
 * {@code Team.Builder.profile} load it). Each repetition keeps its undisturbed value (the best window, or a
 * low percentile of samples: on a machine shared with other processes the rest is the same quantity plus
 * interference, and {@code explain --measure} compares with the best batch for the same reason); the model
 * takes the best repetition (the lowest latency, the highest bandwidth). A repetition cannot be faster
 * than the hardware, only slower, and on a shared machine the state flips for seconds at a time (a line
 * hand-over measured 49 ns in one repetition and 300–970 ns in the next four): the median then models
 * the disturbed machine, which the best-batch measurements of {@code explain} and {@code collbench} do not
 * see (median model error 59% with the median, on this machine).
 *
 * <ul>
 *   <li>line latency per level: two threads bound to two cores of the level exchange flags (each writes
 *       its line and waits for the other's); a = the time of one round. Levels the machine does not have (a second
 *       LLC group, a second package) keep the default, and the output says so;</li>
 *   <li>call overhead o: an 8-byte allreduce on two ranks less one line hand-over (the software path
 *       every call pays);</li>
 *   <li>copy bandwidth, one core: in cache (L2/4 bytes just written by a core sharing the LLC, as in
 *       every collective), streaming (two buffers of twice the
 *       cache capacity, temporal stores) and with non-temporal stores ({@link Copy#nonTemporal});</li>
 *   <li>memory bandwidth: every core NT-copying its own NUMA-local buffers at once; bytes read plus
 *       bytes written per second (the congestion term 1/B of [HMPI §2.1]);</li>
 *   <li>reduction throughput per dtype (in cache: {@code dst = mine + theirs}, theirs just written by
 *       a peer core; streaming: {@code dst = a + b}: {@link Reducer#reduceMany} with k = 2, the
 *       kernel the algorithms call), in cache and
 *       streaming, in bytes of dst per second.</li>
 * </ul>
 * Each repetition keeps the best window (or a low percentile of samples): on a machine shared with other
 * processes that is the undisturbed rate the model describes. Each measurement takes a few tens of
 * milliseconds; the whole run stays well under a minute.
 */
@Command(name = "tune", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Measure the machine parameters of the cost model and write a profile (JSON).")
final class TuneCommand implements Callable<Integer> {
    static final String DEFAULT_OUTPUT = "coll4j-profile.json";
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", defaultValue = DEFAULT_OUTPUT,
            description = "profile to write (default ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "5", description = "repetitions of every measurement (default ${DEFAULT-VALUE})")
    int repeat;

    @CommandLine.Mixin
    TopologyOption machine = new TopologyOption();

    @Option(names = "--mpi", description = "under mpirun: measure the inter-process latency and bandwidth through MPI "
            + "(alpha, beta of the hierarchical costs) and print them as COLL4J_MPI_ALPHA_US / COLL4J_MPI_BETA_NS")
    boolean mpi;

    @Option(names = "--quick", description = "small buffers and few repetitions (for tests: the numbers are rough)")
    boolean quick;

    /** min / median / max of one parameter over the repetitions. */
    record Spread(double min, double median, double max) {
        static Spread of(double[] v) {
            double[] s = v.clone();
            Arrays.sort(s);
            return new Spread(s[0], s[s.length / 2], s[s.length - 1]);
        }
    }

    @Override
    public Integer call() throws IOException {
        if (mpi) {
            return tuneMpi();
        }
        // the profile is written after minutes of measuring: make sure it can be, first
        Resources.creatableFile("-o", output);
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        }
        Topology topo = machine.topology();
        if (topo.isSynthetic()) {
            throw new IllegalArgumentException("--topology " + machine.source + " is synthetic: tune measures this machine");
        }
        int reps = quick ? Math.min(repeat, 2) : repeat;
        MachineModel d = MachineModel.defaults(topo);
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        out.printf("# collbench tune: %s; %s; %d repetitions, each keeping its undisturbed value (best window or low"
                + " percentile); the model takes the best repetition%n", CollectiveCommands.machine(), topo.summary(), reps);
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

        long cached = Math.max(16 << 10, Math.min(d.l2Bytes() / 4, 1L << 20));
        long stream = quick ? 8L << 20 : Math.max(64L << 20, 2 * d.cacheCapacity());
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
                copyCached = peerBandwidth(out, spreads, "copyBandwidthCached", topo, peers, reps, cached,
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
        double mem = memoryBandwidth(out, spreads, topo, reps, quick ? 8L << 20 : Math.max(64L << 20, 2 * d.cacheCapacity()));
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
        long redCachedBytes = Math.max(8 << 10, Math.min(d.l2Bytes() / 8, 256L << 10));
        long redStreamBytes = quick ? 8L << 20 : Math.max(32L << 20, d.cacheCapacity());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(redStreamBytes, 4096);
            MemorySegment b = arena.allocate(redStreamBytes, 4096);
            MemorySegment dst = arena.allocate(redStreamBytes, 4096);
            a.fill((byte) 0);
            b.fill((byte) 0);
            dst.fill((byte) 0);
            MemorySegment[] srcs = {a, b};
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
                    // dst = mine + theirs, into my own buffer: the k = 2 fold of a tree or tile
                    redCached.put(t, peerBandwidth(out, spreads, name, topo, peers, reps, redCachedBytes, (mine, theirs) -> {
                        MemorySegment[] two = {mine, theirs};
                        r.reduceMany(mine.asSlice(redCachedBytes), 0, two, new long[]{0, 0}, 2, redCachedBytes / t.size());
                    }));
                }
                redStream.put(t, bandwidth(out, spreads, "reduceBandwidth." + t.cliName() + ".stream", reps, () -> {
                    r.reduceMany(dst, 0, srcs, offs, 2, redStreamBytes / t.size());
                    return redStreamBytes;
                }));
            }
        }
        double overhead = callOverhead(out, spreads, topo, pair(topo, Level.SAME_L3), sameL3, reps);
        MachineModel m = new MachineModel(sameL3, crossL3, crossPkg, copyCached, copyStream, nt, mem, crossBw,
                redCached.get(DType.F64), redStream.get(DType.F64), d.cacheCapacity(), d.l2Bytes(), "tune", redCached, redStream,
                overhead);
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("machine", CollectiveCommands.machine());
        extra.put("topology", topo.summary());
        extra.put("jdk", "JDK " + Runtime.version());
        extra.put("version", Version.coll4j());
        extra.put("repetitions", reps);
        extra.put("notes", notes);
        extra.put("spread", spreads);
        Path parent = output.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(output, m.toProfileJson(extra));
        out.printf("%-28s %12d  bytes (%s, from the topology)%n", "cacheCapacity", m.cacheCapacity(),
                topo.llcInclusive() ? "LLC" : "LLC + p x L2: non-inclusive LLC");
        out.printf("%-28s %12d  bytes (from the topology)%n", "l2Bytes", m.l2Bytes());
        for (String n : notes) {
            out.println("# note: " + n);
        }
        out.printf("# wrote %s in %.1f s; use it with --profile %s or COLL4J_PROFILE=%s%n", output,
                (System.nanoTime() - start) * 1e-9, output, output);
        out.flush();
        return 0;
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
     * Bytes per second of {@code op} on data another core has just written (HMPI's b_α: every copy and
     * fold of a collective reads lines modified in a peer's cache, never its own): rank 1 rewrites its
     * buffer, both synchronise, rank 0 runs {@code op} timed, both synchronise; per repetition the 10th
     * percentile of rank 0's op times (ops during which rank 0 lost its core or its cache do not count).
     */
    private double peerBandwidth(PrintWriter out, Map<String, Object> spreads, String name, Topology topo, Pu[] pair,
                                 int reps, long bytes, PeerOp op) {
        int iters = quick ? 10 : 400;
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
                    bufs[1].fill((byte) 0);
                    bufs[2].fill((byte) 0);
                }
            });
            long[] ns = new long[iters];
            for (int rep = quick ? -1 : -2; rep < reps; rep++) {  // warm-up repetitions
                team.run(rank -> {
                    for (int i = 0; i < iters; i++) {
                        if (rank.id() == 1) {
                            Copy.temporal(bufs[1], 0, bufs[2], 0, bytes);   // my lines, modified
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
                    long[] sorted = ns.clone();
                    Arrays.sort(sorted);
                    v[rep] = bytes / (sorted[iters / 10] * 1e-9);
                }
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  GB/s (source written by PU %d, read on PU %d)%n", name, gb(s.max()), gb(s.min()),
                gb(s.median()), gb(s.max()), pair[1].osIndex(), pair[0].osIndex());
        out.flush();
        spreads.put(name, List.of(s.min(), s.median(), s.max()));
        return s.max();
    }

    /**
     * o: the software cost of a collective call. Measured as an 8-byte allreduce, dissemination, on two
     * ranks sharing an LLC, less the one line hand-over its single round costs (T = o + a_α is its model),
     * and at least the time of the same call on a team of one (no peer: the bare call path). The best of
     * many short batches drops the batches another process interrupted.
     */
    private double callOverhead(PrintWriter out, Map<String, Object> spreads, Topology topo, Pu[] pair, double a, int reps) {
        double[] v = new double[reps];
        double[] one = new double[reps];
        for (int rep = quick ? -1 : -2; rep < reps; rep++) {
            double alone = perCall(topo, null);
            double two = pair == null ? alone : perCall(topo, pair);
            if (rep >= 0) {
                one[rep] = alone;
                v[rep] = Math.max(alone, two - a);
            }
        }
        Spread s = Spread.of(v);
        out.printf("%-28s %12s %12s %12s %12s  ns (8-byte dissemination allreduce on %s, less a; alone %s ns)%n",
                "callOverhead", ns(s.min()), ns(s.min()), ns(s.median()), ns(s.max()), pair == null ? "one rank" : "PUs " + pair[0].osIndex() + " and "
                        + pair[1].osIndex(), ns(Spread.of(one).median()));
        out.flush();
        spreads.put("callOverhead", List.of(s.min(), s.median(), s.max()));
        return s.min();
    }

    /** Per-call time (the best of many short batches, as explain's best batch) of an 8-byte dissemination allreduce on one rank, or on the two PUs of {@code pair}. */
    private double perCall(Topology topo, Pu[] pair) {
        int batches = quick ? 10 : 200;
        int per = quick ? 50 : 200;
        double[] batchNs = new double[batches];
        Team.Builder b = Team.builder().ranks(pair == null ? 1 : 2).topology(topo).timeout(Duration.ofSeconds(60));
        if (pair != null) {
            b.placement(Placement.parse(pair[0].osIndex() + "," + pair[1].osIndex()));
        }
        try (Team team = b.build()) {
            team.run(rank -> {
                MemorySegment x = rank.allocate(64);
                MemorySegment y = rank.allocate(64);
                // a persistent plan, as collbench and explain call the collectives
                CollectivePlan plan = rank.plan(io.coll4j.Collective.ALLREDUCE, 1, DType.F64, Op.SUM, 0, "dissemination");
                for (int k = 0; k < batches; k++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < per; i++) {
                        plan.execute(x, y);
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
     * adjacent-line prefetch pairs them). The median over batches of rounds drops the batches in which a
     * rank lost its core to another process (10th percentile).
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
        return batchNs[batches / 10] * 1e-9;
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

    /**
     * {@code tune --mpi}: α and β between processes, through the span's MPI_Allreduce. Process 0 prints them and
     * adds them to the profile {@code -o} names ({@code mpiAlphaUs}, {@code mpiBetaNsPerByte}; a spanning team's
     * selector reads them from its profile): an existing profile keeps its machine fields, a new one gets the
     * topology's defaults for them, with a note saying so.
     */
    private int tuneMpi() throws java.io.IOException {
        try (io.coll4j.Team team = io.coll4j.Team.builder().ranks(1).mpi().build()) {
            io.coll4j.kernel.span.SpanGroup g = io.coll4j.internal.TeamInternals.spanGroup(team);
            if (g == null) {
                throw new IllegalArgumentException("--mpi: one process; run under mpirun -np 2 or more");
            }
            io.coll4j.kernel.span.SpanProbe.Fit fit = io.coll4j.kernel.span.SpanProbe.measure(g.span(), quick ? 1 << 20 : 16 << 20, repeat);
            if (team.processIndex() == 0) {
                java.io.PrintWriter out = spec.commandLine().getOut();
                out.printf(java.util.Locale.ROOT, "# collbench tune --mpi: %d processes (%s), %s; best of %d batches of MPI_Allreduce%n",
                        team.processes(), Hierarchical.layout(team), team.transport(), repeat);
                out.printf(java.util.Locale.ROOT, "COLL4J_MPI_ALPHA_US=%.3f%nCOLL4J_MPI_BETA_NS=%.4f%n", fit.alpha() * 1e6, fit.beta() * 1e9);
                Map<String, Object> pair = new LinkedHashMap<>();
                pair.put(MachineModel.MPI_ALPHA_FIELD, fit.alpha() * 1e6);
                pair.put(MachineModel.MPI_BETA_FIELD, fit.beta() * 1e9);
                if (Files.exists(output)) {
                    MachineModel.putProfileFields(output, pair);
                    out.printf("# added %s and %s to %s%n", MachineModel.MPI_ALPHA_FIELD, MachineModel.MPI_BETA_FIELD, output);
                } else {
                    Resources.creatableFile("-o", output);
                    Map<String, Object> extra = new LinkedHashMap<>(pair);
                    extra.put("notes", List.of("machine fields are the topology's defaults: run collbench tune -o " + output
                            + " for measured ones, then tune --mpi -o " + output + " again"));
                    Files.writeString(output, MachineModel.defaults(team.topology()).toProfileJson(extra));
                    out.printf("# wrote %s (machine fields: defaults; run collbench tune -o %s to measure them)%n", output, output);
                }
                out.printf("# use it with COLL4J_PROFILE=%s (or Team.Builder.profile): the hierarchical selector reads the pair%n", output);
                out.flush();
            }
        }
        return 0;
    }
}
