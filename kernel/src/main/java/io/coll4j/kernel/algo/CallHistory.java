package io.coll4j.kernel.algo;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What every rank of a team did in its last {@link #DEPTH} blocking collectives, for the messages of a
 * timeout, mismatch or abort ("the last calls of every rank"), and the entry stamps behind
 * {@link io.coll4j.kernel.events.CollectiveCallEvent}'s late-rank field.
 *
 * <p>Each rank writes only its own rows, on its own thread, on every call: a few opaque stores of longs it
 * already holds (no clock read, no allocation), cheap enough for the 8-byte path. Other threads read the
 * rows only on a failure path, opaquely: a row may be caught mid-update, so it carries its call number
 * twice (first and last word) and a row whose two differ is skipped. The history is a diagnosis, never an
 * input to a decision.
 *
 * <p>Entry stamps ({@link #enter}, {@link #lastEntry}) are written only while the call event is on: a
 * rank's {@code System.nanoTime} at entry, in the half of its two slots of the call's parity. A rank that
 * finishes call s can have peers at most in call s + 1 (the lag check at entry keeps every rank within one
 * call of the slowest), so the slot of s's parity still holds s or an older call — never a later one —
 * and a slot whose call number is not s is simply "not known".
 */
public final class CallHistory {
    /** Calls kept per rank. */
    public static final int DEPTH = 8;
    /** Calls per rank an error message shows: enough to see where two ranks' sequences parted. */
    public static final int IN_MESSAGES = 4;
    /** Longs per row: seq, descriptor, count, algorithm id, done flag, seq again. */
    private static final int ROW = 6;
    /**
     * Longs (one 64-byte line) kept unused before the first rank's rows and after every rank's. Every rank writes
     * its own rows on every call; without the gap the line holding the end of rank r's rows and the start of rank
     * r + 1's would go back and forth between their cores at every call of the two rows' ring slots
     * (docs/measurements.md, "The bcast lean").
     */
    private static final int PAD = 8;
    /** Longs from one rank's first row to the next rank's. */
    private static final int STRIDE = DEPTH * ROW + PAD;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int size;
    /** Rank r's rows at [{@link #at}(r, 0), + DEPTH * ROW), a line of padding on either side. */
    private final long[] rows;
    /** Rank r's entry slots: [(r * 2 + parity) * 2] = seq, [+1] = nanoTime. */
    private final long[] entries;

    CallHistory(int size) {
        this.size = size;
        this.rows = new long[PAD + size * STRIDE];
        this.entries = new long[size * 4];
    }

    /** Index in {@link #rows} of rank {@code rank}'s row for call {@code seq}. */
    private static int at(int rank, long seq) {
        return PAD + rank * STRIDE + (int) (seq % DEPTH) * ROW;
    }

    /** Rank {@code rank} entered call {@code seq}: a row of the ring, overwriting the oldest. */
    void begin(int rank, long seq, long descriptor, long count, int algorithmId) {
        int at = at(rank, seq);
        // opaque: readers on other threads see each word whole; the seq at both ends tells a torn row
        LONGS.setOpaque(rows, at + 5, -1L);
        LONGS.setOpaque(rows, at + 1, descriptor);
        LONGS.setOpaque(rows, at + 2, count);
        LONGS.setOpaque(rows, at + 3, (long) algorithmId);
        LONGS.setOpaque(rows, at + 4, 0L);
        LONGS.setOpaque(rows, at, seq);
        LONGS.setOpaque(rows, at + 5, seq);
    }

    /** Rank {@code rank} left call {@code seq}; {@code ok}: it returned normally. */
    void end(int rank, long seq, boolean ok) {
        int at = at(rank, seq);
        LONGS.setOpaque(rows, at + 4, ok ? 1L : 2L);
    }

    /**
     * "rank 0: #5 allreduce(...) done, #6 bcast(...) in progress; rank 1: …" — the last calls of every rank,
     * oldest first, for an error message.
     */
    public String describe(int perRank) {
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < size; r++) {
            sb.append(r == 0 ? "" : "; ").append("rank ").append(r).append(": ");
            long newest = 0;
            for (int i = 0; i < DEPTH; i++) {
                newest = Math.max(newest, (long) LONGS.getOpaque(rows, at(r, i)));
            }
            if (newest == 0) {
                sb.append("no call");
                continue;
            }
            boolean first = true;
            for (long s = Math.max(1, newest - Math.min(perRank, DEPTH) + 1); s <= newest; s++) {
                int at = at(r, s);
                long seq = (long) LONGS.getOpaque(rows, at);
                long d = (long) LONGS.getOpaque(rows, at + 1);
                long n = (long) LONGS.getOpaque(rows, at + 2);
                long a = (long) LONGS.getOpaque(rows, at + 3);
                long state = (long) LONGS.getOpaque(rows, at + 4);
                if (seq != s || (long) LONGS.getOpaque(rows, at + 5) != s) {
                    continue;
                }
                sb.append(first ? "" : ", ").append('#').append(s).append(' ').append(Signature.describe(d, n))
                        .append(" [").append(AlgorithmCatalog.nameOf((int) a)).append("] ")
                        .append(state == 1 ? "done" : state == 2 ? "failed" : "in progress");
                first = false;
            }
        }
        return sb.toString();
    }

    /** Rank {@code rank} entered call {@code seq} at {@code nanos} (only while the call event is on). */
    void enter(int rank, long seq, long nanos) {
        int at = (rank * 2 + (int) (seq & 1)) * 2;
        LONGS.setOpaque(entries, at + 1, nanos);
        // release: the time above is visible to whoever reads this seq with acquire in lastEntry
        LONGS.setRelease(entries, at, seq);
    }

    /**
     * The rank that entered call {@code seq} last and how long after the first one, as {rank, nanos}; rank
     * -1 when some rank's stamp for {@code seq} is not there (it has not entered, or did not stamp).
     */
    void lastEntry(long seq, long[] out) {
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        int lastRank = -1;
        for (int r = 0; r < size; r++) {
            int at = (r * 2 + (int) (seq & 1)) * 2;
            // acquire: pairs with the release in enter, so the time read below is the one stamped with seq
            long s = (long) LONGS.getAcquire(entries, at);
            long t = (long) LONGS.getOpaque(entries, at + 1);
            if (s != seq) {
                out[0] = -1;
                out[1] = -1;
                return;
            }
            first = Math.min(first, t);
            if (t > last) {
                last = t;
                lastRank = r;
            }
        }
        out[0] = lastRank;
        out[1] = last - first;
    }
}
