package io.coll4j.kernel.span;

import io.coll4j.Collective;
import io.coll4j.kernel.nb.CollectiveRequest;
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
    CollectiveRequest join(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int root);
}
