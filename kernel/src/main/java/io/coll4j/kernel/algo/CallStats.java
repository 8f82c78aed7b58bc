package io.coll4j.kernel.algo;

import io.coll4j.Collective;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls, bytes and time of a team's blocking collectives, per collective and algorithm, kept per rank so
 * the call path only adds to its own rank's counters (owner-written, opaque: a reader on another thread
 * sees every counter whole, a consistent total only once the ranks are quiet). Time is added only for calls
 * that were timed (the team's statistics setting, or a recording with the call event on); the calls
 * counted without it are counted apart, so an average is never taken over untimed calls.
 */
public final class CallStats {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int COLLECTIVES = Collective.values().length;
    /** Algorithm ids run 0 (outside the catalogue) .. catalogue size. */
    private static final int ALGORITHMS = AlgorithmCatalog.all().size() + 1;
    private static final int CELLS = COLLECTIVES * ALGORITHMS;
    /** Per cell: calls, bytes, timed calls, nanos. */
    private static final int FIELDS = 4;

    private final int size;
    private final long[] counters;

    CallStats(int size) {
        this.size = size;
        this.counters = new long[size * CELLS * FIELDS];
    }

    /** One call of {@code rank}; {@code nanos} negative: not timed. Only {@code rank}'s thread calls this for its rank. */
    public void add(int rank, Collective c, int algorithmId, long bytes, long nanos) {
        int at = ((rank * CELLS) + c.ordinal() * ALGORITHMS + algorithmId) * FIELDS;
        // opaque read-modify-write of the owner's own counters: one writer, so no lost update
        LONGS.setOpaque(counters, at, (long) LONGS.getOpaque(counters, at) + 1);
        LONGS.setOpaque(counters, at + 1, (long) LONGS.getOpaque(counters, at + 1) + bytes);
        if (nanos >= 0) {
            LONGS.setOpaque(counters, at + 2, (long) LONGS.getOpaque(counters, at + 2) + 1);
            LONGS.setOpaque(counters, at + 3, (long) LONGS.getOpaque(counters, at + 3) + nanos);
        }
    }

    /** One summed row per (collective, algorithm) with at least one call. */
    public record Row(Collective collective, String algorithm, long calls, long bytes, long timedCalls, long nanos) {
    }

    /** The rows, summed over the ranks, in collective then catalogue order. */
    public List<Row> rows() {
        List<Row> out = new ArrayList<>();
        Collective[] cs = Collective.values();
        for (int cell = 0; cell < CELLS; cell++) {
            long calls = 0, bytes = 0, timed = 0, nanos = 0;
            for (int r = 0; r < size; r++) {
                int at = (r * CELLS + cell) * FIELDS;
                calls += (long) LONGS.getOpaque(counters, at);
                bytes += (long) LONGS.getOpaque(counters, at + 1);
                timed += (long) LONGS.getOpaque(counters, at + 2);
                nanos += (long) LONGS.getOpaque(counters, at + 3);
            }
            if (calls > 0) {
                int alg = cell % ALGORITHMS;
                out.add(new Row(cs[cell / ALGORITHMS], alg == 0 ? "?" : AlgorithmCatalog.nameOf(alg), calls, bytes, timed, nanos));
            }
        }
        return out;
    }
}
