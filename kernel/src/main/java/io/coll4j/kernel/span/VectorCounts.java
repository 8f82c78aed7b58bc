package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Where the rooted v-collectives across processes learn their counts: MPI's gatherv and scatterv give the
 * count array to the root only, and every other rank knows just its own count, but the leaders need their
 * process's counts (to pack) and the root's leader every process's sum (for MPI). In the root's process the
 * root broadcasts its array locally; in the others each rank's own count is gathered at local rank 0.
 */
final class VectorCounts {
    private VectorCounts() {
    }

    /**
     * In the root's process, every local rank gets the root's {@code globalCounts}; elsewhere local rank 0
     * gets its process's {@code own} counts in local order, the other ranks null.
     */
    static long[] share(SpanGroup g, LocalOps local, boolean atRootProcess, int rootLocal, long[] globalCounts, long own) {
        int t = local.localSize();
        int me = local.localId();
        if (atRootProcess) {
            int n = g.globalSize();
            MemorySegment cell = g.scratch(me, 8L * n);
            if (me == rootLocal) {
                MemorySegment.copy(globalCounts, 0, cell, ValueLayout.JAVA_LONG, 0, n);
            }
            local.bcast(cell, n, DType.I64, rootLocal);
            return cell.toArray(ValueLayout.JAVA_LONG);
        }
        MemorySegment cell = g.result(me, 8);
        cell.set(ValueLayout.JAVA_LONG, 0, own);
        MemorySegment all = me == 0 ? g.scratch(0, 8L * t) : null;
        local.gather(cell, all, 1, DType.I64, 0);
        return me == 0 ? all.toArray(ValueLayout.JAVA_LONG) : null;
    }

    /** Local rank 0's view: its process's counts, from what {@link #share} returned. */
    static long[] localPart(SpanGroup g, int t, boolean atRootProcess, long[] shared) {
        int first = g.globalId(0);
        return atRootProcess ? java.util.Arrays.copyOfRange(shared, first, first + t) : shared;
    }

    /** {@code counts} and {@code displs} in elements, as bytes. */
    static long[] bytes(long[] elements, long unit) {
        long[] b = new long[elements.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = elements[i] * unit;
        }
        return b;
    }

    /**
     * The non-blocking form of {@link #share}: adds the local stage that brings the counts where {@code share}
     * brings them to {@code stages}, and returns the buffer that holds them once it is done — in the root's
     * process every local rank's copy of the root's {@code globalCounts} (filled at the root now), elsewhere
     * local rank 0's counts of its process in local order (null on the other ranks). Buffers of the request's own.
     */
    static MemorySegment shareStage(List<SpanRequest.Stage> stages, LocalJoin join, SpanGroup g, LocalOps local,
                                    boolean atRootProcess, int rootLocal, long[] globalCounts, long own) {
        int t = local.localSize();
        int me = local.localId();
        if (atRootProcess) {
            int n = g.globalSize();
            MemorySegment cell = SpanGroup.requestBuffer(8L * n);
            if (me == rootLocal) {
                MemorySegment.copy(globalCounts, 0, cell, ValueLayout.JAVA_LONG, 0, n);
            }
            stages.add(new SpanRequest.Local(join.join(Collective.BCAST, cell, cell, n, DType.I64, null, rootLocal)));
            return cell;
        }
        MemorySegment cell = SpanGroup.requestBuffer(8);
        cell.set(ValueLayout.JAVA_LONG, 0, own);
        MemorySegment all = me == 0 ? SpanGroup.requestBuffer(8L * t) : null;
        stages.add(new SpanRequest.Local(join.join(Collective.GATHER, cell, all, 1, DType.I64, null, 0)));
        return all;
    }
}
