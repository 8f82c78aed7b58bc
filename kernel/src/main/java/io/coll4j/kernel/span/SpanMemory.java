package io.coll4j.kernel.span;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The memory sessions of spanning teams' own memory ({@code rank.allocate}): a non-blocking MPI call may work on
 * it in place, because the team frees it only after its span closed with no request in flight (otherwise it stays
 * allocated, see {@code Team.close}). Every other closeable arena's segment is staged by the span's non-blocking
 * calls: FFM has no public way to keep a user's arena open while MPI works on it after the call returned.
 */
public final class SpanMemory {
    private static final Set<MemorySegment.Scope> OWNED = ConcurrentHashMap.newKeySet();

    private SpanMemory() {
    }

    public static void own(MemorySegment.Scope scope) {
        OWNED.add(scope);
    }

    public static void disown(MemorySegment.Scope scope) {
        OWNED.remove(scope);
    }

    /** True when {@code scope} is a spanning team's own memory (see the class comment). */
    public static boolean owned(MemorySegment.Scope scope) {
        return !OWNED.isEmpty() && OWNED.contains(scope);
    }
}
