package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 100 000 mixed collectives per team size (barrier, bcast, reduce, allreduce, reduce-scatter, allgather)
 * with random counts, dtypes, ops and roots — the same random sequence on every rank — each checked
 * against the reference. The algorithm is whatever the selector picks, so back-to-back collectives of
 * different algorithms exercise the lag check and the parity buffers.
 */
class MixedStressTest {
    static final int CALLS = 100_000;

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8})
    void hundredThousandMixedCollectives(int p) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(60)).build()) {
            team.run(rank -> {
                SplittableRandom rnd = new SplittableRandom(4242);
                int r = rank.id();
                int maxCount = 2048;
                MemorySegment a = rank.allocate((long) maxCount * 8 * p);
                MemorySegment b = rank.allocate((long) maxCount * 8 * p);
                for (int n = 0; n < CALLS && failures.isEmpty(); n++) {
                    final long call = n;
                    Collective c = Collective.values()[rnd.nextInt(Collective.values().length)];
                    int count = rnd.nextInt(10) == 0 ? rnd.nextInt(maxCount) : rnd.nextInt(24);
                    DType t = DType.values()[rnd.nextInt(4)];
                    Op op = CollectiveCorrectnessTest.validOps(t).get(rnd.nextInt(CollectiveCorrectnessTest.validOps(t).size()));
                    int root = rnd.nextInt(p);
                    boolean inPlace = rnd.nextBoolean();
                    long bytes = (long) count * t.size();
                    String tag = "call " + call + " " + c.cliName() + " count=" + count + " " + t + " " + op + " root " + root;
                    switch (c) {
                        case BARRIER -> rank.barrier();
                        case BCAST -> {
                            MemorySegment buf = a.asSlice(0, bytes);
                            if (r == root) {
                                Values.fill(buf, 0, t, null, root, count, call, true);
                            }
                            rank.bcast(buf, count, t, root);
                            check(failures, tag, t, count, i -> Values.inputBits(t, null, root, i, call, true), buf, 0);
                        }
                        case ALLREDUCE, REDUCE -> {
                            MemorySegment send = a.asSlice(0, bytes);
                            Values.fill(send, 0, t, op, r, count, call, true);
                            MemorySegment recv = inPlace ? send : b.asSlice(0, bytes);
                            if (c == Collective.ALLREDUCE) {
                                rank.allreduce(send, recv, count, t, op);
                            } else {
                                rank.reduce(send, recv, count, t, op, root);
                            }
                            if (c == Collective.ALLREDUCE || r == root) {
                                check(failures, tag, t, count, i -> Values.foldBits(t, op, p, i, call, true), recv, 0);
                            }
                        }
                        case REDUCE_SCATTER -> {
                            MemorySegment send = a.asSlice(0, bytes * p);
                            Values.fill(send, 0, t, op, r, (long) count * p, call, true);
                            MemorySegment recv = b.asSlice(0, bytes);
                            rank.reduceScatter(send, recv, count, t, op);
                            check(failures, tag, t, count, i -> Values.foldBits(t, op, p, (long) r * count + i, call, true), recv, 0);
                        }
                        case ALLGATHER -> {
                            MemorySegment recv = b.asSlice(0, bytes * p);
                            MemorySegment send = inPlace ? recv.asSlice(r * bytes, bytes) : a.asSlice(0, bytes);
                            Values.fill(send, 0, t, null, r, count, call, true);
                            rank.allgather(send, recv, count, t);
                            for (int q = 0; q < p; q++) {
                                int from = q;
                                check(failures, tag + " block " + q, t, count, i -> Values.inputBits(t, null, from, i, call, true),
                                        recv, q * bytes);
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> "p=" + p + ": " + failures.stream().limit(5).toList());
    }

    interface Expected {
        long bits(long i);
    }

    static void check(Queue<String> failures, String tag, DType t, long count, Expected e, MemorySegment seg, long off) {
        for (long i = 0; i < count; i++) {
            long want = e.bits(i);
            long got = Values.read(seg, off, t, i);
            if (!Values.same(t, want, got)) {
                failures.add(tag + " [" + i + "] expected " + Values.show(t, want) + " got " + Values.show(t, got));
                return;
            }
        }
    }
}
