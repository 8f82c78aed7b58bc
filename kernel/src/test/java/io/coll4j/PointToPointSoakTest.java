package io.coll4j;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static io.coll4j.PointToPoint.ANY_SOURCE;
import static io.coll4j.PointToPoint.ANY_TAG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bounded randomized soak of point-to-point (~8 s): random teams of 2..8 ranks, rounds of random traffic planned
 * from a shared seed (0 B to 1 MiB, across the inline limit and the crossover), each rank receiving a round in one
 * style — exact, ANY_SOURCE, ANY_TAG or both wildcards — with its waits shuffled. Every message must arrive once, intact,
 * and (tag = its sequence number on the pair) in the order sent from each source where a wildcard tag could have
 * taken either. {@code collbench p2p-soak} is the long form (probes, blocking sends, truncations, 4 MiB).
 */
class PointToPointSoakTest {

    @Test
    void randomTraffic() {
        long seed = System.nanoTime();
        Random rnd = new Random(seed);
        long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        AtomicLong messages = new AtomicLong();
        int teams = 0;
        while (System.nanoTime() < deadline || teams < 3) {
            int p = 2 + rnd.nextInt(7);
            long teamSeed = rnd.nextLong();
            teams++;
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    for (int round = 0; round < 6; round++) {
                        round(rank, new Random(teamSeed + round), messages, "seed " + seed + " team " + teamSeed + " round " + round);
                    }
                });
            }
        }
        System.out.println("point-to-point soak: " + messages.get() + " messages on " + teams + " teams, seed " + seed);
        assertTrue(messages.get() > 100, "messages " + messages.get());
    }

    private static long[][][] plan(Random rnd, int p) {
        long[][][] sizes = new long[p][p][];
        for (int s = 0; s < p; s++) {
            for (int d = 0; d < p; d++) {
                sizes[s][d] = new long[rnd.nextInt(6)];
                for (int k = 0; k < sizes[s][d].length; k++) {
                    int c = rnd.nextInt(100);
                    sizes[s][d][k] = c < 30 ? rnd.nextInt(41) : c < 65 ? 41 + rnd.nextInt(3000) : c < 98 ? rnd.nextInt(20_000)
                            : 1 << 20;
                }
            }
        }
        return sizes;
    }

    private static byte b(int s, int d, int k, long i) {
        return (byte) (s * 131 + d * 31 + k * 7 + i + (i >>> 9));
    }

    private static void round(Rank rank, Random shared, AtomicLong count, String where) {
        int p = rank.size();
        int me = rank.id();
        long[][][] sizes = plan(shared, p);
        int mode = new Random(shared.nextLong() + me).nextInt(4);      // 0 exact, 1 any source, 2 any tag, 3 both
        PointToPoint pp = rank.p2p();
        List<Request> sends = new ArrayList<>();
        for (int d = 0; d < p; d++) {
            for (int k = 0; k < sizes[me][d].length; k++) {
                MemorySegment m = MemorySegment.ofArray(new byte[(int) sizes[me][d][k]]);
                for (long i = 0; i < m.byteSize(); i++) {
                    m.set(ValueLayout.JAVA_BYTE, i, b(me, d, k, i));
                }
                sends.add(pp.isend(m, d, k));
            }
        }
        long max = 0;
        for (int s = 0; s < p; s++) {
            for (long z : sizes[s][me]) {
                max = Math.max(max, z);
            }
        }
        List<MessageRequest> recvs = new ArrayList<>();
        List<MemorySegment> bufs = new ArrayList<>();
        for (int s = 0; s < p; s++) {
            for (int k = 0; k < sizes[s][me].length; k++) {
                MemorySegment buf = rank.allocate(mode == 0 ? sizes[s][me][k] : max);
                bufs.add(buf);
                recvs.add(pp.irecv(buf, mode == 0 || mode == 2 ? s : ANY_SOURCE, mode == 0 || mode == 1 ? k : ANY_TAG));
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < recvs.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(me));
        for (int i : order) {
            recvs.get(i).await();
        }
        boolean[][] got = new boolean[p][];
        int[] last = new int[p];
        for (int s = 0; s < p; s++) {
            got[s] = new boolean[sizes[s][me].length];
            last[s] = -1;
        }
        for (int i = 0; i < recvs.size(); i++) {
            MessageStatus st = recvs.get(i).status();
            int s = st.source();
            int k = st.tag();
            assertTrue(!got[s][k], where + ": message " + k + " of rank " + s + " received twice");
            got[s][k] = true;
            assertEquals(sizes[s][me][k], st.bytes(), where);
            if (mode >= 2) {
                assertTrue(k > last[s], where + ": message " + k + " of rank " + s + " after " + last[s] + " (overtaken)");
                last[s] = k;
            }
            MemorySegment buf = bufs.get(i);
            for (long j = 0; j < st.bytes(); j++) {
                if (buf.get(ValueLayout.JAVA_BYTE, j) != b(s, me, k, j)) {
                    throw new AssertionError(where + ": message " + k + " of rank " + s + " corrupted at byte " + j);
                }
            }
        }
        Collections.shuffle(sends, new Random(me + 1));
        Request.awaitAll(sends.toArray(new Request[0]));
        long mine = recvs.size();
        long all = rank.allreduce(mine, io.coll4j.reductions.Op.SUM);
        if (me == 0) {
            count.addAndGet(all);
        }
        rank.barrier();
    }
}
