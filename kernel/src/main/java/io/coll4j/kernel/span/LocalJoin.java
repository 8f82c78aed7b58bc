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
 *
 * <p>A local v-collective whose root cannot know its counts when the request is made (local rank 0 of a
 * gatherv, scatterv or alltoallv across processes learns its process's counts from a local stage of the same
 * request) is joined late: every rank {@link #reserve}s its issue number when the request is made, the other
 * ranks join under it at once, and local rank 0 joins under it ({@link #joinAt}) when its schedule reaches the
 * stage ({@link SpanRequest.LateLocal}) — the last rank to join, so the engine's count check sees every rank's.
 */
public interface LocalJoin {
    /** Takes this rank's next issue number for a stage joined later with {@link #joinAt}. */
    long reserve();

    /** Joins stage {@code id}; a v-collective's when {@code call} is not null (its counts in local ranks; count 0 then). */
    CollectiveRequest joinAt(long id, Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                             int root, VectorCall call);

    /** Joins a stage under the next issue number. */
    default CollectiveRequest join(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                   int root) {
        return joinAt(reserve(), c, send, recv, count, dtype, op, root, null);
    }

    /** Joins a v-collective's stage under the next issue number. */
    default CollectiveRequest join(Collective c, MemorySegment send, MemorySegment recv, DType dtype, int root, VectorCall call) {
        return joinAt(reserve(), c, send, recv, 0, dtype, null, root, call);
    }

    /**
     * Stage {@code id}: a local gatherv to local rank 0 (or scatterv from it) that moves {@code count} elements
     * between local rank 0 and local rank {@code other} ≠ 0 only, every other count zero — how a whole buffer
     * reaches local rank 0, or leaves it, when another local rank holds it. {@code buf} is {@code other}'s side,
     * {@code at0} local rank 0's.
     */
    default CollectiveRequest joinOnlyAt(long id, Collective c, int me, int localSize, int other, MemorySegment buf,
                                         MemorySegment at0, long count, DType dtype) {
        long[] only = new long[localSize];
        only[other] = count;
        long[] zeros = new long[localSize];
        MemorySegment mine = me == other ? buf : SpanGroup.requestBuffer(0);
        if (c == Collective.GATHERV) {
            VectorCall v = new VectorCall(only[me], null, null, me == 0 ? only : null, me == 0 ? zeros : null);
            return joinAt(id, c, mine, me == 0 ? at0 : null, 0, dtype, null, 0, v);
        }
        VectorCall v = new VectorCall(only[me], me == 0 ? only : null, me == 0 ? zeros : null, null, null);
        return joinAt(id, c, me == 0 ? at0 : null, mine, 0, dtype, null, 0, v);
    }

    /** {@link #joinOnlyAt} under the next issue number. */
    default CollectiveRequest joinOnly(Collective c, int me, int localSize, int other, MemorySegment buf, MemorySegment at0,
                                       long count, DType dtype) {
        return joinOnlyAt(reserve(), c, me, localSize, other, buf, at0, count, dtype);
    }
}
