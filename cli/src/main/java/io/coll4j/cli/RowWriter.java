package io.coll4j.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes benchmark rows as they are measured: a table like nccl-tests, CSV (the header of the CLI contract, docs/design.md) or JSON Lines. */
abstract class RowWriter {
    /** The CSV header of the CLI contract (docs/design.md), exactly. */
    static final String CSV_HEADER = "collective,algorithm,threads,bytes,count,dtype,op,iterations,avg_us,min_us,max_us,"
            + "algbw_GBps,busbw_GBps,valid";
    /**
     * Columns after the contract's: the row's label ({@code auto→push} for the row auto ran), the spread of its timed
     * batches ((max − min) / mean, %), whether its warm-up settled, and the in-place measurement (empty when none).
     */
    static final String CSV_EXTRA = ",label,spread_pct,settled,ip_avg_us,ip_algbw_GBps,ip_busbw_GBps,ip_valid";

    final PrintWriter out;
    final List<Integer> percentiles;

    RowWriter(PrintWriter out, List<Integer> percentiles) {
        this.out = out;
        this.percentiles = percentiles;
    }

    static RowWriter of(OutputFormat f, PrintWriter out, List<Integer> percentiles) {
        return switch (f) {
            case TABLE -> new Table(out, percentiles);
            case CSV -> new Csv(out, percentiles);
            case JSON -> new JsonLines(out, percentiles);
        };
    }

    /** Called once before the first row. {@code header} describes the run (machine, topology, JDK, version, command line). */
    abstract void begin(Map<String, Object> header);

    abstract void row(BenchRow r);

    void end() {
        out.flush();
    }

    /**
     * The closing summary, as nccl-tests closes its table: the rows with a wrong result (out of place and in place), and
     * the average bus bandwidth over every measurement of every row (both columns, as nccl-tests averages), then per
     * label. The table prints it as comment lines; CSV on {@code err} (the file stays CSV); JSON as a summary object.
     */
    void summary(List<BenchRow> rows, PrintWriter err) {
        for (String line : closingLines(rows)) {
            err.println(line);
        }
        err.flush();
    }

    /** Lines the run adds to the summary (what the team did while it ran: a contention episode), after the row figures. */
    private final List<String> notes = new java.util.ArrayList<>();

    void addNote(String line) {
        notes.add(line);
    }

    List<String> closingLines(List<BenchRow> rows) {
        List<String> lines = new java.util.ArrayList<>(summaryLines(rows));
        lines.addAll(notes);
        return lines;
    }

    static List<String> summaryLines(List<BenchRow> rows) {
        List<String> lines = new java.util.ArrayList<>();
        long checked = rows.stream().filter(r -> r.allWrong() >= 0).count();
        long wrongRows = rows.stream().filter(r -> r.allWrong() > 0).count();
        long wrongElems = rows.stream().mapToLong(r -> Math.max(0, r.allWrong())).sum();
        lines.add(checked == 0 ? "# #wrong: not checked (-c 0)"
                : String.format(Locale.ROOT, "# #wrong: %d elements wrong, in %d of the %d rows checked (out of place and in "
                + "place): %s", wrongElems, wrongRows, checked, wrongElems == 0 ? "OK" : "FAILED"));
        Map<String, double[]> per = new LinkedHashMap<>();
        double sum = 0;
        int n = 0;
        for (BenchRow r : rows) {
            if (r.bytes() == 0 || r.collective() == io.coll4j.Collective.BARRIER) {
                continue;
            }
            double[] acc = per.computeIfAbsent(r.isAuto() ? "auto" : r.label(), k -> new double[2]);
            for (double bw : r.hasInPlace() ? new double[]{r.busbw(), r.ipBusbw()} : new double[]{r.busbw()}) {
                sum += bw;
                n++;
                acc[0] += bw;
                acc[1]++;
            }
        }
        if (n > 0) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "# Avg bus bandwidth: %.3f GB/s", sum / n));
            if (per.size() > 1) {
                sb.append(" (");
                String sep = "";
                for (Map.Entry<String, double[]> e : per.entrySet()) {
                    sb.append(sep).append(e.getKey()).append(' ').append(String.format(Locale.ROOT, "%.3f", e.getValue()[0] / e.getValue()[1]));
                    sep = ", ";
                }
                sb.append(')');
            }
            lines.add(sb.toString());
        }
        return lines;
    }

    static String fmtOrEmpty(double v) {
        return Double.isNaN(v) ? "" : fmt(v);
    }

    static String validText(long wrong) {
        return wrong < 0 ? "-" : wrong == 0 ? "true" : "false";
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    static final class Csv extends RowWriter {
        Csv(PrintWriter out, List<Integer> percentiles) {
            super(out, percentiles);
        }

        @Override
        void begin(Map<String, Object> header) {
            StringBuilder h = new StringBuilder(CSV_HEADER);
            if (!percentiles.isEmpty()) {
                // percentile columns go right after max_us, as the --percentiles help says
                int at = h.indexOf(",algbw_GBps");
                StringBuilder cols = new StringBuilder();
                for (int p : percentiles) {
                    cols.append(",p").append(p).append("_us");
                }
                h.insert(at, cols);
            }
            out.println(h.append(CSV_EXTRA));
            out.flush();
        }

        @Override
        void row(BenchRow r) {
            StringBuilder sb = new StringBuilder();
            sb.append(r.collective().cliName()).append(',').append(r.algorithm()).append(',').append(r.threads()).append(',')
                    .append(r.bytes()).append(',').append(r.count()).append(',').append(r.dtype()).append(',')
                    .append(r.op()).append(',').append(r.iterations()).append(',').append(fmt(r.avgUs())).append(',')
                    .append(fmt(r.minUs())).append(',').append(fmt(r.maxUs()));
            for (double p : r.percentileUs()) {
                sb.append(',').append(fmt(p));
            }
            sb.append(',').append(fmt(r.algbw())).append(',').append(fmt(r.busbw())).append(',')
                    .append(r.validated() ? (r.wrong() == 0 ? "true" : "false") : "-");
            sb.append(',').append(r.label()).append(',').append(fmtOrEmpty(r.spreadPct())).append(',').append(r.settled())
                    .append(',').append(fmtOrEmpty(r.ipAvgUs())).append(',').append(fmtOrEmpty(r.ipAlgbw())).append(',')
                    .append(fmtOrEmpty(r.ipBusbw())).append(',').append(r.hasInPlace() ? validText(r.ipWrong()) : "");
            out.println(sb);
            out.flush();
        }
    }

    static final class Table extends RowWriter {
        Table(PrintWriter out, List<Integer> percentiles) {
            super(out, percentiles);
        }

        @Override
        void begin(Map<String, Object> header) {
            out.printf(Locale.ROOT, "# collbench %s: %s ranks, %s%n", header.get("collective"), header.get("threads"),
                    header.get("placement"));
            out.printf(Locale.ROOT, "# topology %s, %s, coll4j %s%n", header.get("topology"), header.get("jdk"),
                    header.get("version"));
            if (header.get("processes") instanceof Integer n && n > 1) {
                out.printf(Locale.ROOT, "# processes %d: %s; %s%n", n, header.get("layout"), header.get("transport"));
            }
            if (header.get("loadAverage") instanceof Double load && load >= 0) {
                out.printf(Locale.ROOT, "# load average %.2f (1 min) on %s CPUs%s%n", load, header.get("cpus"),
                        Boolean.TRUE.equals(header.get("busy"))
                                ? ": WARNING the machine is busier than its cores; timings are noisy" : "");
            }
            if ("adaptive".equals(header.get("wait"))) {
                out.println("# wait adaptive: a rank found sharing its core with other work keeps it (spins ~1 ms, not"
                        + " ~100 us, before parking) while its peers' cores are free; reported below the table (--wait spin: never)");
            } else if (header.get("wait") != null) {
                out.println("# wait " + header.get("wait") + " (no contention detection)");
            }
            out.printf(Locale.ROOT, "# time = mean per iteration over %s; min/max over %s; +-%% = (max - min) / time%n",
                    "the slowest rank", "batches of iterations");
            if (header.get("warmup") != null) {
                out.printf(Locale.ROOT, "# warm-up: %s; check: %s%n", header.get("warmup"),
                        Boolean.TRUE.equals(header.get("check")) ? "on, one call outside the timed loop (-c 0: off)" : "off");
            }
            StringBuilder h0 = new StringBuilder(String.format(Locale.ROOT, "#%12s %12s %6s %6s %5s  %-20s", "", "", "", "", "", ""));
            StringBuilder h1 = new StringBuilder(String.format(Locale.ROOT, "#%12s %12s %6s %6s %5s  %-20s %10s %10s %10s %5s",
                    "size", "count", "type", "redop", "root", "algorithm", "time", "min", "max", "+-%"));
            StringBuilder h2 = new StringBuilder(String.format(Locale.ROOT, "#%12s %12s %6s %6s %5s  %-20s %10s %10s %10s %5s",
                    "(B)", "(elements)", "", "", "", "", "(us)", "(us)", "(us)", ""));
            for (int p : percentiles) {
                h1.append(String.format(Locale.ROOT, " %9s", "p" + p));
                h2.append(String.format(Locale.ROOT, " %9s", "(us)"));
            }
            h1.append(String.format(Locale.ROOT, " %8s %8s %7s", "algbw", "busbw", "#wrong"));
            h2.append(String.format(Locale.ROOT, " %8s %8s %7s", "(GB/s)", "(GB/s)", ""));
            int outWidth = h1.length() - h0.length();
            h0.append(String.format(Locale.ROOT, " %-" + (outWidth - 1) + "s", center("out-of-place", outWidth - 1)));
            h0.append(String.format(Locale.ROOT, " %s", center("in-place", 36)));
            h1.append(String.format(Locale.ROOT, "  %10s %8s %8s %7s", "time", "algbw", "busbw", "#wrong"));
            h2.append(String.format(Locale.ROOT, "  %10s %8s %8s %7s", "(us)", "(GB/s)", "(GB/s)", ""));
            out.println(h0.toString().stripTrailing());
            out.println(h1);
            out.println(h2);
            out.flush();
        }

        private static String center(String s, int width) {
            int pad = Math.max(0, width - s.length());
            String dashes = "-".repeat(pad / 2);
            return dashes + s + dashes + (pad % 2 == 1 ? "-" : "");
        }

        @Override
        void row(BenchRow r) {
            starred |= r.autoPick() && !r.isAuto();
            unsettled |= !r.settled();
            String spread = Double.isNaN(r.spreadPct()) ? "-" : String.format(Locale.ROOT, "%.0f", r.spreadPct());
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, " %12d %12d %6s %6s %5s  %-20s %10.2f %10.2f %10.2f %5s",
                    r.bytes(), r.count(), r.dtype(), r.op(), r.root() < 0 ? "-" : Integer.toString(r.root()),
                    r.label() + (r.autoPick() && !r.isAuto() ? "*" : "") + (r.settled() ? "" : "~"),
                    r.avgUs(), r.minUs(), r.maxUs(), spread));
            for (double p : r.percentileUs()) {
                sb.append(String.format(Locale.ROOT, " %9.2f", p));
            }
            sb.append(String.format(Locale.ROOT, " %8.2f %8.2f %7s", r.algbw(), r.busbw(),
                    r.validated() ? Long.toString(r.wrong()) : "N/A"));
            if (r.hasInPlace()) {
                sb.append(String.format(Locale.ROOT, "  %10.2f %8.2f %8.2f %7s", r.ipAvgUs(), r.ipAlgbw(), r.ipBusbw(),
                        r.ipWrong() >= 0 ? Long.toString(r.ipWrong()) : "N/A"));
            } else {
                sb.append(String.format(Locale.ROOT, "  %10s %8s %8s %7s", "N/A", "N/A", "N/A", "N/A"));
            }
            out.println(sb);
            out.flush();
        }

        private boolean starred;
        private boolean unsettled;


        @Override
        void end() {
            if (starred) {
                out.println("# * = the algorithm 'auto' picks at that size");
            }
            if (unsettled) {
                out.println("# ~ = its warm-up did not settle within the time cap (the machine was busy, or the row drifts)");
            }
            out.flush();
        }

        @Override
        void summary(List<BenchRow> rows, PrintWriter err) {
            for (String line : closingLines(rows)) {
                out.println(line);
            }
            out.flush();
        }
    }

    static final class JsonLines extends RowWriter {
        JsonLines(PrintWriter out, List<Integer> percentiles) {
            super(out, percentiles);
        }

        @Override
        void summary(List<BenchRow> rows, PrintWriter err) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "summary");
            m.put("lines", closingLines(rows));
            out.println(Json.write(m));
            out.flush();
        }

        @Override
        void begin(Map<String, Object> header) {
            Map<String, Object> h = new LinkedHashMap<>();
            h.put("type", "header");
            h.putAll(header);
            out.println(Json.write(h));
            out.flush();
        }

        @Override
        void row(BenchRow r) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "row");
            m.put("collective", r.collective().cliName());
            m.put("algorithm", r.algorithm());
            m.put("auto", r.autoPick());
            m.put("threads", r.threads());
            m.put("bytes", r.bytes());
            m.put("count", r.count());
            m.put("dtype", r.dtype());
            m.put("op", r.op());
            m.put("root", r.root());
            m.put("iterations", r.iterations());
            m.put("avg_us", r.avgUs());
            m.put("min_us", r.minUs());
            m.put("max_us", r.maxUs());
            for (int i = 0; i < percentiles.size(); i++) {
                m.put("p" + percentiles.get(i) + "_us", r.percentileUs()[i]);
            }
            m.put("algbw_GBps", r.algbw());
            m.put("busbw_GBps", r.busbw());
            m.put("valid", r.validated() ? (Object) (r.wrong() == 0) : null);
            m.put("wrong", r.validated() ? r.wrong() : null);
            m.put("label", r.label());
            m.put("spread_pct", Double.isNaN(r.spreadPct()) ? null : r.spreadPct());
            m.put("settled", r.settled());
            if (r.hasInPlace()) {
                m.put("ip_avg_us", r.ipAvgUs());
                m.put("ip_algbw_GBps", r.ipAlgbw());
                m.put("ip_busbw_GBps", r.ipBusbw());
                m.put("ip_wrong", r.ipWrong() >= 0 ? r.ipWrong() : null);
            }
            out.println(Json.write(m));
            out.flush();
        }
    }
}
