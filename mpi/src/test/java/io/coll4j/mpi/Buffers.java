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
    /** Native buffers handed out again in turn (null: a new allocation every time). */
    private final MemorySegment[] ring;
    private int next;

    Buffers(Rank rank) {
        this(rank, 0);
    }

    private Buffers(Rank rank, int slots) {
        this.rank = rank;
        this.ring = slots == 0 ? null : new MemorySegment[slots];
    }

    /**
     * Buffers whose native ones come from a ring of {@code slots} (grown as needed) instead of a new allocation
     * each, for a checker that makes thousands of calls with at most {@code slots} native buffers alive: each
     * team allocation binds its pages (hwloc_set_area_membind), which under heavy load has stalled a rank for
     * the whole team timeout. A reused buffer is not zeroed.
     */
    static Buffers reusing(Rank rank, int slots) {
        return new Buffers(rank, slots);
    }

    /** Room for {@code n} elements of {@code d}: a long[]-backed heap segment and a native one, in turn. */
    MemorySegment of(DType d, long n) {
        heap = !heap;
        long bytes = Math.max(n * d.size(), 0);
        if (heap) {
            return MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]).asSlice(0, bytes);
        }
        if (ring == null) {
            return rank.allocate(bytes);
        }
        int i = next;
        next = (next + 1) % ring.length;
        if (ring[i] == null || ring[i].byteSize() < bytes) {
            ring[i] = rank.allocate(Math.max(bytes, 4096));
        }
        return ring[i].asSlice(0, bytes);
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
