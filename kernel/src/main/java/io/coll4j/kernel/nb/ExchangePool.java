package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The team's free one-shot {@link Exchange}s, for the next call of the same shape to take (docs/design.md, "One
 * contract for every form"). Why: a one-shot request used to build a new exchange per call — its per-rank lines,
 * counters, steps and arrays, about 1.5 KiB — and an awaited-at-once request paid for it: the fresh lines are zeroed
 * out of a young generation larger than the cache, so each costs a line fill from DRAM, and the profile of a
 * one-rank {@code iallreduce} loop spent most of its samples in {@code Exchange}'s allocations (0.5–6 µs a call
 * against 0.05 for the persistent request, which keeps one exchange for every round). A pooled exchange serves the
 * next call as its next round, as a persistent request's does: the same lines, already in the ranks' caches.
 *
 * <p>An exchange comes back only when every rank's request of its round has completed ({@link Exchange#release}),
 * which is the persistent request's rule (a rank posts round r + 1 only after its request of round r completed)
 * for every rank at once; an exchange a rank never awaits, or whose request failed, never comes back and is
 * collected. Persistent and v-collective exchanges are not pooled (a v-collective's slicing is fixed from its
 * creator's counts). A few slots, scanned: each holds an exchange or null, taken and returned with a CAS, so the
 * issue path allocates nothing; a return that finds every slot full drops the exchange.
 */
final class ExchangePool {
    /** Slots: an awaited-at-once loop has two or three exchanges of a shape in flight (ranks drift by a call). */
    private static final int SLOTS = 8;
    private final AtomicReferenceArray<Exchange> free = new AtomicReferenceArray<>(SLOTS);

    /** Whether calls of {@code c} may take pooled exchanges. */
    static boolean pooled(Collective c, boolean persistent) {
        return !persistent && !c.vector();
    }

    /** A free exchange for this call (same shape and user reducer), now the caller's alone, or null. */
    Exchange take(Collective c, long count, DType dtype, Op op, int root, Reducer user) {
        for (int i = 0; i < SLOTS; i++) {
            Exchange x = free.get(i);
            if (x != null && x.sameCall(c, count, dtype, op, root, false) && x.user == user && free.compareAndSet(i, x, null)) {
                return x;
            }
        }
        return null;
    }

    /** Returns {@code x}, released by every rank, for a later call to take (dropped when every slot is full). */
    void put(Exchange x) {
        for (int i = 0; i < SLOTS; i++) {
            if (free.get(i) == null && free.compareAndSet(i, null, x)) {
                return;
            }
        }
    }

    /** Drops every free exchange (the team is closing). */
    void clear() {
        for (int i = 0; i < SLOTS; i++) {
            free.set(i, null);
        }
    }
}
