package io.coll4j.examples;

/**
 * Accumulates one rank's time inside communication calls (collectives, barrier awaits). Time spent waiting
 * for a slower peer counts as communication: that is what the rank loses to synchronisation.
 * Not thread-safe: one per rank.
 */
public final class CommClock {
    private long nanos;
    private long start;

    /** Marks the start of a communication call. */
    public void start() {
        start = System.nanoTime();
    }

    /** Marks its end; adds the elapsed time. */
    public void stop() {
        nanos += System.nanoTime() - start;
    }

    public double seconds() {
        return nanos * 1e-9;
    }
}
