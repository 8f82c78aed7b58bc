package io.coll4j.cli;

import io.coll4j.Team;
import io.coll4j.bindings.copy.Copy;
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
import java.util.concurrent.Callable;

/**
 * {@code collbench copy}: copy bandwidth of the copy engine's paths, one or more threads copying at once
 * (each its own source and destination, first touched by itself, bound to its PU; iterations start
 * together after a coll4j barrier; an iteration lasts as long as its slowest thread).
 */
@Command(name = "copy", sortOptions = false,
        description = {"Copy bandwidth: non-temporal vs temporal copies (the YHCCL NT rule, DESIGN §6).",
                "Implementations: temporal (native AVX loop, ordinary stores), nontemporal (native AVX-512/AVX2 streaming stores + sfence),",
                "adaptive (NT iff the working set 2 x bytes x threads exceeds the cache capacity C), segment",
                "(MemorySegment.copy: glibc memmove, which itself streams above ~3/4 LLC), arraycopy (System.arraycopy on byte[]).",
                "GBps = bytes copied per thread x threads / mean iteration time (10^9 bytes/s)."})
final class CopyCommand implements Callable<Integer> {
    static final String CSV_HEADER = "impl,threads,bytes,iterations,avg_us,min_us,max_us,GBps";
    static final List<String> IMPLS = List.of("temporal", "nontemporal", "adaptive", "segment", "arraycopy");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-m", "--sizes"}, paramLabel = "MIN:MAX", defaultValue = "4K:256M", description = "bytes per thread, doubling (default ${DEFAULT-VALUE})")
    String sizes;

    @Option(names = {"-t", "--threads"}, paramLabel = "N", defaultValue = "1", description = "threads copying at once (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--impl", paramLabel = "NAME", split = ",", description = "implementations (default: all): temporal,nontemporal,adaptive,segment,arraycopy")
    List<String> impls = new ArrayList<>();

    @Option(names = {"-i", "--iterations"}, paramLabel = "N", description = "timed iterations (default: scaled by size, 5..10000)")
    Long iterations;

    @Option(names = {"-x", "--warmup"}, paramLabel = "N", description = "warm-up iterations (default: 2 + iterations/10)")
    Long warmup;

    @Option(names = "--format", paramLabel = "FMT", defaultValue = "table", description = "table|csv|json")
    String format;

    @Option(names = "--output", paramLabel = "FILE", description = "write to FILE instead of standard output")
    Path output;

    @Option(names = "--bind", paramLabel = "HOW", defaultValue = "compact", description = "compact|scatter|none|PU list")
    String bind;

    @Option(names = "--topology", paramLabel = "SRC", defaultValue = "auto", description = "auto|hwloc|sysfs|synthetic:SPEC|xml:FILE")
    String topology;

    static long defaultIterations(long bytes) {
        return Math.max(5, Math.min(10_000, (1L << 31) / Math.max(bytes, 1)));
    }

    @Override
    public Integer call() throws IOException {
        SizeRange range = SizeRange.parse(sizes);
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be >= 1, got " + threads);
        }
        List<String> chosen = impls.isEmpty() ? IMPLS : impls;
        for (String i : chosen) {
            if (!IMPLS.contains(i)) {
                throw new IllegalArgumentException("unknown copy impl '" + i + "' (expected " + String.join(", ", IMPLS) + ")");
            }
        }
        if (chosen.contains("arraycopy") && range.max() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("arraycopy is limited to 2 GiB arrays");
        }
        OutputFormat fmt = CollectiveCommands.parseFormat(format);
        Topology topo = Topology.load(topology);
        Placement placement = Placement.parse(bind);
        PrintWriter out = output == null ? spec.commandLine().getOut() : new PrintWriter(Files.newBufferedWriter(output), true);
        try (Team team = Team.builder().ranks(threads).topology(topo).placement(placement).timeout(Duration.ofMinutes(10)).build()) {
            Copy engine = new Copy(Copy.cacheCapacity(topo.llcBytes(), topo.l2Bytes(), topo.llcInclusive(), threads));
            begin(out, fmt, topo, engine);
            MemorySegment[][] nat = new MemorySegment[threads][];
            byte[][][] arr = new byte[threads][][];
            for (long bytes : range.sizes()) {
                long iters = iterations != null ? iterations : defaultIterations(bytes);
                long warm = warmup != null ? warmup : 2 + iters / 10;
                for (String impl : chosen) {
                    long[][] times = new long[threads][];
                    team.run(rank -> {
                        int r = rank.id();
                        boolean array = impl.equals("arraycopy");
                        if (!array && (nat[r] == null || nat[r][0].byteSize() < bytes)) {
                            nat[r] = new MemorySegment[]{rank.allocate(range.max()), rank.allocate(range.max())};
                        }
                        if (array && arr[r] == null) {
                            arr[r] = new byte[][]{new byte[(int) range.max()], new byte[(int) range.max()]};
                            java.util.Arrays.fill(arr[r][0], (byte) 1);
                        }
                        MemorySegment src = array ? null : nat[r][0];
                        MemorySegment dst = array ? null : nat[r][1];
                        long[] t = new long[(int) iters];
                        for (long i = -warm; i < iters; i++) {
                            rank.barrier();
                            long t0 = System.nanoTime();
                            switch (impl) {
                                case "temporal" -> Copy.nativeTemporal(dst, 0, src, 0, bytes);
                                case "nontemporal" -> Copy.nonTemporalAlways(dst, 0, src, 0, bytes);
                                case "adaptive" -> engine.adaptive(dst, 0, src, 0, bytes, 2 * bytes * threads);
                                case "segment" -> MemorySegment.copy(src, 0, dst, 0, bytes);
                                default -> System.arraycopy(arr[r][0], 0, arr[r][1], 0, (int) bytes);
                            }
                            long t1 = System.nanoTime();
                            if (i >= 0) {
                                t[(int) i] = t1 - t0;
                            }
                        }
                        times[r] = t;
                    });
                    row(out, fmt, impl, bytes, iters, times, engine);
                }
            }
            if (fmt == OutputFormat.TABLE) {
                out.println("# adaptive: nt iff 2 x bytes x threads > C = " + SizeRange.format(engine.cacheCapacity())
                        + " (" + (topo.llcInclusive() ? "inclusive LLC" : "LLC + threads x L2, non-inclusive LLC") + ")");
            }
            out.flush();
        } finally {
            if (output != null) {
                out.close();
            }
        }
        return 0;
    }

    private void begin(PrintWriter out, OutputFormat fmt, Topology topo, Copy engine) {
        switch (fmt) {
            case CSV -> out.println(CSV_HEADER);
            case JSON -> {
                Map<String, Object> h = new LinkedHashMap<>();
                h.put("type", "header");
                h.put("machine", CollectiveCommands.machine());
                h.put("topology", topo.source());
                h.put("ntCopy", Copy.nativeStatus());
                h.put("cacheCapacity", engine.cacheCapacity());
                h.put("threads", threads);
                h.put("version", Version.coll4j());
                out.println(Json.write(h));
            }
            case TABLE -> {
                out.println("# collbench copy: " + threads + " thread(s), nt copy " + Copy.nativeStatus());
                out.printf(Locale.ROOT, "#%-12s %12s %10s %11s %11s %11s %9s%n", "impl", "bytes", "iterations", "avg(us)",
                        "min(us)", "max(us)", "GB/s");
            }
        }
        out.flush();
    }

    private void row(PrintWriter out, OutputFormat fmt, String impl, long bytes, long iters, long[][] times, Copy engine) {
        double sum = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int i = 0; i < iters; i++) {
            long m = 0;
            for (long[] t : times) {
                m = Math.max(m, t[i]);
            }
            double us = m / 1e3;
            sum += us;
            min = Math.min(min, us);
            max = Math.max(max, us);
        }
        double avg = sum / iters;
        double gbps = avg == 0 ? 0 : (double) bytes * threads / (avg * 1e3);
        String shown = impl.equals("adaptive") ? impl + (engine.useNonTemporal(2 * bytes * threads, false) ? "(nt)" : "(t)") : impl;
        switch (fmt) {
            case CSV -> out.printf(Locale.ROOT, "%s,%d,%d,%d,%.3f,%.3f,%.3f,%.3f%n", impl, threads, bytes, iters, avg, min, max, gbps);
            case JSON -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", "row");
                m.put("impl", impl);
                m.put("threads", threads);
                m.put("bytes", bytes);
                m.put("iterations", iters);
                m.put("avg_us", avg);
                m.put("min_us", min);
                m.put("max_us", max);
                m.put("GBps", gbps);
                if (impl.equals("adaptive")) {
                    m.put("nonTemporal", engine.useNonTemporal(2 * bytes * threads, false));
                }
                out.println(Json.write(m));
            }
            case TABLE -> out.printf(Locale.ROOT, " %-12s %12d %10d %11.2f %11.2f %11.2f %9.2f%n", shown, bytes, iters, avg, min, max, gbps);
        }
        out.flush();
    }
}
