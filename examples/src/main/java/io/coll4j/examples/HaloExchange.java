package io.coll4j.examples;

import io.coll4j.GraphTopology;
import io.coll4j.PointToPoint;
import io.coll4j.Rank;
import io.coll4j.Request;

import java.lang.foreign.MemorySegment;

/**
 * The halo exchange of a grid cut into slabs of z-planes, one per rank: each rank sends its lowest plane of a vector
 * to the rank below and its highest to the rank above, and receives their edge planes as its ghosts. Ranks that hold
 * no plane (more ranks than planes) are skipped: the neighbours are the previous and the next rank of the chain of
 * non-empty slabs. Plain point-to-point, as an MPI stencil code does it: an {@code irecv} per neighbour into the
 * ghost array [below | above], then an {@code isend} per neighbour straight out of the vector, all posted at once.
 * The receives are awaited when the ghosts are needed ({@link #finish}), the sends only before the edge planes are
 * written again ({@link #awaitSends}), as an MPI code waits for its send requests before reusing the send buffer.
 *
 * <p>Why the sends are not awaited with the receives: a plane of 64³ (32 KiB) is larger than the eager limit, so it
 * goes by rendezvous and its send completes when the neighbour has copied it, which the neighbour does in its own wait.
 * Awaiting the sends in {@link #finish} made each rank wait there for the slower neighbour to finish its interior
 * update, a third synchronisation per iteration on top of the solver's two allreduces; awaited before the next
 * edge update, they are complete by then (the neighbour copied them before entering the allreduces both ranks
 * have passed since). It was one neighborhood {@code ialltoallv} over the chain, awaited as a whole.
 */
final class HaloExchange {
    /** The exchange's tag: one message per neighbour and direction per exchange, ordered by non-overtaking. */
    static final int TAG = 4711;

    private final PointToPoint pp;
    private final MemorySegment vector;
    private final double[] ghosts;
    private final MemorySegment ghostSegment;
    /** The neighbour below and above in the chain, or -1. */
    private final int belowRank;
    private final int aboveRank;
    private final long lowOffset;
    private final long highOffset;
    private final long planeBytes;
    private final Request[] receives;
    private final Request[] sends;

    /** The exchange of rank {@code rank}'s slab of {@code vector}, an n³ grid in z-major order. */
    HaloExchange(Rank rank, int n, double[] vector) {
        int id = rank.id();
        int threads = rank.size();
        GraphTopology chain = chain(n, threads);
        int plane = n * n;
        int z0 = (int) ((long) n * id / threads);
        int z1 = (int) ((long) n * (id + 1) / threads);
        int b = -1;
        int a = -1;
        for (int s : chain.sources(id)) {
            if (s < id) {
                b = s;
            } else {
                a = s;
            }
        }
        this.pp = rank.p2p();
        this.vector = MemorySegment.ofArray(vector);
        this.ghosts = new double[2 * plane];
        this.ghostSegment = MemorySegment.ofArray(ghosts);
        this.belowRank = b;
        this.aboveRank = a;
        this.planeBytes = (long) plane * Double.BYTES;
        this.lowOffset = (long) z0 * planeBytes;
        this.highOffset = (long) Math.max(z1 - 1, z0) * planeBytes;
        int neighbours = (b >= 0 ? 1 : 0) + (a >= 0 ? 1 : 0);
        this.receives = new Request[neighbours];
        this.sends = new Request[neighbours];
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
        return belowRank >= 0;
    }

    boolean hasAbove() {
        return aboveRank >= 0;
    }

    /**
     * Sends this rank's edge planes and receives the ghosts; the sends are awaited before the edge planes are
     * written again ({@link #awaitSends}).
     */
    void exchange() {
        start();
        finish();
    }

    /**
     * Starts the exchange: until {@link #awaitSends} returns, this rank must not write its edge planes (the
     * neighbours copy them straight out of the vector); until {@link #finish} returns, it must not read the ghosts.
     * The previous exchange's sends must have been awaited.
     */
    void start() {
        int i = 0;
        // the receives first, so a neighbour's plane meets a posted receive and is copied straight into the ghosts
        if (belowRank >= 0) {
            receives[i++] = pp.irecv(ghostSegment.asSlice(0, planeBytes), belowRank, TAG);
        }
        if (aboveRank >= 0) {
            receives[i] = pp.irecv(ghostSegment.asSlice(planeBytes, planeBytes), aboveRank, TAG);
        }
        i = 0;
        if (belowRank >= 0) {
            sends[i++] = pp.isend(vector.asSlice(lowOffset, planeBytes), belowRank, TAG);
        }
        if (aboveRank >= 0) {
            sends[i] = pp.isend(vector.asSlice(highOffset, planeBytes), aboveRank, TAG);
        }
    }

    /** Waits for the ghosts of the exchange {@link #start} began. */
    void finish() {
        Request.awaitAll(receives);
    }

    /** Waits until the neighbours have taken this rank's edge planes: then they may be written. */
    void awaitSends() {
        for (int i = 0; i < sends.length; i++) {
            if (sends[i] != null) {
                sends[i].await();
                sends[i] = null;
            }
        }
    }
}
