package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.topology.Topology;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code --plot FILE.png} and {@code collbench plot}: two charts side by side in one PNG, with XChart: the latency
 * (µs per call, log–log) and the bus bandwidth (GB/s) against the bytes per rank, one series per algorithm label.
 * {@code auto} is one series across the sizes (its legend names what it ran: {@code auto (→push, direct)}); a point
 * it ran with an algorithm that has its own series is drawn in that series as well, so neither has a gap. The x axis
 * is log2 of the bytes, labelled 8, 1K, 64M, so each doubling of a sweep is one evenly spaced point.
 */
final class Plot {
    private Plot() {
    }

    /** One point of a series: bytes per rank, µs per call, busbw GB/s. */
    record Point(long bytes, double us, double busbw) {
    }

    /** A series: its legend and its points by size. */
    static final class Series {
        final String name;
        final TreeMap<Long, Point> points = new TreeMap<>();
        final Set<String> ran = new LinkedHashSet<>();

        Series(String name) {
            this.name = name;
        }

        String legend() {
            return ran.isEmpty() ? name : name + " (→" + String.join(", ", ran) + ")";
        }
    }

    /** The series of a benchmark's rows ({@code prefix} before each name when several files are overlaid). */
    static Map<String, Series> series(List<BenchRow> rows, String prefix) {
        Map<String, Series> out = new LinkedHashMap<>();
        Set<String> named = new LinkedHashSet<>();
        for (BenchRow r : rows) {
            if (!r.isAuto()) {
                named.add(r.label());
            }
        }
        for (BenchRow r : rows) {
            if (r.bytes() <= 0 || r.avgUs() <= 0) {
                continue;
            }
            Point pt = new Point(r.bytes(), r.avgUs(), r.busbw());
            if (r.isAuto()) {
                Series s = out.computeIfAbsent(prefix + "auto", Series::new);
                s.points.put(r.bytes(), pt);
                s.ran.add(r.algorithm());
                if (named.contains(r.algorithm())) {
                    // -a auto,push: the size auto ran push at is push's point too
                    out.computeIfAbsent(prefix + r.algorithm(), Series::new).points.put(r.bytes(), pt);
                }
            } else {
                out.computeIfAbsent(prefix + r.label(), Series::new).points.put(r.bytes(), pt);
            }
        }
        return out;
    }

    static void busbw(Path file, List<BenchRow> rows, Collective c, int p, Topology topo) throws IOException {
        draw(file, series(rows, ""), "collbench " + c.cliName() + ", p = " + p + " - " + CollectiveCommands.machine() + " - "
                + topo.summary());
    }

    /** Writes the latency and the bandwidth chart of {@code series} side by side into {@code file}. */
    static void draw(Path file, Map<String, Series> series, String title) throws IOException {
        System.setProperty("java.awt.headless", "true");
        series.values().removeIf(s -> s.points.isEmpty());
        if (series.isEmpty()) {
            throw new IllegalArgumentException("plot: no rows with bytes > 0 to draw");
        }
        XYChart lat = chart("latency: mean µs per call (log-log)", "µs per call (log scale)", true);
        XYChart bw = chart("bus bandwidth (nccl-tests' busbw)", "busbw (GB/s)", false);
        for (Series s : series.values()) {
            double[] x = s.points.keySet().stream().mapToDouble(b -> Math.log(b) / Math.log(2)).toArray();
            XYSeries a = lat.addSeries(s.legend(), x, s.points.values().stream().mapToDouble(Point::us).toArray());
            a.setMarker(SeriesMarkers.CIRCLE);
            XYSeries b = bw.addSeries(s.legend(), x, s.points.values().stream().mapToDouble(Point::busbw).toArray());
            b.setMarker(SeriesMarkers.CIRCLE);
        }
        BufferedImage left = BitmapEncoder.getBufferedImage(lat);
        BufferedImage right = BitmapEncoder.getBufferedImage(bw);
        int banner = 34;
        BufferedImage both = new BufferedImage(left.getWidth() + right.getWidth(),
                banner + Math.max(left.getHeight(), right.getHeight()), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = both.createGraphics();
        g.setRenderingHint(java.awt.RenderingHints.KEY_TEXT_ANTIALIASING, java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, both.getWidth(), both.getHeight());
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        int w = g.getFontMetrics().stringWidth(title);
        g.drawString(title, Math.max(8, (both.getWidth() - w) / 2), 23);
        g.drawImage(left, 0, banner, null);
        g.drawImage(right, left.getWidth(), banner, null);
        g.dispose();
        if (!ImageIO.write(both, "png", file.toFile())) {
            throw new IOException("no PNG writer");
        }
    }

    private static XYChart chart(String title, String yTitle, boolean logY) {
        XYChart chart = new XYChartBuilder().width(900).height(620).title(title)
                .xAxisTitle("bytes per rank (log2 scale)").yAxisTitle(yTitle).build();
        XYStyler st = chart.getStyler();
        st.setLegendPosition(logY ? Styler.LegendPosition.InsideNW : Styler.LegendPosition.InsideNW);
        st.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
        st.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotGridLinesVisible(true);
        st.setXAxisDecimalPattern("0");
        st.setxAxisTickLabelsFormattingFunction(Plot::sizeLabel);
        st.setYAxisLogarithmic(logY);
        return chart;
    }

    /**
     * Reads collbench CSV files (or scripts/ompi's, which print the same header) into series, one per label and file:
     * the {@code label} column where there is one, else {@code algorithm}; several files prefix each name with the
     * file's name.
     */
    static Map<String, Series> readCsv(List<Path> files) throws IOException {
        Map<String, Series> all = new LinkedHashMap<>();
        for (Path f : files) {
            List<String> lines = java.nio.file.Files.readAllLines(f).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
            if (lines.isEmpty()) {
                throw new IllegalArgumentException(f + ": empty");
            }
            List<String> head = List.of(lines.getFirst().split(",", -1));
            int coll = head.indexOf("collective");
            int alg = head.indexOf("algorithm");
            int threads = head.indexOf("threads");
            int bytes = head.indexOf("bytes");
            int avg = head.indexOf("avg_us");
            int busbw = head.indexOf("busbw_GBps");
            int label = head.indexOf("label");
            if (alg < 0 || bytes < 0 || avg < 0 || busbw < 0) {
                throw new IllegalArgumentException(f + ": not a collbench CSV (needs the columns algorithm, bytes, avg_us, busbw_GBps)");
            }
            List<BenchRow> rows = new ArrayList<>();
            for (String line : lines.subList(1, lines.size())) {
                String[] v = line.split(",", -1);
                try {
                    Collective c = coll >= 0 ? Collective.parse(v[coll]) : Collective.ALLREDUCE;
                    int p = threads >= 0 ? Integer.parseInt(v[threads]) : 1;
                    BenchRow r = new BenchRow(c, v[alg], false, p, Long.parseLong(v[bytes]), 0, "-", "-", -1, 0,
                            Double.parseDouble(v[avg]), 0, 0, new double[0], -1);
                    rows.add(label >= 0 && !v[label].isEmpty() ? r.withLabel(v[label]) : r);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException(f + ": unreadable row '" + line + "' (" + e.getMessage() + ")");
                }
            }
            // busbw recomputed from bytes and avg_us with the collective's factor, as collbench and scripts/ompi both compute it
            String prefix = files.size() > 1 ? stem(f) + ": " : "";
            Map<String, Series> s = series(rows, prefix);
            all.putAll(s);
        }
        return all;
    }

    private static String stem(Path f) {
        String n = f.getFileName().toString();
        return n.endsWith(".csv") ? n.substring(0, n.length() - 4) : n;
    }

    /** Tick label for log2(bytes): 8, 1K, 64M. Ticks off whole powers of two get no label. */
    static String sizeLabel(Double log2) {
        if (log2 == null || Math.abs(log2 - Math.rint(log2)) > 1e-6) {
            return "";
        }
        long b = 1L << (long) Math.rint(log2);
        if (b >= 1L << 30) {
            return (b >> 30) + "G";
        }
        if (b >= 1L << 20) {
            return (b >> 20) + "M";
        }
        if (b >= 1L << 10) {
            return (b >> 10) + "K";
        }
        return Long.toString(b);
    }
}
