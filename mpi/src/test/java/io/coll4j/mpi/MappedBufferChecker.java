package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Collectives of a shared-mapping team on buffers from {@code rank.allocate} (inside the mapping: the peers read and
 * write them in place, the allreduce pushes) and, in {@code mixed} mode, with some processes' buffers on the heap
 * instead (staged) — the processes must agree on the path from the first round's headers. Every result is compared
 * with a scalar reference. One rank per process: the span then sees the user's own buffers.
 */
final class MappedBufferChecker {
    private static final long[] COUNTS = {0, 1, 7, 100003};

    private final Rank rank;
    private final boolean mixed;
    private final int processes;
    /** Mapped buffers are cut from one allocation (a call's three at most), so the test touches a few MiB only. */
    private final MemorySegment pool;
    private long used;
    private int checks;

    MappedBufferChecker(Rank rank, boolean mixed) {
        this.rank = rank;
        this.mixed = mixed;
        this.processes = rank.size() / rank.localSize();
        this.pool = rank.allocate(3 * (COUNTS[COUNTS.length - 1] * 8 * processes + 8192));
        if (pool.address() % 4096 != 0) {
            throw new AssertionError("rank.allocate of a process team is not page aligned: " + pool);
        }
    }

    /** Runs every case; returns the number of checks. */
    int all() {
        int round = 0;
        for (long n : COUNTS) {
            for (int rep = 0; rep < 2; rep++, round++) {
                allreduce(n, round, false);
                allreduce(n, round, true);
                bcast(n, round);
                allgather(n, round);
                reduceAndReduceScatter(n, round);
            }
        }
        return checks;
    }

    /**
     * A buffer of {@code bytes} (the pool is reused from each call's first): from the mapping, or (mixed mode) on the heap in the processes the round picks —
     * process (round mod P) in odd rounds, every process but that one in even rounds — so both the lone heap buffer and
     * the lone mapped one occur.
     */
    private MemorySegment buffer(long bytes, int round) {
        int pick = round % processes;
        boolean heap = mixed && ((round & 1) == 1 ? rank.processIndex() == pick : rank.processIndex() != pick);
        if (heap) {
            return MemorySegment.ofArray(new double[(int) Math.max(1, (bytes + 7) / 8)]).asSlice(0, bytes);
        }
        // odd offsets (one element past a line): the collectives find a buffer in the mapping wherever it starts
        MemorySegment s = pool.asSlice(used + 8, bytes);
        used += (bytes + 8 + 4095) / 4096 * 4096;
        return s;
    }

    private static double mark(int g, long i) {
        return (g + 1) * 1000.0 + (i % 997);
    }

    private void allreduce(long n, int round, boolean inPlace) {
        used = 0;
        int size = rank.size();
        MemorySegment send = buffer(n * 8, round);
        MemorySegment recv = inPlace ? send : buffer(n * 8, round);
        for (long i = 0; i < n; i++) {
            send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, mark(rank.id(), i));
        }
        rank.allreduce(send, recv, n, DType.F64, Op.SUM);
        for (long i = 0; i < n; i++) {
            double want = 0;
            for (int g = 0; g < size; g++) {
                want += mark(g, i);
            }
            expect(recv.getAtIndex(ValueLayout.JAVA_DOUBLE, i), want, "allreduce" + (inPlace ? " in place" : ""), n, i);
        }
        checks++;
    }

    private void bcast(long n, int round) {
        used = 0;
        int root = rank.size() - 1;
        MemorySegment buf = buffer(n * 8, round);
        for (long i = 0; i < n; i++) {
            buf.setAtIndex(ValueLayout.JAVA_DOUBLE, i, rank.id() == root ? mark(root, i) : -1);
        }
        rank.bcast(buf, n, DType.F64, root);
        for (long i = 0; i < n; i++) {
            expect(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i), mark(root, i), "bcast", n, i);
        }
        checks++;
    }

    private void allgather(long n, int round) {
        used = 0;
        int size = rank.size();
        MemorySegment send = buffer(n * 8, round);
        MemorySegment recv = buffer(n * 8 * size, round);
        for (long i = 0; i < n; i++) {
            send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, mark(rank.id(), i));
        }
        rank.allgather(send, recv, n, DType.F64);
        for (int g = 0; g < size; g++) {
            for (long i = 0; i < n; i++) {
                expect(recv.getAtIndex(ValueLayout.JAVA_DOUBLE, g * n + i), mark(g, i), "allgather", n, i);
            }
        }
        checks++;
    }

    private void reduceAndReduceScatter(long n, int round) {
        used = 0;
        int size = rank.size();
        MemorySegment send = buffer(n * 8 * size, round);
        MemorySegment recv = buffer(n * 8 * size, round);
        for (long i = 0; i < n * size; i++) {
            send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, mark(rank.id(), i));
        }
        int root = round % size;
        rank.reduce(send, recv, n * size, DType.F64, Op.MAX, root);
        if (rank.id() == root) {
            for (long i = 0; i < n * size; i++) {
                expect(recv.getAtIndex(ValueLayout.JAVA_DOUBLE, i), mark(size - 1, i), "reduce", n * size, i);
            }
        }
        MemorySegment block = buffer(n * 8, round);
        rank.reduceScatter(send, block, n, DType.F64, Op.SUM);
        for (long i = 0; i < n; i++) {
            double want = 0;
            for (int g = 0; g < size; g++) {
                want += mark(g, rank.id() * n + i);
            }
            expect(block.getAtIndex(ValueLayout.JAVA_DOUBLE, i), want, "reduce_scatter", n, i);
        }
        checks += 2;
    }

    private void expect(double got, double want, String what, long n, long i) {
        if (got != want) {
            throw new AssertionError(what + " of " + n + " f64 on " + (mixed ? "mixed" : "mapped") + " buffers: rank "
                    + rank.id() + " element " + i + " is " + got + ", the reference " + want);
        }
    }
}
