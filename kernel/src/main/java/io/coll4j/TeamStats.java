package io.coll4j;

import java.time.Duration;
import java.util.List;

/**
 * What a team's blocking collectives did so far ({@link Team#stats()}): one row per collective and
 * algorithm that ran, summed over the team's ranks.
 *
 * @param rows in collective order, then the catalogue's order of algorithms
 */
public record TeamStats(List<Row> rows) {
    public TeamStats {
        rows = List.copyOf(rows);
    }

    /**
     * @param calls      calls, counted once per rank that made them
     * @param bytes      bytes per rank as collbench counts them, summed over the calls
     * @param timedCalls the calls that were timed ({@link Team.Builder#statistics}, or a JFR recording)
     * @param time       the time of the timed calls, summed over ranks
     */
    public record Row(Collective collective, String algorithm, long calls, long bytes, long timedCalls, Duration time) {
        /** The mean time of a timed call, or null when none was timed. */
        public Duration mean() {
            return timedCalls == 0 ? null : time.dividedBy(timedCalls);
        }
    }

    /** The row of {@code collective} and {@code algorithm}, or null when that pair has not run. */
    public Row row(Collective collective, String algorithm) {
        for (Row r : rows) {
            if (r.collective() == collective && r.algorithm().equals(algorithm)) {
                return r;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(String.format("%-16s %-16s %12s %16s %12s%n", "collective", "algorithm",
                "calls", "bytes", "mean us"));
        for (Row r : rows) {
            Duration m = r.mean();
            sb.append(String.format("%-16s %-16s %12d %16d %12s%n", r.collective().cliName(), r.algorithm(), r.calls(),
                    r.bytes(), m == null ? "-" : String.format("%.2f", m.toNanos() / 1000.0)));
        }
        return sb.toString();
    }
}
