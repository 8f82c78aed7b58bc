package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.internal.TeamInternals;
import io.coll4j.Request;
import io.coll4j.Team;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code collbench <collective> --overlap US|auto}: how much of a non-blocking collective hides behind
 * computation. Per size: A, the blocking collective's time (the model's pick, measured as the sweep
 * measures it); then, for every iteration, every rank posts the non-blocking form, the last rank runs a
 * fixed compute kernel (a dependent multiply-add chain, no memory traffic) for C of wall-clock time (US
 * microseconds, or A with {@code auto}) and then awaits, while the others
 * await at once — and so do the work the computing rank is not doing. T is the computing rank's time
 * from post to the return of its await. Blocking after the computation would cost C + A; T / (C + A)
 * below 1 is the overlap (the ideal on two cores, where the waiting rank does all the work alone at
 * half the team's speed, is about 0.75 at C = A).
 *
 * <p>C is reported as the kernel's measured duration in the run (mean), not the requested one, and A,
 * C and T come from the same team and the same run.
 */
final class OverlapBenchmark {
    private OverlapBenchmark() {
    }

    /** Where the kernel's result goes, so the JIT cannot drop it. */
    private static volatile double sink;

    /** The compute kernel: a dependent chain of multiply-adds (no vectorisation, no memory traffic), {@code iterations} long. */
    static double kernel(long iterations) {
        // the seed is a volatile read and every step depends on i: nothing for the JIT to fold away
        double x = seed;
        for (long i = 0; i < iterations; i++) {
            x = x * 0.999_999_9 + (double) (i & 7) * 1.0e-9;
        }
        return x;
    }

    private static volatile double seed = 1.0;

    /** Kernel iterations between clock reads in {@link #computeFor}: about a microsecond. */
    static final long CHUNK = 512;

    /**
     * Runs the kernel, {@link #CHUNK} iterations at a time, until {@code nanos} of wall-clock time have
     * passed: the rank is busy for C whatever share of a core the machine gives it (a fixed iteration
     * count ran 6x longer than calibrated on a machine loaded 7x).
     */
    static double computeFor(long nanos) {
        long end = System.nanoTime() + nanos;
        double x = 0;
        do {
            x += kernel(CHUNK);
        } while (System.nanoTime() - end < 0);
        return x;
    }

    static Integer run(CollectiveCommands.Base cmd, Collective c, RunOptions.Setup setup, OutputFormat fmt, List<String> algs)
            throws java.io.IOException {
        int p = setup.threads();
        if (p < 2) {
            throw new IllegalArgumentException("--overlap needs at least 2 ranks (-t 2)");
        }
        double requestedUs = -1;
        if (!cmd.overlap.equalsIgnoreCase("auto")) {
            try {
                requestedUs = Double.parseDouble(cmd.overlap);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--overlap takes microseconds or 'auto', got '" + cmd.overlap + "'");
            }
            if (!(requestedUs >= 0)) {
                throw new IllegalArgumentException("--overlap must be >= 0 us, got " + cmd.overlap);
            }
        }
        PrintWriter out = cmd.output.open(cmd.spec.commandLine().getOut());
        boolean complete = false;
        try (Team team = setup.team(cmd.run.timeout()).build()) {
            long maxBytes = 0;
            for (long s : setup.sizes(c)) {
                CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                maxBytes = Math.max(maxBytes, Math.max(sh.sendBytes(), sh.recvBytes()));
            }
            CollectiveBenchmark bench = cmd.run.configure(new CollectiveBenchmark(c, setup.dtype(), setup.op(), setup.root(),
                    false, List.of(), maxBytes, p, 0));
            Map<String, Object> header = cmd.header(c, team, setup);
            begin(fmt, out, header, c, p);
            for (long s : setup.sizes(c)) {
                CollectiveBenchmark.Shape sh = CollectiveBenchmark.Shape.of(c, s, setup.dtype(), p);
                String pick = TeamInternals.selector(team).choose(c, p, sh.callCount(), setup.dtype(), c.reduces() ? setup.op() : null,
                        sh.bytes()).name();
                long iters = cmd.run.iterationsFor(sh.bytes());
                long warm = cmd.run.warmupFor(iters);
                BenchRow blocking = bench.measure(team, s, pick, true, iters, warm);
                double a = blocking.avgUs();
                double cUs = requestedUs >= 0 ? requestedUs : a;
                long n = Math.max(5, Math.min(iters, 2000));
                long[] result = measure(team, bench, sh, cUs, n, Math.min(warm, 2 * n));
                double t = result[0] / (double) n / 1e3;
                double compute = result[1] / (double) n / 1e3;
                BenchRow row = new BenchRow(c, "overlap", false, p, sh.bytes(), sh.count(),
                        c == Collective.BARRIER ? "-" : setup.dtype().cliName(), c.reduces() ? setup.op().cliName() : "-",
                        c.rooted() ? setup.root() : -1, n, t, result[2] / 1e3, result[3] / 1e3, new double[0], -1);
                row(fmt, out, row, compute, a, t, pick);
            }
            out.flush();
            complete = true;
        } finally {
            cmd.output.close(out, complete);
        }
        return 0;
    }

    /** Returns {sum of T, sum of C, min T, max T} in ns over {@code n} timed iterations of the computing rank. */
    private static long[] measure(Team team, CollectiveBenchmark bench, CollectiveBenchmark.Shape sh, double cUs, long n,
                                  long warm) {
        long[] out = new long[4];
        MemorySegment[] send = new MemorySegment[team.size()];
        MemorySegment[] recv = new MemorySegment[team.size()];
        team.run(rank -> {
            int r = rank.id();
            boolean computes = r == rank.size() - 1;
            send[r] = rank.allocate(Math.max(sh.sendBytes(), 8));
            recv[r] = rank.allocate(Math.max(sh.recvBytes(), 8));
            BenchData.fill(send[r].asSlice(0, sh.sendBytes()), bench.dtype(), bench.op(), r, sh.sendBytes() / bench.dtype().size());
            long computeNanos = Math.round(cUs * 1e3);
            long sumT = 0;
            long sumC = 0;
            long minT = Long.MAX_VALUE;
            long maxT = 0;
            for (long i = -warm; i < n; i++) {
                rank.barrier();
                long t0 = System.nanoTime();
                Request q = bench.issue(rank, send[r], recv[r], sh.callCount());
                if (computes) {
                    long c0 = System.nanoTime();
                    sink = computeFor(computeNanos);
                    long c1 = System.nanoTime();
                    q.await();
                    long t = System.nanoTime() - t0;
                    if (i >= 0) {
                        sumT += t;
                        sumC += c1 - c0;
                        minT = Math.min(minT, t);
                        maxT = Math.max(maxT, t);
                    }
                } else {
                    q.await();
                }
            }
            if (computes) {
                out[0] = sumT;
                out[1] = sumC;
                out[2] = minT;
                out[3] = maxT;
            }
        });
        return out;
    }

    private static void begin(OutputFormat fmt, PrintWriter out, Map<String, Object> header, Collective c, int p) {
        switch (fmt) {
            case CSV -> out.println(RowWriter.CSV_HEADER + RowWriter.CSV_EXTRA + ",compute_us,blocking_us,overlap_us");
            case JSON -> RowWriter.of(fmt, out, List.of()).begin(header);
            case TABLE -> {
                out.printf(Locale.ROOT, "# collbench %s --overlap: %d ranks, %s; rank %d computes for C, the others wait at once%n",
                        c.cliName(), p, header.get("placement"), p - 1);
                out.printf(Locale.ROOT, "# topology %s, %s, coll4j %s%n", header.get("topology"), header.get("jdk"),
                        header.get("version"));
                out.printf(Locale.ROOT, "# A = blocking (the auto pick), C = compute (measured), T = post -> await return on the computing rank (mean)%n");
                out.printf(Locale.ROOT, "#%12s %12s %6s %6s  %-14s %10s %10s %10s %10s %10s %8s%n", "size", "count", "type", "redop",
                        "blocking", "C", "A", "T", "T min", "C+A", "T/(C+A)");
                out.printf(Locale.ROOT, "#%12s %12s %6s %6s  %-14s %10s %10s %10s %10s %10s %8s%n", "(B)", "(elements)", "", "",
                        "algorithm", "(us)", "(us)", "(us)", "(us)", "(us)", "");
            }
        }
        out.flush();
    }

    private static void row(OutputFormat fmt, PrintWriter out, BenchRow r, double compute, double blocking, double overlap,
                            String pick) {
        switch (fmt) {
            case CSV -> {
                StringWriter sw = new StringWriter();
                RowWriter.of(fmt, new PrintWriter(sw), List.of()).row(r);
                out.println(sw.toString().strip() + "," + RowWriter.fmt(compute) + "," + RowWriter.fmt(blocking) + ","
                        + RowWriter.fmt(overlap));
            }
            case JSON -> {
                StringWriter sw = new StringWriter();
                RowWriter.of(fmt, new PrintWriter(sw), List.of()).row(r);
                String line = sw.toString().strip();
                out.println(line.substring(0, line.length() - 1) + ",\"compute_us\":" + compute + ",\"blocking_us\":" + blocking
                        + ",\"overlap_us\":" + overlap + ",\"blocking_algorithm\":\"" + pick + "\"}");
            }
            case TABLE -> out.printf(Locale.ROOT, " %12d %12d %6s %6s  %-14s %10.2f %10.2f %10.2f %10.2f %10.2f %8.3f%n", r.bytes(),
                    r.count(), r.dtype(), r.op(), pick, compute, blocking, overlap, r.minUs(), compute + blocking,
                    overlap / (compute + blocking));
        }
        out.flush();
    }
}
