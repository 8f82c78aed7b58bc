package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Measures the inter-process α and β of {@link HierarchicalCost} through the span itself: the best of
 * {@code reps} batches of MPI_Allreduce on the world communicator at 8 B (α = t / ⌈log2 P⌉) and at
 * {@code bigBytes} (β from t − α⌈log2 P⌉ = 2β·s(P−1)/P), HMPI's a + m/b fitted at two points [HMPI §2.1].
 * Collective: every process must call it; all get the slowest process's numbers (MAX), so the selector
 * decides the same everywhere.
 */
public final class SpanProbe {
    private SpanProbe() {
    }

    /** α in seconds and β in seconds per byte. */
    public record Fit(double alpha, double beta) {
    }

    public static Fit measure(ProcessSpan span, long bigBytes, int reps) {
        int p = span.processes();
        try (Arena a = Arena.ofShared()) {
            MemorySegment small = a.allocate(8, 64);
            MemorySegment big = a.allocate(bigBytes, 64);
            double tSmall = best(span, small, 1, 2000, reps);
            double tBig = best(span, big, bigBytes / 8, 4, reps);
            double alpha = tSmall / HierarchicalCost.log2(p);
            double beta = Math.max(0, tBig - alpha * HierarchicalCost.log2(p)) / (2.0 * bigBytes * (p - 1) / p);
            MemorySegment agree = a.allocate(16, 8);
            agree.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0, alpha);
            agree.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 8, beta);
            span.allreduce(span.world(), null, agree, 2, DType.F64, Op.MAX);
            return new Fit(agree.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 0), agree.get(java.lang.foreign.ValueLayout.JAVA_DOUBLE, 8));
        }
    }

    /** Seconds per call: the best batch mean of {@code reps} batches of {@code calls} (after one batch of warm-up). */
    private static double best(ProcessSpan span, MemorySegment buf, long count, int calls, int reps) {
        double best = Double.MAX_VALUE;
        for (int r = 0; r <= reps; r++) {
            span.barrier(span.world());
            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                span.allreduce(span.world(), null, buf, count, DType.F64, Op.SUM);
            }
            double t = (System.nanoTime() - t0) / 1e9 / calls;
            if (r > 0) {
                best = Math.min(best, t);
            }
        }
        return best;
    }
}
