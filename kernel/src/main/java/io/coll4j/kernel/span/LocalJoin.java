package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.nb.VectorCall;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * How a {@link SpanRequest}'s schedule takes a local stage: this rank joins a persistent collective of the
 * team's non-blocking engine on its process's ranks (local ids and roots), under its next issue number —
 * every local rank joins the same local stages in the same order, so they match.
 */
@FunctionalInterface
public interface LocalJoin {
    /** A v-collective's local stage when {@code call} is not null (its counts in local ranks; count 0 then). */
    CollectiveRequest join(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root,
                           VectorCall call);

    default CollectiveRequest join(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                   int root) {
        return join(c, send, recv, count, dtype, op, root, null);
    }

    /**
     * A local gatherv to local rank 0 (or scatterv from it) that moves {@code count} elements between local rank 0
     * and local rank {@code other} ≠ 0 only, every other count zero: how a whole buffer reaches local rank 0, or
     * leaves it, when another local rank holds it. {@code buf} is {@code other}'s side, {@code at0} local rank 0's.
     */
    default CollectiveRequest joinOnly(Collective c, int me, int localSize, int other, MemorySegment buf, MemorySegment at0,
                                       long count, DType dtype) {
        long[] only = new long[localSize];
        only[other] = count;
        long[] zeros = new long[localSize];
        MemorySegment mine = me == other ? buf : SpanGroup.requestBuffer(0);
        if (c == Collective.GATHERV) {
            VectorCall v = new VectorCall(only[me], null, null, me == 0 ? only : null, me == 0 ? zeros : null);
            return join(c, mine, me == 0 ? at0 : null, 0, dtype, null, 0, v);
        }
        VectorCall v = new VectorCall(only[me], me == 0 ? only : null, me == 0 ? zeros : null, null, null);
        return join(c, me == 0 ? at0 : null, mine, 0, dtype, null, 0, v);
    }
}
