package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The cross-process checks' buffers, alternately on the heap (which the MPI span stages through native memory)
 * and native (which it hands to MPI as is), so every collective meets both; and the check that a result is
 * bitwise the same on every rank.
 */
final class Buffers {
    private final Rank rank;
    private boolean heap;

    Buffers(Rank rank) {
        this.rank = rank;
    }

    /** Room for {@code n} elements of {@code d}: a long[]-backed heap segment and a native one, in turn. */
    MemorySegment of(DType d, long n) {
        heap = !heap;
        long bytes = Math.max(n * d.size(), 0);
        return heap ? MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]).asSlice(0, bytes) : rank.allocate(bytes);
    }

    /** Throws unless {@code hash} is the same on every rank of the team (its MIN and MAX over the team agree). */
    static void sameEverywhere(Rank rank, long hash, String what) {
        long[] lo = {hash};
        long[] hi = {hash};
        rank.allreduce(lo, lo, Op.MIN);
        rank.allreduce(hi, hi, Op.MAX);
        if (lo[0] != hi[0]) {
            throw new AssertionError(what + ": ranks disagree bitwise (hash " + lo[0] + " .. " + hi[0] + ")");
        }
    }
}
