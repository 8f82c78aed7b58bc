package io.coll4j.kernel.sync;

/**
 * Flag values are stamps: {@code (seq << STEP_BITS) | step}, where {@code seq} is the collective's
 * sequence number on the team (1, 2, 3, … — the same on every rank) and {@code step} numbers the
 * publications of one collective on one line (slice indices of a pipelined algorithm, rounds, …).
 *
 * <p>Stamps only ever increase on a line ([PAMI §3.4] monotonically increasing counters), so nothing is
 * reset between collectives and there is no ABA. "Reached" is wraparound-safe: {@code value - target >= 0},
 * as Open MPI xhc's {@code CHECK_FLAG} does. A zero stamp (fresh memory) means "nothing published".
 */
public final class Stamp {
    /** Steps per collective per line: 2^24 = 16 M publications (a 256 MiB message in 64-byte slices is 4 M). */
    public static final int STEP_BITS = 24;
    /** Largest step a collective may publish on one line. */
    public static final int MAX_STEP = (1 << STEP_BITS) - 1;

    private Stamp() {
    }

    /** The stamp of publication {@code step} of collective {@code seq}. */
    public static long of(long seq, long step) {
        if (step < 0 || step > MAX_STEP) {
            throw new IllegalArgumentException("step " + step + " outside 0.." + MAX_STEP);
        }
        return (seq << STEP_BITS) | step;
    }

    /** The collective sequence number of a stamp. */
    public static long seq(long stamp) {
        return stamp >>> STEP_BITS;
    }

    /** The step of a stamp. */
    public static long step(long stamp) {
        return stamp & MAX_STEP;
    }

    /** Wraparound-safe "value has reached target". */
    public static boolean reached(long value, long target) {
        return value - target >= 0;
    }
}
