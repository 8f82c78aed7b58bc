package io.coll4j.examples;

import io.coll4j.GraphTopology;
import io.coll4j.Neighborhood;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * The halo exchange of a grid cut into slabs of z-planes, one per rank: each rank sends its lowest plane of a vector
 * to the rank below and its highest to the rank above, and receives their edge planes as its ghosts. One neighborhood
 * alltoallv on the chain of ranks that hold at least one plane (with more ranks than planes some slabs are empty and
 * the chain skips them), straight out of the vector and into one ghost array [below | above].
 */
final class HaloExchange {
    private final Neighborhood neighborhood;
    private final MemorySegment vector;
    private final double[] ghosts;
    private final MemorySegment ghostSegment;
    private final long[] sendCounts;
    private final long[] sendDispls;
    private final long[] recvCounts;
    private final long[] recvDispls;
    private final boolean below;
    private final boolean above;

    /** The exchange of rank {@code rank}'s slab of {@code vector}, an n³ grid in z-major order. */
    HaloExchange(Rank rank, int n, double[] vector) {
        int id = rank.id();
        int threads = rank.size();
        GraphTopology chain = chain(n, threads);
        int plane = n * n;
        int z0 = (int) ((long) n * id / threads);
        int z1 = (int) ((long) n * (id + 1) / threads);
        int[] src = chain.sources(id);
        int[] dst = chain.destinations(id);
        this.neighborhood = rank.p2p().neighborhood(chain);
        this.vector = MemorySegment.ofArray(vector);
        this.ghosts = new double[2 * plane];
        this.ghostSegment = MemorySegment.ofArray(ghosts);
        this.sendCounts = new long[dst.length];
        this.sendDispls = new long[dst.length];
        for (int i = 0; i < dst.length; i++) {
            sendCounts[i] = plane;
            sendDispls[i] = dst[i] < id ? (long) z0 * plane : (long) (z1 - 1) * plane;
        }
        this.recvCounts = new long[src.length];
        this.recvDispls = new long[src.length];
        boolean b = false;
        boolean a = false;
        for (int i = 0; i < src.length; i++) {
            recvCounts[i] = plane;
            recvDispls[i] = src[i] < id ? 0 : plane;
            b |= src[i] < id;
            a |= src[i] > id;
        }
        this.below = b;
        this.above = a;
    }

    /** Ranks that hold planes, each sending to the previous and the next one that holds planes. */
    static GraphTopology chain(int n, int threads) {
        int[][] dest = new int[threads][];
        int last = -1;
        for (int t = 0; t < threads; t++) {
            dest[t] = new int[0];
            if ((long) n * (t + 1) / threads > (long) n * t / threads) {
                if (last >= 0) {
                    dest[last] = append(dest[last], t);
                    dest[t] = new int[]{last};
                }
                last = t;
            }
        }
        return GraphTopology.of(dest);
    }

    private static int[] append(int[] a, int v) {
        int[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = v;
        return b;
    }

    /** [the plane below the slab | the plane above it], valid after {@link #exchange}. */
    double[] ghosts() {
        return ghosts;
    }

    boolean hasBelow() {
        return below;
    }

    boolean hasAbove() {
        return above;
    }

    /** Sends this rank's edge planes and receives the ghosts; on return nobody reads this rank's planes any more. */
    void exchange() {
        start().await();
    }

    /**
     * Starts the exchange: until the request completes, this rank must not write its edge planes (the neighbours
     * may copy them straight out of the vector) nor read the ghosts.
     */
    Request start() {
        return neighborhood.ialltoallv(vector, sendCounts, sendDispls, ghostSegment, recvCounts, recvDispls, DType.F64);
    }
}
