package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TeamLifecycleTest {

    @Test
    void runTwiceContinuesTheSequence() {
        try (Team team = Team.builder().ranks(3).build()) {
            for (int round = 0; round < 3; round++) {
                int base = round;
                team.run(rank -> {
                    double[] v = {rank.id() + base};
                    double[] out = new double[1];
                    rank.allreduce(v, out, Op.SUM);
                    assertEquals(3.0 + 3 * base, out[0]);
                });
            }
        }
    }

    /** Threads the caller owns (JMH workers, a pool) adopt ranks with attach. */
    @Test
    void attachedThreadsRunCollectives() throws Exception {
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
            for (int round = 0; round < 2; round++) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                double[][] results = new double[2][];
                CountDownLatch done = new CountDownLatch(2);
                for (int id = 0; id < 2; id++) {
                    int me = id;
                    Thread t = new Thread(() -> {
                        try (Rank rank = team.attach(me)) {
                            double[] out = new double[3];
                            for (int i = 0; i < 1000; i++) {
                                rank.allreduce(new double[]{me, 1, i}, out, Op.MAX);
                            }
                            results[me] = out;
                        } catch (Throwable e) {
                            failure.set(e);
                        } finally {
                            done.countDown();
                        }
                    });
                    t.start();
                }
                done.await();
                assertNull(failure.get());
                assertArrayEquals(new double[]{1, 1, 999}, results[0]);
                assertArrayEquals(results[0], results[1]);
            }
            Rank r0 = team.attach(0);
            assertThrows(IllegalStateException.class, () -> team.attach(0), "attached twice");
            assertThrows(IllegalStateException.class, () -> team.run(rank -> { }), "run while a rank is attached");
            r0.close();
        }
    }

    @Test
    void bindingIsReported() {
        try (Team team = Team.builder().ranks(2).build()) {
            team.run(rank -> {
                assertTrue(rank.binding() != null, "binding result recorded");
                if (rank.binding().bound()) {
                    assertEquals(rank.pu().osIndex(), rank.binding().requestedOsPu());
                }
            });
        }
    }

    @Test
    void plansPickOnceAndExplain() {
        try (Team team = Team.builder().ranks(2).build()) {
            team.run(rank -> {
                CollectivePlan plan = rank.plan(Collective.ALLREDUCE, 4, DType.F64, Op.SUM);
                MemorySegment buf = rank.allocate(32);
                for (int i = 0; i < 10; i++) {
                    buf.fill((byte) 0);
                    buf.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0, 1.0);
                    plan.execute(buf, buf);
                    assertEquals(2.0, buf.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0));
                }
                String why = plan.explain();
                assertTrue(why.contains(plan.algorithm().name()) && why.contains("*"), why);
            });
        }
    }

    /**
     * Native memory is freed on close: 150 teams, each allocating 16 MiB of rank memory and scratch,
     * must not grow the resident set by more than a fraction of what they allocated in total (2.4 GiB).
     */
    @Test
    void closeFreesNativeMemory() throws IOException {
        long before = rssBytes();
        for (int i = 0; i < 150; i++) {
            try (Team team = Team.builder().ranks(2).build()) {
                team.run(rank -> {
                    MemorySegment a = rank.allocate(4 << 20);
                    MemorySegment b = rank.allocate(4 << 20);
                    rank.allreduce(a, b, (4 << 20) / 8, DType.F64, Op.SUM);
                });
                assertTrue(team.arenaBytes() >= 16 << 20);
            }
        }
        long grown = rssBytes() - before;
        assertTrue(grown < 512L << 20, "resident set grew by " + (grown >> 20) + " MiB over 150 create/close cycles");
    }

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        return 0;
    }
}
