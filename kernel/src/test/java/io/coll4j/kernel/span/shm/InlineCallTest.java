package io.coll4j.kernel.span.shm;

import io.coll4j.CollectiveMismatchException;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The blocking calls that run outside the channel's queue ({@link InlineCall}: allreduce and bcast up to 48 bytes,
 * barrier) between 2, 3 and 5 "processes" that are threads of this JVM, each with a {@link SharedMemorySpan} of one
 * job. A process whose result buffer is a heap array, or whose channel has a non-blocking call queued, takes the
 * queued path in the same round as its peers on the inline one: every result is bitwise the scalar fold in ascending
 * process order; a mismatch, a user op that throws and a late peer behave as on the queued path.
 */
class InlineCallTest {
    private static void job(int processes, SpanJobs.Body body) throws InterruptedException {
        SpanJobs.run("inline-test", processes, 8L << 20, body);
    }

    private static double[] vector(int q, int count, long seed) {
        Random r = new Random(seed * 31 + q);
        double[] v = new double[count];
        for (int i = 0; i < count; i++) {
            v[i] = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(12));
        }
        return v;
    }

    private static double[] ascending(int processes, int count, long seed, Op op) {
        double[] acc = vector(0, count, seed);
        for (int q = 1; q < processes; q++) {
            double[] v = vector(q, count, seed);
            for (int i = 0; i < count; i++) {
                acc[i] = op == Op.MAX ? Math.max(acc[i], v[i]) : acc[i] + v[i];
            }
        }
        return acc;
    }

    private static double[] read(MemorySegment s, int count) {
        double[] a = new double[count];
        MemorySegment.copy(s, ValueLayout.JAVA_DOUBLE, 0, a, 0, count);
        return a;
    }

    @Test
    void inlineAndQueuedProcessesMeetInOneRoundAndFoldInAscendingOrder() throws InterruptedException {
        UserOp plus = UserOp.ofDoubles("plus", true, Double::sum);
        for (int processes : new int[]{2, 3, 5}) {
            int procs = processes;
            job(procs, (span, me) -> {
                try (Arena arena = Arena.ofConfined()) {
                    long seed = 0;
                    for (int count = 0; count <= 6; count++) {   // 0 to 48 bytes: every size a line carries
                        for (Op op : new Op[]{Op.SUM, Op.MAX, Op.USER}) {
                            for (boolean inPlace : new boolean[]{false, true}) {
                                seed++;
                                // a heap result sends this process down the queued path, in a different process each time
                                boolean heap = (me + seed) % 3 == 0;
                                double[] mine = vector(me, count, seed);
                                MemorySegment send = arena.allocate(8L * count + 8, 64).asSlice(0, 8L * count)
                                        .copyFrom(MemorySegment.ofArray(mine));
                                MemorySegment recv = heap ? MemorySegment.ofArray(new double[count])
                                        : arena.allocate(8L * count + 8, 64).asSlice(0, 8L * count);
                                if (inPlace) {
                                    recv.copyFrom(send);
                                }
                                if (op == Op.USER) {
                                    span.allreduce(0, inPlace ? null : send, recv, count, plus);
                                } else {
                                    span.allreduce(0, inPlace ? null : send, recv, count, DType.F64, op);
                                }
                                String what = procs + " processes, count " + count + " " + op + (heap ? " heap" : " native")
                                        + (inPlace ? " in place" : "") + ", process " + me;
                                assertArrayEquals(ascending(procs, count, seed, op == Op.MAX ? Op.MAX : Op.SUM),
                                        read(recv, count), what);
                                assertArrayEquals(mine, read(send, count), what + ": the send buffer changed");
                            }
                        }
                    }
                    // bcast from every root, 0 to 48 bytes, and barriers between them
                    for (int root = 0; root < procs; root++) {
                        for (int count = 0; count <= 6; count++) {
                            double[] want = vector(root, count, 500 + count);
                            MemorySegment buf = MemorySegment.ofArray(me == root ? want.clone() : new double[count]);
                            span.bcast(0, buf, count, DType.F64, root);
                            assertArrayEquals(want, read(buf, count), "bcast from " + root + ", count " + count);
                            span.barrier(0);
                        }
                    }
                }
            });
        }
    }

    /**
     * Process 0 has a non-blocking allreduce queued on the channel when it calls the blocking ones (they queue
     * behind it and its polls move it); the others wait for theirs first and run the blocking calls inline.
     */
    @Test
    void aCallBehindAQueuedRequestMeetsTheInlineOnes() throws InterruptedException {
        job(3, (span, me) -> {
            for (int i = 0; i < 200; i++) {
                MemorySegment nb = MemorySegment.ofArray(new double[]{me + i});
                ProcessSpan.Pending p = span.iallreduce(0, null, nb, 1, DType.F64, Op.SUM);
                if (me != 0) {
                    while (!p.test()) {
                        Thread.onSpinWait();
                    }
                }
                MemorySegment b = MemorySegment.ofArray(new double[]{me == 1 ? 7 + i : 0});
                span.bcast(0, b, 1, DType.F64, 1);
                span.barrier(0);
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment r = arena.allocate(16, 64);
                    r.setAtIndex(ValueLayout.JAVA_DOUBLE, 0, me);
                    r.setAtIndex(ValueLayout.JAVA_DOUBLE, 1, -me * i);
                    span.allreduce(0, null, r, 2, DType.F64, Op.SUM);
                    assertEquals(3.0, r.getAtIndex(ValueLayout.JAVA_DOUBLE, 0), "round " + i);
                    assertEquals(0.0 - 3.0 * i, r.getAtIndex(ValueLayout.JAVA_DOUBLE, 1), "round " + i);
                }
                while (!p.test()) {
                    Thread.onSpinWait();
                }
                assertEquals(3.0 * i + 3, read(nb, 1)[0], "the request of round " + i);
                assertEquals(7.0 + i, read(b, 1)[0], "the bcast of round " + i);
            }
        });
    }

    @Test
    void aMismatchFailsEveryProcessAndTheChannelAfterIt() throws InterruptedException {
        job(2, (span, me) -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment r = arena.allocate(16, 64);
                CollectiveMismatchException e = assertThrows(CollectiveMismatchException.class,
                        () -> span.allreduce(0, null, r, me + 1, DType.F64, Op.SUM));
                assertTrue(e.getMessage().contains("count 1") && e.getMessage().contains("count 2"), e.getMessage());
                IllegalStateException after = assertThrows(IllegalStateException.class, () -> span.barrier(0));
                assertTrue(after.getMessage().contains("an earlier operation failed"), after.getMessage());
            }
        });
    }

    @Test
    void aUserOpThatThrowsFailsItsProcessAloneAndTheNextCallRuns() throws InterruptedException {
        job(2, (span, me) -> {
            UserOp op = UserOp.ofDoubles("picky", true, (a, b) -> {
                if (me == 1) {
                    throw new ArithmeticException("process 1 refuses");
                }
                return a + b;
            });
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment r = arena.allocate(8, 64);
                r.set(ValueLayout.JAVA_DOUBLE, 0, me + 1);
                if (me == 1) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, () -> span.allreduce(0, null, r, 1, op));
                    assertTrue(e.getMessage().contains("process 1 refuses"), e.getMessage());
                } else {
                    span.allreduce(0, null, r, 1, op);
                    assertEquals(3.0, r.get(ValueLayout.JAVA_DOUBLE, 0));
                }
                r.set(ValueLayout.JAVA_DOUBLE, 0, me + 1);
                span.allreduce(0, null, r, 1, DType.F64, Op.SUM);
                assertEquals(3.0, r.get(ValueLayout.JAVA_DOUBLE, 0));
            }
        });
    }

    /** A peer that arrives 200 ms late: the wait spins, yields, naps, and still completes with the peer's value. */
    @Test
    void aLatePeerIsWaitedFor() throws InterruptedException {
        job(2, (span, me) -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment r = arena.allocate(8, 64);
                for (int i = 0; i < 3; i++) {
                    if (me == i % 2) {
                        Thread.sleep(200);
                    }
                    r.set(ValueLayout.JAVA_DOUBLE, 0, me + 10 * i);
                    span.allreduce(0, null, r, 1, DType.F64, Op.SUM);
                    assertEquals(1.0 + 20 * i, r.get(ValueLayout.JAVA_DOUBLE, 0));
                }
            }
        });
    }
}
