package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Rank;
import io.coll4j.cli.CollectiveBenchmark.Shape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What {@code -c} checks a measured call against: each rank's expected output, computed from {@link BenchData}'s
 * inputs with the scalar reference, and the count of elements that differ.
 */
record BenchReference(Collective collective, DType dtype, Op op, int root) {
    /** Fills a buffer the collective must overwrite, so a no-op cannot pass validation. */
    static void poison(MemorySegment seg) {
        if (seg != null) {
            seg.fill((byte) 0x7B);
        }
    }

    /** What this rank's output must hold, or null when it has none (reduce off the root, barrier). */
    MemorySegment expected(Arena arena, Rank rank, Shape s, VectorLayouts.Call call) {
        int p = rank.size();
        int r = rank.id();
        int es = dtype.size();
        return switch (collective) {
            case BARRIER -> null;
            case REDUCE -> r == root ? folded(arena, s.count(), 0, p) : null;
            case ALLREDUCE -> folded(arena, s.count(), 0, p);
            case REDUCE_SCATTER -> folded(arena, s.callCount(), r * s.callCount(), p);
            case BCAST -> {
                MemorySegment e = arena.allocate(Math.max(s.bytes(), 1)).asSlice(0, s.bytes());
                for (long i = 0; i < s.count(); i++) {
                    BenchData.put(e, dtype, i, BenchData.input(dtype, null, root, i));
                }
                yield e;
            }
            case GATHER, GATHERV, ALLGATHERV -> {
                if (collective != Collective.ALLGATHERV && r != root) {
                    yield null;
                }
                long uniform = s.callCount();
                long[] rc = call.recvCounts();
                long total = collective == Collective.GATHER ? uniform * p : s.count();
                MemorySegment e = arena.allocate(Math.max(total * es, 1)).asSlice(0, total * es);
                long at = 0;
                for (int q = 0; q < p; q++) {
                    long n = rc == null ? uniform : rc[q];
                    for (long i = 0; i < n; i++) {
                        BenchData.put(e.asSlice(at * es), dtype, i, BenchData.input(dtype, null, q, i));
                    }
                    at += n;
                }
                yield e;
            }
            case SCATTER, SCATTERV -> {
                long n = collective == Collective.SCATTER ? s.callCount() : call.recvCounts()[0];
                long from = collective == Collective.SCATTER ? r * n : VectorLayouts.packed(VectorLayouts.split(s.count(), p))[r];
                MemorySegment e = arena.allocate(Math.max(n * es, 1)).asSlice(0, n * es);
                for (long i = 0; i < n; i++) {
                    BenchData.put(e, dtype, i, BenchData.input(dtype, null, root, from + i));
                }
                yield e;
            }
            case REDUCE_SCATTER_V -> folded(arena, call.recvCounts()[r], call.recvDispls()[r], p);
            case ALLTOALL, ALLTOALLV -> {
                MemorySegment e = arena.allocate(Math.max(s.recvBytes(), 1)).asSlice(0, s.recvBytes());
                long at = 0;
                for (int q = 0; q < p; q++) {
                    long n = collective == Collective.ALLTOALL ? s.callCount() : call.recvCounts()[q];
                    // rank q's block for me starts at its displacement for me: r·count, or its packed split
                    long from = collective == Collective.ALLTOALL ? r * n
                            : VectorLayouts.call(null, collective, s.count(), p, q).sendDispls()[r];
                    for (long i = 0; i < n; i++) {
                        BenchData.put(e.asSlice(at * es), dtype, i, BenchData.input(dtype, null, q, from + i));
                    }
                    at += n;
                }
                yield e.asSlice(0, at * es);
            }
            case SCAN, EXSCAN -> {
                int upTo = collective == Collective.SCAN ? r + 1 : r;
                if (upTo == 0) {
                    yield null;
                }
                yield folded(arena, s.count(), 0, upTo);
            }
            case ALLGATHER -> {
                MemorySegment e = arena.allocate(Math.max(s.bytes(), 1)).asSlice(0, s.bytes());
                long per = s.callCount();
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < per; i++) {
                        BenchData.put(e.asSlice(q * per * es), dtype, i, BenchData.input(dtype, null, q, i));
                    }
                }
                yield e;
            }
        };
    }

    private MemorySegment folded(Arena arena, long count, long first, int p) {
        MemorySegment e = arena.allocate(Math.max(count * dtype.size(), 1)).asSlice(0, count * dtype.size());
        for (long i = 0; i < count; i++) {
            BenchData.put(e, dtype, i, BenchData.fold(dtype, op, p, first + i));
        }
        return e;
    }

    /** Elements of {@code got} that differ from {@code expected} (bitwise: benchmark inputs never produce NaN). */
    long wrongElements(MemorySegment got, MemorySegment expected) {
        if (MemorySegment.mismatch(got, 0, expected.byteSize(), expected, 0, expected.byteSize()) < 0) {
            return 0;
        }
        long wrong = 0;
        long n = expected.byteSize() / dtype.size();
        for (long i = 0; i < n; i++) {
            if (!BenchData.same(dtype, BenchData.get(expected, dtype, i), BenchData.get(got, dtype, i))) {
                wrong++;
            }
        }
        return wrong;
    }
}
