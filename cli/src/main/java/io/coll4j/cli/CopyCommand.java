package io.coll4j.cli;

import io.coll4j.Team;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.bindings.copy.NativeLibrary;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/**
 * {@code collbench copy}: the bandwidth of each copy path of the copy engine, with one or more threads
 * copying at once [YHCCL §4.1, Table 4]. The threads are the ranks of a coll4j {@link Team}: each is
 * bound to its PU by the placement, owns a source and a destination allocated NUMA-local and first
 * touched by itself, and starts every iteration together with the others after a team barrier, so
 * concurrent copies compete for memory bandwidth as they do inside a collective. An iteration lasts as
 * long as its slowest thread.
 *
 * <p>Without {@code -i} the number of iterations is set per size and implementation so that a point
 * takes about {@link #TARGET_POINT_NANOS} (between {@link #MIN_ITERATIONS} and {@link #MAX_ITERATIONS}
 * iterations), from the time per iteration observed in the warm-up.
 */
@Command(name = "copy", sortOptions = false, mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = {
                "Copy bandwidth of the copy engine's paths, one or more threads copying",
                "at once (YHCCL sec. 4.1-4.2; docs/design.md, Copy engine). Implementations (--impl, default all):",
                "  temporal     the C copy of libcoll4j.so with ordinary aligned stores: the",
                "               nontemporal loop with another store instruction",
                "  nontemporal  Copy.nonTemporal: streaming stores (_mm512_stream_si512 or",
                "               _mm256_stream_si256) + sfence; temporal below the NT floor",
                "  adaptive     Copy.adaptive: nontemporal iff W = 2 x bytes x threads > C,",
                "               C = LLC, or LLC + threads x L2 for a non-inclusive LLC",
                "  segment      MemorySegment.copy between native segments",
                "  arraycopy    System.arraycopy between byte[] arrays on the Java heap",
                "bytes: copied per thread. avg/min/max: time of an iteration, i.e. of its",
                "slowest thread, in us. GBps = bytes x threads / avg time (1 GB = 10^9 B).",
                "path: what the copy really did. Each thread holds 2 x MAX bytes of native",
                "memory (and 2 x MAX bytes of heap for arraycopy).",
                ""})
final class CopyCommand implements Callable<Integer> {

    /** The CSV header (exact, a public contract). */
    static final String CSV_HEADER = "impl,threads,bytes,iterations,avg_us,min_us,max_us,GBps";

    /** Implementation names, in output order. */
    static final List<String> IMPLS = List.of("temporal", "nontemporal", "adaptive", "segment", "arraycopy");

    /** Time one (size, impl) point should take without {@code -i}: long enough to average out timer and scheduling noise. */
    static final long TARGET_POINT_NANOS = 300_000_000L;

    /** Warm-up without {@code -x}: iterations double from 1 until this much time has been spent (JIT, page faults, caches). */
    static final long TARGET_WARMUP_NANOS = 60_000_000L;

    static final long MIN_ITERATIONS = 3;
    static final long MAX_ITERATIONS = 1_000_000;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-m", "--sizes"}, paramLabel = "[MIN:]MAX",
            description = "bytes copied per thread, K/M/G suffixes, doubling, as the collectives' -m: MIN:MAX or MAX alone "
                    + "(from 4K) (default 4K:256M)")
    String sizes;

    @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "1",
            description = "threads copying at once, each with its own buffers (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--impl", paramLabel = "NAME", split = ",",
            description = "implementations, comma-separated (default: all): temporal,nontemporal,adaptive,segment,arraycopy")
    List<String> impls = new ArrayList<>();

    @Option(names = {"-i", "--iterations"}, paramLabel = "N",
            description = "timed iterations per point (default: scaled so a point takes ~0.3 s, " + MIN_ITERATIONS + ".." + MAX_ITERATIONS + ")")
    Long iterations;

    @Option(names = {"-x", "--warmup"}, paramLabel = "N",
            description = "warm-up iterations per point (default: doubling until ~60 ms are spent)")
    Long warmup;

    @Option(names = "--cache", paramLabel = "SIZE",
            description = "cache capacity C for the adaptive impl (default: from the topology, YHCCL sec. 4.2)")
    String cache;

    @CommandLine.Mixin
    FormatOption format = new FormatOption();

    @CommandLine.Mixin
    OutputFileOption output = new OutputFileOption();

    @CommandLine.Mixin
    PlacementOptions where = new PlacementOptions();

    @Override
    public Integer call() throws IOException {
        SizeRange range = SizeRange.of(sizes, null, null, null, "4K:256M");
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be >= 1, got " + threads);
        }
        Resources.threads(threads, where.topology().pus().size());
        if (iterations != null && (iterations < 1 || iterations > MAX_ITERATIONS)) {
            throw new IllegalArgumentException("--iterations must be in 1.." + MAX_ITERATIONS + ", got " + iterations);
        }
        if (warmup != null && (warmup < 0 || warmup > MAX_ITERATIONS)) {
            throw new IllegalArgumentException("--warmup must be in 0.." + MAX_ITERATIONS + ", got " + warmup);
        }
        List<String> chosen = impls.isEmpty() ? IMPLS : List.copyOf(impls);
        for (String i : chosen) {
            if (!IMPLS.contains(i)) {
                throw new IllegalArgumentException("unknown copy impl '" + i + "' (expected " + String.join(", ", IMPLS) + ")");
            }
        }
        boolean arrays = chosen.contains("arraycopy");
        if (arrays && range.max() > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("arraycopy copies byte[] arrays, which hold < 2 GiB: -m max is " + SizeRange.format(range.max()));
        }
        checkMemory(range.max(), arrays);
        OutputFormat fmt = format.format();
        Topology topo = where.topology();
        Placement placement = where.placement();
        long capacity = cache != null ? SizeRange.parseSize(cache)
                : Copy.cacheCapacity(topo.llcBytes(), topo.l2Bytes(), topo.llcInclusive(), threads);
        String capacitySource = cache != null ? "--cache"
                : topo.llcInclusive() ? "LLC " + SizeRange.format(topo.llcBytes()) + ", inclusive"
                : "LLC " + SizeRange.format(topo.llcBytes()) + " + " + threads + " x L2 " + SizeRange.format(topo.l2Bytes())
                        + ", non-inclusive LLC";
        Copy engine = new Copy(capacity);

        PrintWriter out = output.open(spec.commandLine().getOut());
        try (Team team = Team.builder().ranks(threads).topology(topo).placement(placement).timeout(Duration.ofMinutes(10)).build()) {
            begin(out, fmt, topo, team, engine, capacitySource);
            CopyBuffers buffers = new CopyBuffers(threads, range.max());
            for (long bytes : range.sizes()) {
                for (String impl : chosen) {
                    Point p = measure(team, buffers, impl, bytes, engine);
                    row(out, fmt, p, path(impl, bytes, engine));
                }
            }
            out.flush();
        } finally {
            output.close(out);
        }
        return 0;
    }

    // ---- measurement ------------------------------------------------------------------------------

    /** Each rank's buffers, allocated once at the largest size by the rank itself (NUMA-local, touched). */
    private static final class CopyBuffers {
        final long capacity;
        final MemorySegment[] src;
        final MemorySegment[] dst;
        final byte[][] srcArray;
        final byte[][] dstArray;

        CopyBuffers(int ranks, long capacity) {
            this.capacity = capacity;
            src = new MemorySegment[ranks];
            dst = new MemorySegment[ranks];
            srcArray = new byte[ranks][];
            dstArray = new byte[ranks][];
        }
    }

    /** One measured point: per-iteration times (the slowest rank's), in ns. */
    record Point(String impl, int threads, long bytes, long[] nanos) {
        double avgMicros() {
            double sum = 0;
            for (long n : nanos) {
                sum += n;
            }
            return sum / nanos.length / 1e3;
        }

        double minMicros() {
            long m = Long.MAX_VALUE;
            for (long n : nanos) {
                m = Math.min(m, n);
            }
            return m / 1e3;
        }

        double maxMicros() {
            long m = 0;
            for (long n : nanos) {
                m = Math.max(m, n);
            }
            return m / 1e3;
        }

        /** bytes × threads / avg time, in 10^9 bytes per second. */
        double gbps() {
            double avg = avgMicros();
            return avg == 0 ? 0 : (double) bytes * threads / (avg * 1e3);
        }
    }

    /** A batch of iterations: the slowest rank's time of each, and the time of the whole loop on rank 0 (barriers included). */
    private record Batch(long[] slowest, long loopNanos) {
        long nanosPerIteration() {
            return loopNanos / Math.max(slowest.length, 1);
        }
    }

    private Point measure(Team team, CopyBuffers buffers, String impl, long bytes, Copy engine) {
        // Warm-up; without -x it doubles from 1 iteration until TARGET_WARMUP_NANOS of copying are spent.
        // Its last batch gives the time per iteration from which the iteration count is scaled (measured
        // inside the ranks' loop: team.run starts threads, which must not count).
        Batch last = null;
        if (warmup != null) {
            if (warmup > 0 || iterations == null) {
                last = runBatch(team, buffers, impl, bytes, engine, Math.max(warmup, 1));   // -x 0: one untimed probe
            }
        } else {
            long spent = 0;
            for (long n = 1; spent < TARGET_WARMUP_NANOS && n <= MAX_ITERATIONS; n *= 2) {
                last = runBatch(team, buffers, impl, bytes, engine, n);
                spent += last.loopNanos();
            }
        }
        long iters = iterations != null ? iterations
                : Math.clamp(TARGET_POINT_NANOS / Math.max(last.nanosPerIteration(), 1), MIN_ITERATIONS, MAX_ITERATIONS);
        return new Point(impl, threads, bytes, runBatch(team, buffers, impl, bytes, engine, iters).slowest());
    }

    /** {@code n} iterations on every rank: barrier, copy, each rank timing its own copy. */
    private Batch runBatch(Team team, CopyBuffers buffers, String impl, long bytes, Copy engine, long n) {
        int count = Math.toIntExact(n);
        long[][] times = new long[threads][];
        long[] loop = new long[1];
        long workingSet = 2 * bytes * (long) threads;
        team.run(rank -> {
            int r = rank.id();
            boolean array = impl.equals("arraycopy");
            if (!array && buffers.src[r] == null) {
                buffers.src[r] = rank.allocate(buffers.capacity);
                buffers.dst[r] = rank.allocate(buffers.capacity);
                buffers.src[r].fill((byte) 1);
            }
            if (array && buffers.srcArray[r] == null) {
                buffers.srcArray[r] = new byte[(int) buffers.capacity];   // zeroed, i.e. touched, by this rank
                buffers.dstArray[r] = new byte[(int) buffers.capacity];
                java.util.Arrays.fill(buffers.srcArray[r], (byte) 1);
            }
            MemorySegment src = buffers.src[r];
            MemorySegment dst = buffers.dst[r];
            byte[] srcArray = buffers.srcArray[r];
            byte[] dstArray = buffers.dstArray[r];
            long[] t = new long[count];
            long loopStart = System.nanoTime();
            for (int i = 0; i < count; i++) {
                rank.barrier();   // every thread starts iteration i together
                long start = System.nanoTime();
                switch (impl) {
                    case "temporal" -> Copy.nativeTemporal(dst, 0, src, 0, bytes);
                    case "nontemporal" -> Copy.nonTemporal(dst, 0, src, 0, bytes);
                    case "adaptive" -> engine.adaptive(dst, 0, src, 0, bytes, workingSet);
                    case "segment" -> MemorySegment.copy(src, 0, dst, 0, bytes);
                    default -> System.arraycopy(srcArray, 0, dstArray, 0, (int) bytes);
                }
                t[i] = System.nanoTime() - start;
            }
            times[r] = t;
            if (r == 0) {
                loop[0] = System.nanoTime() - loopStart;
            }
        });
        long[] slowest = new long[count];
        for (long[] t : times) {
            for (int i = 0; i < count; i++) {
                slowest[i] = Math.max(slowest[i], t[i]);
            }
        }
        return new Batch(slowest, loop[0]);
    }

    /** What the copy of {@code impl} at {@code bytes} really does, for the table's path column. */
    private String path(String impl, long bytes, Copy engine) {
        String stream = Copy.nativeAvailable() ? "stream " + Copy.ntIsa() : "temporal (no NT: MemorySegment.copy)";
        String nt = !Copy.nativeAvailable() || bytes >= Copy.NT_MIN_BYTES ? stream
                : "temporal (< NT floor " + SizeRange.format(Copy.NT_MIN_BYTES) + ")";
        return switch (impl) {
            case "temporal" -> NativeLibrary.available() ? "C stores" : "MemorySegment.copy (no libcoll4j.so)";
            case "nontemporal" -> nt;
            case "adaptive" -> {
                long w = 2 * bytes * (long) threads;
                String rule = "W " + SizeRange.format(w) + (w > engine.cacheCapacity() ? " > " : " <= ")
                        + "C " + SizeRange.format(engine.cacheCapacity());
                yield engine.useNonTemporal(w, false) ? nt + ", " + rule : "temporal, " + rule;
            }
            case "segment" -> "MemorySegment.copy";
            default -> "System.arraycopy byte[]";
        };
    }

    // ---- memory guard -----------------------------------------------------------------------------

    /** Refuses a run that cannot fit: native buffers against MemAvailable, heap arrays against -Xmx. */
    private void checkMemory(long max, boolean arrays) {
        long nativeBytes = max > Long.MAX_VALUE / 2 / threads ? Long.MAX_VALUE : 2 * max * threads;
        OptionalLong available = memAvailable();
        if (available.isPresent() && nativeBytes > available.getAsLong()) {
            throw new IllegalArgumentException("-m " + SizeRange.format(max) + " with " + threads + " thread(s) needs "
                    + SizeRange.format(nativeBytes) + " of native memory (2 x bytes x threads); MemAvailable is "
                    + SizeRange.format(available.getAsLong()));
        }
        long heap = Runtime.getRuntime().maxMemory();
        if (arrays && nativeBytes > heap * 9 / 10) {
            throw new IllegalArgumentException("arraycopy at -m " + SizeRange.format(max) + " with " + threads
                    + " thread(s) needs " + SizeRange.format(nativeBytes) + " of Java heap, the limit is "
                    + SizeRange.format(heap) + " (raise it with COLL4J_JAVA_OPTS=-Xmx..., or leave arraycopy out)");
        }
    }

    private static OptionalLong memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    String[] f = line.trim().split("\\s+");
                    return OptionalLong.of(Long.parseLong(f[1]) * 1024);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no check
        }
        return OptionalLong.empty();
    }

    // ---- output -----------------------------------------------------------------------------------

    private void begin(PrintWriter out, OutputFormat fmt, Topology topo, Team team, Copy engine, String capacitySource) {
        switch (fmt) {
            case CSV -> out.println(CSV_HEADER);
            case JSON -> {
                Map<String, Object> h = new LinkedHashMap<>();
                h.put("type", "header");
                h.put("command", "copy");
                h.put("machine", CollectiveCommands.machine());
                h.put("topology", topo.source());
                h.put("threads", threads);
                h.put("placement", team.placement().describe());
                h.put("ntCopy", Copy.nativeStatus());
                h.put("ntMinBytes", Copy.NT_MIN_BYTES);
                h.put("cacheCapacity", engine.cacheCapacity());
                h.put("cacheCapacitySource", capacitySource);
                h.put("version", Version.coll4j());
                out.println(Json.write(h));
            }
            case TABLE -> {
                out.printf(Locale.ROOT, "# collbench copy: %d thread(s), %s%n", threads, team.placement().describe());
                out.println("# nt copy: " + Copy.nativeStatus() + "; NT floor " + SizeRange.format(Copy.NT_MIN_BYTES));
                out.println("# adaptive: stream iff W = 2 x bytes x threads > C = " + SizeRange.format(engine.cacheCapacity())
                        + " (" + capacitySource + ")");
                out.println("# time of an iteration = its slowest thread; GB/s = bytes x threads / avg (10^9 B/s)");
                out.printf(Locale.ROOT, "#%11s %7s %12s %10s %11s %11s %11s %8s  %s%n", "impl", "threads", "bytes",
                        "iterations", "avg(us)", "min(us)", "max(us)", "GB/s", "path");
            }
        }
        out.flush();
    }

    private void row(PrintWriter out, OutputFormat fmt, Point p, String path) {
        switch (fmt) {
            case CSV -> out.printf(Locale.ROOT, "%s,%d,%d,%d,%.3f,%.3f,%.3f,%.3f%n", p.impl(), p.threads(), p.bytes(),
                    p.nanos().length, p.avgMicros(), p.minMicros(), p.maxMicros(), p.gbps());
            case JSON -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "row");
                m.put("impl", p.impl());
                m.put("threads", p.threads());
                m.put("bytes", p.bytes());
                m.put("iterations", p.nanos().length);
                m.put("avg_us", p.avgMicros());
                m.put("min_us", p.minMicros());
                m.put("max_us", p.maxMicros());
                m.put("GBps", p.gbps());
                m.put("path", path);
                out.println(Json.write(m));
            }
            case TABLE -> out.printf(Locale.ROOT, " %11s %7d %12d %10d %11.2f %11.2f %11.2f %8.2f  %s%n", p.impl(),
                    p.threads(), p.bytes(), p.nanos().length, p.avgMicros(), p.minMicros(), p.maxMicros(), p.gbps(), path);
        }
        out.flush();
    }
}
