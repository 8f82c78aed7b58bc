package io.coll4j.examples;

import java.util.Arrays;

/**
 * Durations of one thread's iterations. The median iteration says what the loop costs when no other
 * process takes the thread's CPU — on a shared, oversubscribed machine the wall time is dominated by the
 * iterations in which the scheduler ran someone else — so tables show both.
 */
public final class IterationTimes {
    private long[] nanos = new long[64];
    private int count;
    private long last;

    /** Marks the start of the first iteration. */
    public void start() {
        last = System.nanoTime();
    }

    /** Ends the current iteration and starts the next. */
    public void lap() {
        long now = System.nanoTime();
        add(now - last);
        last = now;
    }

    /** Records one iteration of {@code durationNanos} (package-private: tests give synthetic durations). */
    void add(long durationNanos) {
        if (count == nanos.length) {
            nanos = Arrays.copyOf(nanos, 2 * count);
        }
        nanos[count++] = durationNanos;
    }

    /** Median iteration in seconds (NaN when none ran). */
    public double medianSeconds() {
        if (count == 0) {
            return Double.NaN;
        }
        long[] s = Arrays.copyOf(nanos, count);
        Arrays.sort(s);
        return s[count / 2] * 1e-9;
    }

    /**
     * Where the slow iterations are: the 90th percentile and the longest iteration in µs, and the share of the
     * loop's time spent in iterations longer than twice the median (a thread descheduled for a time slice, or
     * waiting for one that was). Empty when none ran.
     */
    public String tail() {
        if (count == 0) {
            return "";
        }
        long[] s = Arrays.copyOf(nanos, count);
        Arrays.sort(s);
        long median = s[count / 2];
        long total = 0;
        long slow = 0;
        for (long v : s) {
            total += v;
            if (v > 2 * median) {
                slow += v;
            }
        }
        return String.format(java.util.Locale.ROOT, "p90 it %.1f us, max it %.1f us, %.0f%% of the time in its > 2x median",
                s[Math.min(count - 1, (int) Math.ceil(0.9 * count) - 1)] * 1e-3, s[count - 1] * 1e-3,
                total == 0 ? 0.0 : 100.0 * slow / total);
    }
}
