package io.coll4j.kernel.span.shm;

import io.coll4j.CollectiveMismatchException;
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
 * The staged allreduce's two folds ({@link MaSlicedFold}, {@link Ops.Fold}) on buffers outside the mapping (heap
 * arrays and the test's own native memory), between 2 and 3 "processes" that are threads of this JVM, each with a
 * {@link SharedMemorySpan} of one shared-mapping job: the result is bitwise the scalar fold in ascending process
 * order in every process, for counts 0, 1, odd, not divisible by the process count and longer than one slot, in
 * place and out of place; AVG folds as SUM (the callers divide) and a user op stays replicated; two processes that
 * pick different folds get a mismatch naming both.
 */
class MaSlicedAllreduceTest {
    /** 0, 1, odd and prime to 2 and 3, and 2.4 MB: four ma-sliced slices of a 1 MiB slot across 2 processes. */
    private static final long[] COUNTS = {0, 1, 7, 1001, 300_001};
    private static final double[] SCALES = {1, 1e3, 1e6, 1e9, 1e12};

    private static void job(int processes, SpanJobs.Body body) throws InterruptedException {
        SpanJobs.run("ma-test", processes, 96L << 20, body);
    }

    /** Process q's vector: values whose sums round differently in another order. */
    private static double[] vector(int q, long count, long seed) {
        Random r = new Random(seed * 31 + q);
        double[] v = new double[(int) count];
        for (int i = 0; i < v.length; i++) {
            v[i] = (r.nextDouble() - 0.5) * SCALES[r.nextInt(SCALES.length)];
        }
        return v;
    }

    private static double[] expected(int processes, long count, long seed, Op op) {
        double[] acc = vector(0, count, seed);
        for (int q = 1; q < processes; q++) {
            double[] v = vector(q, count, seed);
            for (int i = 0; i < acc.length; i++) {
                acc[i] = op == Op.MAX ? Math.max(acc[i], v[i]) : acc[i] + v[i];   // AVG folds as SUM
            }
        }
        return acc;
    }

    private static double[] read(MemorySegment s, long count) {
        double[] a = new double[(int) count];
        MemorySegment.copy(s, ValueLayout.JAVA_DOUBLE, 0, a, 0, a.length);
        return a;
    }

    /** Every count, op, buffer kind and form under {@code mode}, checked bitwise against the ascending scalar fold. */
    private static void allForms(int processes, int mode) throws InterruptedException {
        job(processes, (span, me) -> {
            span.allreduceMode(mode);
            try (Arena arena = Arena.ofConfined()) {
                long seed = 0;
                for (long count : COUNTS) {
                    // longer than a slot: SUM only (the ops differ in the reducer, not in the slicing)
                    for (Op op : count > 1001 ? new Op[]{Op.SUM} : new Op[]{Op.SUM, Op.AVG, Op.MAX}) {
                        for (boolean heap : new boolean[]{true, false}) {
                            for (boolean inPlace : new boolean[]{false, true}) {
                                seed++;
                                double[] mine = vector(me, count, seed);
                                MemorySegment send = heap ? MemorySegment.ofArray(mine.clone())
                                        : arena.allocate(8 * count + 8, 64).asSlice(0, 8 * count).copyFrom(MemorySegment.ofArray(mine));
                                MemorySegment recv = inPlace ? send : heap ? MemorySegment.ofArray(new double[(int) count])
                                        : arena.allocate(8 * count + 8, 64).asSlice(0, 8 * count);
                                span.allreduce(0, inPlace ? null : send, recv, count, DType.F64, op);
                                String what = "count " + count + " " + op + (heap ? " heap" : " native")
                                        + (inPlace ? " in place" : "") + " process " + me;
                                assertArrayEquals(expected(processes, count, seed, op), read(recv, count), what);
                                if (!inPlace) {
                                    assertArrayEquals(mine, read(send, count), what + ": the send buffer changed");
                                }
                            }
                        }
                    }
                }
                // a user op folds replicated whatever the mode (its blocks would stay unwritten if it threw)
                UserOp plus = UserOp.ofDoubles("plus", true, Double::sum);
                long count = 200_001;
                double[] mine = vector(me, count, 99);
                MemorySegment buf = MemorySegment.ofArray(mine.clone());
                span.allreduce(0, null, buf, count, plus);
                assertArrayEquals(expected(processes, count, 99, Op.SUM), read(buf, count), "user op, process " + me);
            }
        });
    }

    @Test
    void maSlicedOnTwoAndThreeProcessesIsTheAscendingFold() throws InterruptedException {
        allForms(2, StagedAllreduce.MA_SLICED);
        allForms(3, StagedAllreduce.MA_SLICED);
    }

    @Test
    void autoStaysTheAscendingFold() throws InterruptedException {
        // auto picks replicated below its crossover and ma-sliced above it within one job
        allForms(2, StagedAllreduce.AUTO);
    }

    /**
     * Buffers from the span's {@code allocate} lie in the mapping: the allreduce pushes (each process folds its share
     * of every send buffer into every receive buffer), through the Java fold below {@link Ops#PUSH_NT_BYTES} and the
     * native streaming fold ({@link StreamingPush}) from there on, in 1 MiB calls with a shorter last one. Bitwise the
     * ascending fold in every process, in place and out of place, for 2 and 3 processes.
     */
    @Test
    void thePushOnMappingBuffersIsTheAscendingFold() throws InterruptedException {
        long big = Ops.PUSH_NT_BYTES / 8 + 70_001;
        for (int processes = 2; processes <= 3; processes++) {
            int procs = processes;
            job(procs, (span, me) -> {
                long seed = 1000;
                for (long count : new long[]{100_001, big}) {
                    for (Op op : new Op[]{Op.SUM, Op.MAX}) {
                        for (boolean inPlace : new boolean[]{false, true}) {
                            seed++;
                            double[] mine = vector(me, count, seed);
                            MemorySegment send = span.allocate(8 * count).copyFrom(MemorySegment.ofArray(mine));
                            MemorySegment recv = inPlace ? send : span.allocate(8 * count);
                            span.allreduce(0, inPlace ? null : send, recv, count, DType.F64, op);
                            String what = "push, count " + count + " " + op + (inPlace ? " in place" : "")
                                    + ", process " + me + " of " + procs;
                            assertArrayEquals(expected(procs, count, seed, op), read(recv, count), what);
                            if (!inPlace) {
                                assertArrayEquals(mine, read(send, count), what + ": the send buffer changed");
                            }
                        }
                    }
                }
                // an integer type and a bitwise op through the same kernel: XOR of the processes' words
                long count = big;
                long[] mine = new long[(int) count];
                long[] want = new long[(int) count];
                for (int q = 0; q < procs; q++) {
                    Random r = new Random(77 + q);
                    for (int i = 0; i < want.length; i++) {
                        long v = r.nextLong();
                        want[i] ^= v;
                        if (q == me) {
                            mine[i] = v;
                        }
                    }
                }
                MemorySegment buf = span.allocate(8 * count).copyFrom(MemorySegment.ofArray(mine));
                span.allreduce(0, null, buf, count, DType.I64, Op.BXOR);
                assertArrayEquals(want, buf.toArray(ValueLayout.JAVA_LONG), "push, i64 bxor, process " + me);
            });
        }
    }

    @Test
    void processesThatPickDifferentFoldsMismatch() throws InterruptedException {
        job(2, (span, me) -> {
            span.allreduceMode(me == 0 ? StagedAllreduce.MA_SLICED : StagedAllreduce.REPLICATED);
            MemorySegment buf = MemorySegment.ofArray(new double[100_000]);
            CollectiveMismatchException e = assertThrows(CollectiveMismatchException.class,
                    () -> span.allreduce(0, null, buf, 100_000, DType.F64, Op.SUM));
            assertTrue(e.getMessage().contains("ma-sliced") && e.getMessage().contains("replicated"), e.getMessage());
        });
    }

    @Test
    void thePriceFollowsSizeAndProcessCount() {
        long slot = 1 << 20;
        // one arrive line: inline, no slots, no fold to choose; a user op: replicated whatever is asked
        assertEquals(StagedAllreduce.REPLICATED, StagedAllreduce.pick(StagedAllreduce.MA_SLICED, 48, 2, slot, false));
        assertEquals(StagedAllreduce.REPLICATED, StagedAllreduce.pick(StagedAllreduce.MA_SLICED, 1 << 20, 2, slot, true));
        assertEquals(StagedAllreduce.MA_SLICED, StagedAllreduce.pick(StagedAllreduce.MA_SLICED, 4096, 2, slot, false));
        // auto: the extra rounds cost more than the volume saves on a small vector (1 MiB across 2 processes measured
        // faster replicated); from 8 MiB on the volume wins at every process count
        assertEquals(StagedAllreduce.REPLICATED, StagedAllreduce.pick(StagedAllreduce.AUTO, 1024, 2, slot, false));
        assertEquals(StagedAllreduce.REPLICATED, StagedAllreduce.pick(StagedAllreduce.AUTO, 1 << 20, 2, slot, false));
        for (int p = 2; p <= 8; p++) {
            for (long mib = 8; mib <= 64; mib *= 2) {
                assertEquals(StagedAllreduce.MA_SLICED, StagedAllreduce.pick(StagedAllreduce.AUTO, mib << 20, p, slot, false),
                        mib + " MiB across " + p);
            }
        }
        // the slice and its largest block fit a slot after the header
        for (int p = 2; p <= 32; p++) {
            long slice = MaSlicedFold.sliceBytes(slot, p);
            long block = 0;
            for (int q = 0; q < p; q++) {
                block = Math.max(block, MaSlicedFold.blockStart(slice, q + 1, p) - MaSlicedFold.blockStart(slice, q, p));
            }
            assertTrue(slice % 64 == 0 && slice + block <= slot - Mapping.SLOT_HEADER, "p " + p);
        }
        assertThrows(IllegalArgumentException.class, () -> StagedAllreduce.parse("ring"));
    }
}
