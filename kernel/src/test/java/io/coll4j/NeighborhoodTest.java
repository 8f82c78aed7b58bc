package io.coll4j;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static io.coll4j.PointToPoint.PROC_NULL;
import static org.junit.jupiter.api.Assertions.*;

/** Cartesian grids and the neighborhood collectives built on point-to-point (issue 33, MPI-3 neighbors). */
class NeighborhoodTest {

    @Test
    void gridCoordinatesAndNeighbours() {
        CartesianTopology t = CartesianTopology.of(new int[]{2, 3}, new boolean[]{false, true});
        assertEquals(6, t.size());
        assertArrayEquals(new int[]{1, 2}, t.coords(5));
        assertEquals(5, t.rank(new int[]{1, 2}));
        assertEquals(3, t.rank(new int[]{1, 3}));                       // periodic in dimension 1
        assertEquals(PROC_NULL, t.rank(new int[]{2, 0}));               // not in dimension 0
        assertArrayEquals(new int[]{PROC_NULL, 3, 2, 1}, t.neighbors(0));
        assertArrayEquals(new int[]{2, PROC_NULL, 4, 3}, t.neighbors(5));
        assertThrows(IllegalArgumentException.class, () -> CartesianTopology.of(new int[]{0}, new boolean[]{true}));
        assertThrows(IllegalArgumentException.class, () -> CartesianTopology.of(new int[]{2}, new boolean[]{true, true}));
        assertThrows(IllegalArgumentException.class, () -> t.coords(6));
    }

    private static void run(int[] dims, boolean[] periodic, long block) {
        CartesianTopology topo = CartesianTopology.of(dims, periodic);
        int k = topo.neighborCount();
        try (Team team = Team.builder().ranks(topo.size()).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                int me = rank.id();
                int[] nb = topo.neighbors(me);
                for (int rep = 0; rep < 3; rep++) {
                    // allgather: my block is (me, rep); block i of recv must be neighbour i's, PROC_NULL's untouched
                    MemorySegment send = rank.allocate(block);
                    MemorySegment recv = rank.allocate(block * k);
                    recv.fill((byte) 0x5A);
                    for (long j = 0; j < block; j++) {
                        send.set(ValueLayout.JAVA_BYTE, j, (byte) (me * 17 + rep + j));
                    }
                    pp.neighborAllgather(topo, send, recv);
                    for (int i = 0; i < k; i++) {
                        for (long j = 0; j < block; j++) {
                            byte want = nb[i] == PROC_NULL ? 0x5A : (byte) (nb[i] * 17 + rep + j);
                            assertEquals(want, recv.get(ValueLayout.JAVA_BYTE, i * block + j), "allgather block " + i + " of rank " + me);
                        }
                    }
                    // alltoall: block i goes to neighbour i; I get from neighbour i its block towards me, i ^ 1
                    MemorySegment s2 = rank.allocate(block * k);
                    MemorySegment r2 = rank.allocate(block * k);
                    r2.fill((byte) 0x5A);
                    for (int i = 0; i < k; i++) {
                        for (long j = 0; j < block; j++) {
                            s2.set(ValueLayout.JAVA_BYTE, i * block + j, (byte) (me * 31 + i * 7 + rep + j));
                        }
                    }
                    pp.neighborAlltoall(topo, s2, r2);
                    for (int i = 0; i < k; i++) {
                        for (long j = 0; j < block; j++) {
                            byte want = nb[i] == PROC_NULL ? 0x5A : (byte) (nb[i] * 31 + (i ^ 1) * 7 + rep + j);
                            assertEquals(want, r2.get(ValueLayout.JAVA_BYTE, i * block + j), "alltoall block " + i + " of rank " + me);
                        }
                    }
                }
            });
        }
    }

    @Test
    void ringWithEdges() {
        run(new int[]{3}, new boolean[]{false}, 24);
    }

    @Test
    void torusOfTwoByTwoLargeBlocks() {
        run(new int[]{2, 2}, new boolean[]{true, true}, 10_000);         // both neighbours of a dimension are one rank
    }

    @Test
    void threeDimensionsMixed() {
        run(new int[]{2, 2, 2}, new boolean[]{true, false, true}, 8);
        run(new int[]{1, 5}, new boolean[]{true, false}, 1);           // a periodic dimension of one: myself twice
    }

    @Test
    void userWildcardsNeverTakeNeighbourMessages() {
        CartesianTopology topo = CartesianTopology.of(new int[]{2}, new boolean[]{true});
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                MemorySegment user = rank.allocate(64);
                MessageRequest any = pp.irecv(user, PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG);
                MemorySegment send = rank.allocate(8);
                send.set(ValueLayout.JAVA_LONG, 0, 40 + rank.id());
                MemorySegment recv = rank.allocate(16);
                pp.neighborAllgather(topo, send, recv);
                assertFalse(any.isDone());
                assertNull(pp.iprobe(PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG));
                assertEquals(40 + (1 - rank.id()), recv.get(ValueLayout.JAVA_LONG, 0));
                rank.barrier();                                         // the user messages only after both looked
                pp.send(send, 1 - rank.id(), 3);
                any.await();
                assertEquals(3, any.status().tag());
                assertEquals(8, any.status().bytes());
                assertThrows(IllegalArgumentException.class, () -> pp.neighborAllgather(
                        CartesianTopology.of(new int[]{3}, new boolean[]{true}), send, recv));
                assertThrows(IllegalArgumentException.class, () -> pp.neighborAlltoall(topo, rank.allocate(3), recv));
            });
        }
    }
}
