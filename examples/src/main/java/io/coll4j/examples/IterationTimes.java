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
        if (count == nanos.length) {
            nanos = Arrays.copyOf(nanos, 2 * count);
        }
        nanos[count++] = now - last;
        last = now;
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
}
