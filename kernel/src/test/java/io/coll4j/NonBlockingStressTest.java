package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random schedules of non-blocking, persistent and blocking collectives: up to 24 outstanding per rank,
 * sizes on both sides of the staged/sliced boundary, awaited, polled or left to the progress thread in
 * a rank-specific random order, with random compute between — every result checked. The issue order is
 * the same on every rank (the schedule's seed is shared); the completion order is each rank's own.
 */
class NonBlockingStressTest {
    static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;

    @ParameterizedTest
    @CsvSource({"2, false", "3, false", "5, false", "3, true"})
    void randomSchedules(int p, boolean progressThread) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Team team = Team.builder().ranks(p).progressThread(progressThread).maxSliceBytes(512)
                    .timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    int me = rank.id();
                    Random shared = new Random(42);
                    Random mine = new Random(1000 + me);
                    PersistentRequest persistent = null;
                    MemorySegment pSend = rank.allocate(8 * 300), pRecv = rank.allocate(8 * 300);
                    persistent = rank.allreduceInit(pSend, pRecv, 300, DType.I64, Op.SUM);
                    long pRound = 0;
                    for (int batch = 0; batch < 20; batch++) {
                        int k = 1 + shared.nextInt(24);
                        List<Request> reqs = new ArrayList<>();
                        List<Runnable> checks = new ArrayList<>();
                        for (int j = 0; j < k; j++) {
                            long n = switch (shared.nextInt(4)) {
                                case 0 -> shared.nextInt(4);
                                case 1 -> 1 + shared.nextInt(40);
                                default -> 1 + shared.nextInt(3000);
                            };
                            long salt = batch * 100L + j;
                            int kind = shared.nextInt(3);
                            MemorySegment send = rank.allocate(8 * n * p + 8), recv = rank.allocate(8 * n * p + 8);
                            for (long i = 0; i < n * p; i++) {
                                send.setAtIndex(L, i, v(me, i, salt));
                            }
                            int b = batch, jj = j;
                            if (kind == 0) {
                                reqs.add(rank.iallreduce(send, recv, n, DType.I64, Op.SUM));
                                checks.add(() -> {
                                    for (long i = 0; i < n; i++) {
                                        long want = 0;
                                        for (int q = 0; q < p; q++) {
                                            want += v(q, i, salt);
                                        }
                                        expect(problems, "allreduce b" + b + " #" + jj, want, recv.getAtIndex(L, i));
                                    }
                                });
                            } else if (kind == 1) {
                                reqs.add(rank.ireduceScatter(send, recv, n, DType.I64, Op.SUM));
                                checks.add(() -> {
                                    for (long i = 0; i < n; i++) {
                                        long want = 0;
                                        for (int q = 0; q < p; q++) {
                                            want += v(q, me * n + i, salt);
                                        }
                                        expect(problems, "reduce-scatter b" + b + " #" + jj, want, recv.getAtIndex(L, i));
                                    }
                                });
                            } else {
                                reqs.add(rank.iallgather(send, recv, n, DType.I64));
                                checks.add(() -> {
                                    for (int q = 0; q < p; q++) {
                                        for (long i = 0; i < n; i++) {
                                            expect(problems, "allgather b" + b + " #" + jj, v(q, i, salt), recv.getAtIndex(L, q * n + i));
                                        }
                                    }
                                });
                            }
                        }
                        // a blocking collective and a persistent round in the middle of the outstanding ones
                        if (shared.nextBoolean()) {
                            for (long i = 0; i < 300; i++) {
                                pSend.setAtIndex(L, i, v(me, i, pRound));
                            }
                            persistent.start();
                            long[] x = {me};
                            rank.allreduce(x, x, Op.SUM);
                            expect(problems, "blocking between", (long) p * (p - 1) / 2, x[0]);
                            persistent.await();
                            for (long i = 0; i < 300; i++) {
                                long want = 0;
                                for (int q = 0; q < p; q++) {
                                    want += v(q, i, pRound);
                                }
                                expect(problems, "persistent round " + pRound, want, pRecv.getAtIndex(L, i));
                            }
                            pRound++;
                        }
                        if (mine.nextInt(4) == 0) {
                            Thread.sleep(mine.nextInt(3));   // a rank that goes away for a while
                        }
                        List<Integer> order = new ArrayList<>();
                        for (int j = 0; j < k; j++) {
                            order.add(j);
                        }
                        java.util.Collections.shuffle(order, mine);
                        for (int j : order) {
                            switch (mine.nextInt(3)) {
                                case 0 -> reqs.get(j).await();
                                case 1 -> {
                                    while (!reqs.get(j).isDone()) {
                                        Thread.onSpinWait();
                                    }
                                }
                                default -> {
                                    if (progressThread) {
                                        reqs.get(j).toFuture().get();
                                    } else if (!reqs.get(j).await(Duration.ofSeconds(20))) {
                                        // not a wrong result: say so, and do not read a buffer still being written
                                        problems.add("batch " + batch + " request " + j + " not done after a 20 s await: "
                                                + reqs.get(j));
                                        continue;
                                    }
                                }
                            }
                            checks.get(j).run();
                        }
                    }
                    persistent.close();
                });
            }
        });
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, e.g. " + problems.peek());
    }

    static long v(int rank, long i, long salt) {
        return Values.mix(salt * 7919 + rank * 104_729L + i);
    }

    private static void expect(Queue<String> problems, String what, long want, long got) {
        if (want != got && problems.size() < 20) {
            problems.add(what + ": " + got + " != " + want);
        }
    }
}
