package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Where {@link Op#AVG} ends, for every form of every reducing collective: the fold ran as SUM, and each rank's
 * result elements are divided by the number of contributions folded into them ({@link Averages#divide}, the one
 * division). Blocking calls divide their whole result after the algorithm; a non-blocking or persistent
 * exchange divides each output range as soon as its fold wrote it, since every output element is written by
 * exactly one item or part — so no form has its own rounding of an average.
 */
public final class Averaging {

    private Averaging() {
    }

    /**
     * The contributions in rank {@code rank}'s result of collective {@code c} on {@code size} ranks: every rank's
     * for the reductions, ranks 0..rank for a scan, 0..rank−1 for an exscan (none at rank 0).
     */
    public static long contributions(Collective c, long rank, long size) {
        return switch (c) {
            case SCAN -> rank + 1;
            case EXSCAN -> rank;
            default -> size;
        };
    }

    /**
     * Divides {@code count} elements at byte {@code offset} of rank {@code rank}'s result {@code x} when
     * {@code op} is AVG; nothing for any other op, a null {@code x} (a non-root's reduce) or no contributions
     * (rank 0's exscan).
     */
    public static void divide(Collective c, Op op, DType dtype, long rank, long size, MemorySegment x, long offset,
                              long count) {
        if (op != Op.AVG || x == null) {
            return;
        }
        long n = contributions(c, rank, size);
        if (n > 0) {
            Averages.divide(dtype, x, offset, count, n);
        }
    }
}
