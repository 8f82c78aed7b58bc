package io.coll4j.cli;

import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where data lives and what reading it costs, measured by one core reading a buffer over and over as
 * {@code collbench --consume} reads its result ({@link CollectiveBenchmark#readAll}): the rate from its own
 * L2, from the shared LLC and from DRAM, and the effective cache capacity C — the largest working set
 * that still reads at LLC rather than DRAM speed. On a virtual machine the LLC the topology reports is shared
 * with other tenants' cores, and working sets well inside it already ran at DRAM speed (the numbers:
 * docs/measurements.md), so the model takes C from this measurement rather than from the topology [YHCCL §4.2 uses the
 * same threshold to choose non-temporal stores].
 *
 * @param l2   bytes/s reading an L2-resident buffer (a quarter of the L2)
 * @param llc  bytes/s reading a buffer of twice the L2 (in the LLC, not in L2)
 * @param dram bytes/s reading a buffer of twice the topology's C
 * @param cacheCapacity effective C, bytes: the largest working set tried (doubling from 2·L2 up to the
 *                      topology's C) still read at LLC speed ({@link #capacity}), median of the repetitions
 * @param perRead seconds one read of a result costs whatever its size (the call, the bounds checks): a one-line
 *                result read as {@code --consume} reads it, best window
 */
record CacheResidency(double l2, double llc, double dram, long cacheCapacity, double perRead) {

    /**
     * Time for one core to read {@code bytes} of its result after a call that touched {@code touchedPerCore}
     * bytes on each core and {@code ws} in all: from its L2 while that fits it, from the LLC while {@code ws}
     * fits C, else from DRAM (beyond C the collectives store non-temporally).
     */
    double readTime(long bytes, long touchedPerCore, long ws, long l2Bytes) {
        if (bytes <= 0) {
            return 0;
        }
        double rate = touchedPerCore <= l2Bytes ? l2 : ws <= cacheCapacity ? llc : dram;
        // the fixed cost too: 5-15 ns, which at 8-512 B is most of the read (the 8-512 B allreduce rows measured
        // 10.6% over their prediction with --consume, 8.1% without)
        return perRead + bytes / rate;
    }

    /**
     * Measures the rates (best window of each) and C on this core, {@code topologyCapacity} being the
     * topology's C and {@code dramBytes} a size well beyond it; prints one row each in {@code ModelProbe}'s
     * table format and records the spread of {@code reps} repetitions in {@code spreads}.
     */
    static CacheResidency measure(PrintWriter out, Map<String, Object> spreads, long l2Bytes, long topologyCapacity,
                                  long dramBytes, int reps, long windowNs, long warmNs) {
        double[] l2 = new double[reps];
        double[] llc = new double[reps];
        double[] dram = new double[reps];
        long[] cap = new long[reps];
        List<List<long[]>> sweeps = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sink = arena.allocate(CollectiveBenchmark.SINK_BYTES, 64);
            MemorySegment big = arena.allocate(Math.max(dramBytes, topologyCapacity), 4096);
            big.fill((byte) 3);
            long small = Math.max(16 << 10, l2Bytes / 4);
            readRate(big, small, sink, warmNs);      // warm-up: the JIT compiles the read loop (C2, vectorised)
            for (int r = 0; r < reps; r++) {
                l2[r] = readRate(big, small, sink, windowNs);
                List<long[]> tried = new ArrayList<>();   // {ws, rate}
                for (long ws = 2 * l2Bytes; ws <= topologyCapacity; ws *= 2) {
                    tried.add(new long[]{ws, (long) readRate(big, ws, sink, windowNs)});
                }
                llc[r] = tried.isEmpty() ? l2[r] : tried.getFirst()[1];
                dram[r] = readRate(big, dramBytes, sink, windowNs);
                cap[r] = capacity(tried, llc[r], dram[r], l2Bytes);
                sweeps.add(tried);
            }
        }
        double[] fixed = new double[reps];
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sink = arena.allocate(CollectiveBenchmark.SINK_BYTES, 64);
            MemorySegment line = arena.allocate(64, 64);
            readFixed(line, sink, windowNs);          // warm-up: compiled as --consume's loop has it
            for (int r = 0; r < reps; r++) {
                fixed[r] = readFixed(line, sink, windowNs);
            }
        }
        double bestFixed = Arrays.stream(fixed).min().orElseThrow();
        out.printf(Locale.ROOT, "%-28s %12.1f %12.1f %12.1f %12.1f  ns (one read of a 64-byte result)%n", "resultReadFixed",
                bestFixed * 1e9, bestFixed * 1e9, ModelProbe.Spread.of(fixed).median() * 1e9, ModelProbe.Spread.of(fixed).max() * 1e9);
        spreads.put("resultReadFixed", List.of(bestFixed, ModelProbe.Spread.of(fixed).median(), ModelProbe.Spread.of(fixed).max()));
        double bestL2 = row(out, spreads, "resultReadBandwidth", l2, "GB/s (own L2)");
        double bestLlc = row(out, spreads, "resultReadBandwidth.llc", llc, "GB/s (LLC)");
        double bestDram = row(out, spreads, "resultReadBandwidth.dram", dram, "GB/s (DRAM)");
        // the sweep C is read from, one row per working set: where the LLC share other tenants leave ends
        for (int k = 0; !sweeps.isEmpty() && k < sweeps.getFirst().size(); k++) {
            double[] rates = new double[reps];
            for (int r = 0; r < reps; r++) {
                rates[r] = sweeps.get(r).get(k)[1];
            }
            row(out, spreads, "resultReadBandwidth." + (sweeps.getFirst().get(k)[0] >> 20) + "MiB", rates, "GB/s (working set read for C)");
        }
        // the median repetition, not the best: the share of the LLC other tenants leave changes by the second, and
        // the collectives' working sets (several buffers, two cores) meet the smaller share more often than a
        // read of one buffer (best of three: 32 MiB, where every allreduce of 8 MiB, W = 32 MiB, ran at DRAM speed)
        long[] sorted = cap.clone();
        Arrays.sort(sorted);
        long c = sorted[sorted.length / 2];
        out.printf(Locale.ROOT, "%-28s %12d %12d %12d %12d  bytes (largest working set read at LLC speed; topology: %d)%n",
                "cacheCapacity", c, sorted[0], c, sorted[sorted.length - 1], topologyCapacity);
        out.flush();
        spreads.put("cacheCapacity", Arrays.stream(cap).sorted().boxed().toList());
        return new CacheResidency(bestL2, bestLlc, bestDram, c, bestFixed);
    }

    /**
     * The largest working set of {@code tried} (ascending) that still reads mostly from the LLC — its time per
     * byte at most halfway from the LLC's to DRAM's, i.e. at least half its lines hit — with every smaller one
     * too; {@code 2·l2Bytes} when even the first did not. The model prices a working set up to C entirely in cache
     * and beyond it entirely from DRAM; that cliff is least wrong where half the lines hit. (The bar was three
     * quarters of the way from DRAM's rate to the LLC's, about 92% hits: a working set that mostly hit failed
     * it, C came out too small, and collectives measured at cache speed were priced from DRAM, far over; the
     * numbers: docs/measurements.md.)
     */
    static long capacity(List<long[]> tried, double llc, double dram, long l2Bytes) {
        long c = 2 * l2Bytes;
        double mid = 2 / (1 / llc + 1 / dram);
        for (long[] t : tried) {
            if (t[1] < mid) {
                break;
            }
            c = t[0];
        }
        return c;
    }

    /** This residency with another L2 read rate (re-measured for one row of {@code explain --measure}). */
    CacheResidency withL2(double rate) {
        return new CacheResidency(rate, llc, dram, cacheCapacity, perRead);
    }

    /**
     * The L2 read rate alone, best 2 ms window of {@code windowNs} (the read loop already compiled): it flips
     * with the core's state as the line latency does (88 GB/s in one calibration, 45 in the next minutes).
     */
    static double l2Rate(long l2Bytes, long windowNs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sink = arena.allocate(CollectiveBenchmark.SINK_BYTES, 64);
            long small = Math.max(16 << 10, l2Bytes / 4);
            MemorySegment buf = arena.allocate(small, 4096);
            buf.fill((byte) 3);
            return readRate(buf, small, sink, windowNs);
        }
    }

    /**
     * Seconds per read of the small {@code buf} (one line), best batch of {@value #FIXED_BATCH} reads within
     * {@code totalNs}: the clock is read once per batch, as {@code --consume}'s loop reads no clock per call (read
     * once per read, the clock's cost was most of what this measured).
     */
    private static double readFixed(MemorySegment buf, MemorySegment sink, long totalNs) {
        double best = Double.MAX_VALUE;
        long sum = 0;
        long t0 = System.nanoTime();
        do {
            long s = System.nanoTime();
            for (int i = 0; i < FIXED_BATCH; i++) {
                sum += CollectiveBenchmark.readAll(buf, sink);
            }
            best = Math.min(best, (System.nanoTime() - s) * 1e-9 / FIXED_BATCH);
        } while (System.nanoTime() - t0 < totalNs);
        sink.set(java.lang.foreign.ValueLayout.JAVA_LONG, 8, sum);   // the reads' results kept
        return best;
    }

    /** Reads per clock reading in {@link #readFixed}. */
    private static final int FIXED_BATCH = 1000;

    /** Best rate of reading the first {@code bytes} of {@code buf} in windows of at least 2 ms within {@code totalNs}. */
    private static double readRate(MemorySegment buf, long bytes, MemorySegment sink, long totalNs) {
        MemorySegment part = buf.asSlice(0, bytes);
        CollectiveBenchmark.readAll(part, sink);                        // into the cache level it fits
        double best = 0;
        long t0 = System.nanoTime();
        do {
            long n = 0;
            long s = System.nanoTime();
            long t;
            do {
                CollectiveBenchmark.readAll(part, sink);
                n += bytes;
                t = System.nanoTime();
            } while (t - s < 2_000_000L);
            best = Math.max(best, n / ((t - s) * 1e-9));
        } while (System.nanoTime() - t0 < totalNs);
        return best;
    }

    private static double row(PrintWriter out, Map<String, Object> spreads, String name, double[] v, String unit) {
        ModelProbe.Spread s = ModelProbe.Spread.of(v);
        out.printf(Locale.ROOT, "%-28s %12.2f %12.2f %12.2f %12.2f  %s%n", name, s.max() / 1e9, s.min() / 1e9, s.median() / 1e9,
                s.max() / 1e9, unit);
        spreads.put(name, List.of(s.min(), s.median(), s.max()));
        return s.max();
    }
}
