package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;

import java.lang.foreign.MemorySegment;

/**
 * The block layouts {@code collbench} uses for the v-variants, and the call of a planned collective with
 * them. The benchmark's N elements (the size divided by the dtype) are split unevenly, the way irregular
 * data is: block j holds {@code ⌊N(j+1)²/p²⌋ − ⌊Nj²/p²⌋} elements — rank 0's the smallest, the last rank's
 * about 2N/p (at p = 2: a quarter and three quarters) — packed in rank order. Alltoallv: rank r sends
 * {@code split[(j + r) mod p]} of its N elements to rank j, so every rank sends and receives N in all.
 */
final class VectorLayouts {
    private VectorLayouts() {
    }

    /** The uneven split of n elements into p blocks (see the class comment). */
    static long[] split(long n, int p) {
        long[] c = new long[p];
        long p2 = (long) p * p;
        for (int j = 0; j < p; j++) {
            c[j] = bound(n, j + 1, p2) - bound(n, j, p2);
        }
        return c;
    }

    private static long bound(long n, long j, long p2) {
        // n·j²/p² without overflowing for the sizes collbench sweeps
        return Math.multiplyHigh(n, j * j) == 0 ? n * j * j / p2 : (long) ((double) n * j * j / p2);
    }

    static long[] packed(long[] counts) {
        long[] d = new long[counts.length];
        for (int j = 1; j < counts.length; j++) {
            d[j] = d[j - 1] + counts[j - 1];
        }
        return d;
    }

    /** Counts and displacements of one rank's call, in the order of {@link CollectivePlan#execute(MemorySegment, long[], long[], MemorySegment, long[], long[])}. */
    record Call(CollectivePlan plan, long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        void run(MemorySegment send, MemorySegment recv) {
            if (sendCounts == null && recvCounts == null) {
                plan.execute(send, recv);
            } else {
                plan.execute(send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
            }
        }

        /** Elements of block q in the receive buffer, and where it starts (element offset). */
        long recvCount(int q, long uniform) {
            return recvCounts == null ? uniform : recvCounts[q];
        }
    }

    /** The call of rank r for a collective of {@code total} elements (the plan's count for the v-variants). */
    static Call call(CollectivePlan plan, Collective c, long total, int p, int r) {
        long[] split = split(total, p);
        long[] packed = packed(split);
        return switch (c) {
            case GATHERV -> new Call(plan, new long[]{split[r]}, null, split, packed);
            case SCATTERV -> new Call(plan, split, packed, new long[]{split[r]}, null);
            case ALLGATHERV -> new Call(plan, new long[]{split[r]}, null, split, packed);
            case REDUCE_SCATTER_V -> new Call(plan, null, null, split, packed);
            case ALLTOALLV -> {
                long[] sc = new long[p];
                long[] rc = new long[p];
                for (int j = 0; j < p; j++) {
                    sc[j] = split[(j + r) % p];
                    rc[j] = split[(r + j) % p];
                }
                yield new Call(plan, sc, packed(sc), rc, packed(rc));
            }
            default -> new Call(plan, null, null, null, null);
        };
    }
}
