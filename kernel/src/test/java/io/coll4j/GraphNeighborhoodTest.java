package io.coll4j;

import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** Graph topologies and the v- and non-blocking forms of the neighborhood collectives (issue 33). */
class GraphNeighborhoodTest {

    @Test
    void graphSourcesAreDerivedInRankOrderAndAdjacentListsMustAgree() {
        GraphTopology g = GraphTopology.of(new int[][]{{1, 2, 1}, {0}, {}});
        assertEquals(3, g.size());
        assertArrayEquals(new int[]{1}, g.sources(0));
        assertArrayEquals(new int[]{0, 0}, g.sources(1));
        assertArrayEquals(new int[]{0}, g.sources(2));
        assertArrayEquals(new int[]{}, g.destinations(2));
        GraphTopology a = GraphTopology.adjacent(new int[][]{{1}, {0, 0}, {0}}, new int[][]{{1, 2, 1}, {0}, {}});
        assertArrayEquals(new int[]{1, 2, 1}, a.destinations(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GraphTopology.adjacent(new int[][]{{1}, {0}, {0}}, new int[][]{{1, 2, 1}, {0}, {}}));
        assertTrue(e.getMessage().contains("edge 0 -> 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GraphTopology.of(new int[][]{{3}, {}, {}}));
        assertThrows(IllegalArgumentException.class, () -> GraphTopology.of(new int[][]{{0}, null}));
        assertThrows(IllegalArgumentException.class, () -> GraphTopology.of(new int[0][]));
        assertThrows(IllegalArgumentException.class, () -> g.sources(3));
    }

    /** A random graph over p ranks: out-degrees 0..4, repeated edges and self-loops. */
    private static GraphTopology randomGraph(int p, long seed) {
        Random rnd = new Random(seed);
        int[][] dest = new int[p][];
        for (int r = 0; r < p; r++) {
            dest[r] = new int[rnd.nextInt(5)];
            for (int i = 0; i < dest[r].length; i++) {
                dest[r][i] = rnd.nextInt(p);
            }
        }
        return GraphTopology.of(dest);
    }

    /** The destination index at source {@code s} of block {@code i} of {@code d}'s receives (the k-th s ↔ the k-th d). */
    private static int edgeAtSource(NeighborTopology t, int d, int i) {
        int[] src = t.sources(d);
        int s = src[i];
        int k = 0;
        for (int j = 0; j < i; j++) {
            k += src[j] == s ? 1 : 0;
        }
        int[] out = t.destinations(s);
        for (int e = 0; e < out.length; e++) {
            if (out[e] == d && k-- == 0) {
                return e;
            }
        }
        throw new AssertionError("no edge " + s + " -> " + d);
    }

    private static long sendCount(int s, int e, int rep) {
        return (s + 3L * e + rep) % 5;                                   // 0 included
    }

    private static double value(int s, int e, long j, int rep) {
        return s * 1000.0 + e * 10.0 + j + rep * 0.5;
    }

    private static void vectorForms(int p, long seed) {
        GraphTopology topo = randomGraph(p, seed);
        try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                int me = rank.id();
                Neighborhood nb = rank.p2p().neighborhood(topo);
                int in = nb.indegree();
                int out = nb.outdegree();
                for (int rep = 0; rep < 4; rep++) {
                    // alltoallv: send blocks in reverse order with a gap of one element each, receive with a gap of two
                    long[] sc = new long[out];
                    long[] sd = new long[out];
                    long at = 1;
                    for (int e = out - 1; e >= 0; e--) {
                        sc[e] = sendCount(me, e, rep);
                        sd[e] = at;
                        at += sc[e] + 1;
                    }
                    MemorySegment send = rank.allocate(at * 8);
                    for (int e = 0; e < out; e++) {
                        for (long j = 0; j < sc[e]; j++) {
                            send.setAtIndex(ValueLayout.JAVA_DOUBLE, sd[e] + j, value(me, e, j, rep));
                        }
                    }
                    long[] rc = new long[in];
                    long[] rd = new long[in];
                    long rat = 0;
                    int[] src = topo.sources(me);
                    for (int i = 0; i < in; i++) {
                        rc[i] = sendCount(src[i], edgeAtSource(topo, me, i), rep);
                        rd[i] = rat;
                        rat += rc[i] + 2;
                    }
                    MemorySegment recv = rank.allocate(Math.max(8, rat * 8));
                    recv.fill((byte) 0);
                    Request r = nb.ialltoallv(send, sc, sd, recv, rc, rd, DType.F64);
                    if (rep % 2 == 0) {
                        r.await();
                    } else {
                        r.toFuture().join();                              // the future drives it on the rank's thread
                    }
                    for (int i = 0; i < in; i++) {
                        int e = edgeAtSource(topo, me, i);
                        for (long j = 0; j < rc[i]; j++) {
                            assertEquals(value(src[i], e, j, rep), recv.getAtIndex(ValueLayout.JAVA_DOUBLE, rd[i] + j),
                                    "alltoallv p=" + p + " rank " + me + " block " + i + " element " + j);
                        }
                        if (rc[i] > 0 || i + 1 < in) {
                            assertEquals(0.0, recv.getAtIndex(ValueLayout.JAVA_DOUBLE, rd[i] + rc[i]), "gap untouched");
                        }
                    }
                    // allgatherv: my count is (me + rep) % 4; block i at a stride of 5 elements
                    long mine = (me + rep) % 4;
                    MemorySegment s2 = rank.allocate(Math.max(8, mine * 8));
                    for (long j = 0; j < mine; j++) {
                        s2.setAtIndex(ValueLayout.JAVA_DOUBLE, j, value(me, 0, j, rep));
                    }
                    long[] gc = new long[in];
                    long[] gd = new long[in];
                    for (int i = 0; i < in; i++) {
                        gc[i] = (src[i] + rep) % 4;
                        gd[i] = 5L * i;
                    }
                    MemorySegment r2 = rank.allocate(Math.max(8, 5L * in * 8));
                    nb.allgatherv(s2, mine, r2, gc, gd, DType.F64);
                    for (int i = 0; i < in; i++) {
                        for (long j = 0; j < gc[i]; j++) {
                            assertEquals(value(src[i], 0, j, rep), r2.getAtIndex(ValueLayout.JAVA_DOUBLE, gd[i] + j),
                                    "allgatherv p=" + p + " rank " + me + " block " + i);
                        }
                    }
                    // alltoall and allgather of 3 longs per block, non-blocking, both outstanding at once
                    MemorySegment s3 = rank.allocate(Math.max(1, out) * 24L);
                    for (int e = 0; e < out; e++) {
                        for (int j = 0; j < 3; j++) {
                            s3.setAtIndex(ValueLayout.JAVA_LONG, 3L * e + j, me * 100L + e * 10 + j + rep);
                        }
                    }
                    MemorySegment r3 = rank.allocate(Math.max(1, in) * 24L);
                    MemorySegment s4 = rank.allocate(24);
                    for (int j = 0; j < 3; j++) {
                        s4.setAtIndex(ValueLayout.JAVA_LONG, j, me * 7L + j + rep);
                    }
                    MemorySegment r4 = rank.allocate(Math.max(1, in) * 24L);
                    Request a = nb.ialltoall(s3.asSlice(0, out * 24L), r3);
                    Request g = nb.iallgather(s4, r4);
                    Request.awaitAll(g, a);
                    for (int i = 0; i < in; i++) {
                        int e = edgeAtSource(topo, me, i);
                        for (int j = 0; j < 3; j++) {
                            assertEquals(src[i] * 100L + e * 10 + j + rep, r3.getAtIndex(ValueLayout.JAVA_LONG, 3L * i + j));
                            assertEquals(src[i] * 7L + j + rep, r4.getAtIndex(ValueLayout.JAVA_LONG, 3L * i + j));
                        }
                    }
                }
            });
        }
    }

    @Test
    void randomGraphsAtEveryTeamSize() {
        for (int p : new int[]{1, 2, 3, 5, 8}) {
            for (long seed = 1; seed <= 3; seed++) {
                vectorForms(p, seed * 31 + p);
            }
        }
    }

    @Test
    void gridVectorFormMatchesItsUniformForm() {
        CartesianTopology topo = CartesianTopology.of(new int[]{3}, new boolean[]{false});
        try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                Neighborhood nb = rank.p2p().neighborhood(topo);
                int me = rank.id();
                MemorySegment send = rank.allocate(2 * 4 * 4);
                for (int i = 0; i < 8; i++) {
                    send.setAtIndex(ValueLayout.JAVA_INT, i, me * 100 + i);
                }
                MemorySegment v = rank.allocate(32);
                MemorySegment u = rank.allocate(32);
                v.fill((byte) 1);
                u.fill((byte) 1);
                nb.alltoallv(send, new long[]{4, 4}, new long[]{0, 4}, v, new long[]{4, 4}, new long[]{0, 4}, DType.I32);
                nb.alltoall(send, u);
                assertEquals(-1, v.mismatch(u), "rank " + me);             // PROC_NULL blocks untouched in both
            });
        }
    }

    @Test
    void countsTheRanksDisagreeOnFailTheReceiverClearly() {
        GraphTopology topo = GraphTopology.of(new int[][]{{1, 1}, {}});
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                Neighborhood nb = rank.p2p().neighborhood(topo);
                MemorySegment buf = rank.allocate(64);
                if (rank.id() == 0) {
                    nb.alltoallv(buf, new long[]{2, 3}, new long[]{0, 2}, buf.asSlice(0, 0), new long[0], new long[0], DType.F64);
                } else {
                    CollectiveMismatchException shorter = assertThrows(CollectiveMismatchException.class, () -> nb.alltoallv(
                            buf.asSlice(0, 0), new long[0], new long[0], buf, new long[]{3, 3}, new long[]{0, 3}, DType.F64));
                    assertTrue(shorter.getMessage().contains("block 0 from rank 0 brought 16 bytes"), shorter.getMessage());
                }
                rank.barrier();
                if (rank.id() == 0) {
                    nb.alltoallv(buf, new long[]{2, 2}, new long[]{0, 2}, buf.asSlice(0, 0), new long[0], new long[0], DType.F64);
                } else {
                    assertThrows(MessageTruncatedException.class, () -> nb.alltoallv(buf.asSlice(0, 0), new long[0],
                            new long[0], buf, new long[]{1, 2}, new long[]{0, 2}, DType.F64));
                }
                rank.barrier();
            });
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        GraphTopology topo = GraphTopology.of(new int[][]{{1}, {0}});
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                Neighborhood nb = rank.p2p().neighborhood(topo);
                MemorySegment s = rank.allocate(64);
                MemorySegment r = rank.allocate(64);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> nb.alltoallv(s, new long[]{1, 1}, new long[]{0, 1}, r, new long[]{1}, new long[]{0}, DType.F64));
                assertTrue(e.getMessage().contains("sendCounts has 2 entries, this rank has 1 destinations"), e.getMessage());
                assertThrows(IllegalArgumentException.class,
                        () -> nb.alltoallv(s, new long[]{-1}, new long[]{0}, r, new long[]{1}, new long[]{0}, DType.F64));
                assertThrows(IllegalArgumentException.class,
                        () -> nb.alltoallv(s, new long[]{9}, new long[]{0}, r, new long[]{1}, new long[]{0}, DType.F64));
                assertThrows(IllegalArgumentException.class,
                        () -> nb.allgatherv(s, 1, r, new long[]{9}, new long[]{0}, DType.F64));
                assertThrows(IllegalArgumentException.class, () -> nb.allgather(s, s.asSlice(8, 56)));
                assertThrows(IllegalArgumentException.class, () -> nb.allgatherv(s, 1, r, new long[]{1}, new long[]{0}, null));
                assertThrows(IllegalArgumentException.class,
                        () -> rank.p2p().neighborhood(GraphTopology.of(new int[][]{{0}, {1}, {2}})));
                // nothing was sent: a matching pair of calls still meets
                nb.allgatherv(s, 2, r, new long[]{2}, new long[]{0}, DType.F64);
                assertEquals(Arrays.toString(new int[]{1 - rank.id()}), Arrays.toString(topo.sources(rank.id())));
            });
        }
    }
}
