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
            out.println(h);
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
            out.printf(Locale.ROOT, "# time = mean per iteration over %s; min/max over %s%n", "the slowest rank",
                    "batches of iterations");
            StringBuilder h1 = new StringBuilder(String.format(Locale.ROOT, "#%12s %12s %6s %6s %5s  %-16s %10s %10s %10s",
                    "size", "count", "type", "redop", "root", "algorithm", "time", "min", "max"));
            StringBuilder h2 = new StringBuilder(String.format(Locale.ROOT, "#%12s %12s %6s %6s %5s  %-16s %10s %10s %10s",
                    "(B)", "(elements)", "", "", "", "", "(us)", "(us)", "(us)"));
            for (int p : percentiles) {
                h1.append(String.format(Locale.ROOT, " %9s", "p" + p));
                h2.append(String.format(Locale.ROOT, " %9s", "(us)"));
            }
            h1.append(String.format(Locale.ROOT, " %8s %8s %7s", "algbw", "busbw", "#wrong"));
            h2.append(String.format(Locale.ROOT, " %8s %8s %7s", "(GB/s)", "(GB/s)", ""));
            out.println(h1);
            out.println(h2);
            out.flush();
        }

        @Override
        void row(BenchRow r) {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, " %12d %12d %6s %6s %5s  %-16s %10.2f %10.2f %10.2f",
                    r.bytes(), r.count(), r.dtype(), r.op(), r.root() < 0 ? "-" : Integer.toString(r.root()),
                    r.algorithm() + (r.autoPick() ? "*" : ""), r.avgUs(), r.minUs(), r.maxUs()));
            for (double p : r.percentileUs()) {
                sb.append(String.format(Locale.ROOT, " %9.2f", p));
            }
            sb.append(String.format(Locale.ROOT, " %8.2f %8.2f %7s", r.algbw(), r.busbw(),
                    r.validated() ? Long.toString(r.wrong()) : "N/A"));
            out.println(sb);
            out.flush();
        }

        @Override
        void end() {
            out.println("# * = the algorithm 'auto' picks at that size");
            out.flush();
        }
    }

    static final class JsonLines extends RowWriter {
        JsonLines(PrintWriter out, List<Integer> percentiles) {
            super(out, percentiles);
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
            out.println(Json.write(m));
            out.flush();
        }
    }
}
