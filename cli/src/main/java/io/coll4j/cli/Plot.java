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

import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --plot FILE.png}: busbw (GB/s) against the message size, one line per algorithm, with XChart.
 * The x axis is log2 of the bytes, labelled with K/M suffixes, so every doubling of the sweep is one
 * evenly spaced point; the title names the collective, the machine (CPU model, topology) and p.
 */
final class Plot {
    private Plot() {
    }

    static void busbw(Path file, List<BenchRow> rows, Collective c, int p, Topology topo) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (BenchRow r : rows) {
            if (r.bytes() > 0) {
                series.computeIfAbsent(r.algorithm(), k -> new ArrayList<>())
                        .add(new double[]{Math.log(r.bytes()) / Math.log(2), r.busbw()});
            }
        }
        if (series.isEmpty()) {
            throw new IllegalArgumentException("--plot: no rows with bytes > 0 to draw");
        }
        XYChart chart = new XYChartBuilder().width(1100).height(650)
                .title("collbench " + c.cliName() + ", p = " + p + " - " + CollectiveCommands.machine() + " - " + topo.summary())
                .xAxisTitle("bytes per rank (log2 scale)").yAxisTitle("busbw (GB/s)").build();
        XYStyler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideNW);
        st.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        st.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        st.setChartBackgroundColor(java.awt.Color.WHITE);
        st.setPlotGridLinesVisible(true);
        chart.getStyler().setXAxisDecimalPattern("0");
        chart.getStyler().setxAxisTickLabelsFormattingFunction(Plot::sizeLabel);
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            double[] x = e.getValue().stream().mapToDouble(v -> v[0]).toArray();
            double[] y = e.getValue().stream().mapToDouble(v -> v[1]).toArray();
            XYSeries s = chart.addSeries(e.getKey(), x, y);
            s.setMarker(SeriesMarkers.CIRCLE);
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
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
