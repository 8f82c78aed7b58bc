package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

/**
 * The team's one-shot {@link Exchange}s, for the next call of the same shape to serve as its next use (docs/design.md,
 * "One contract for every form"). Why: a one-shot request used to build a new exchange per call — its per-rank lines,
 * counters, steps and arrays, about 1.5 KiB — and an awaited-at-once request paid for it: the fresh lines are zeroed
 * out of a young generation larger than the cache, so each costs a line fill from DRAM, and the profile of a
 * one-rank {@code iallreduce} loop spent most of its samples in {@code Exchange}'s allocations. A pooled exchange
 * serves the next call as its next round, as a persistent request's does: the same lines, already in the ranks' caches.
 *
 * <p>An exchange serves another call only when every item (or part) of its current use is done
 * ({@link Exchange#servedOut}), which is the persistent request's rule (a rank posts round r + 1 only after its
 * request of round r completed) for every rank at once: each rank's request of the use is then complete, whether or
 * not its rank has looked yet. The claimer reads it on the lines it read to see its own request complete, so in a loop
 * awaited at once the exchange of the last call serves the next. (A line per rank saying it has seen its request
 * complete would cost the claimer one more line from another core per call, between its claim and the publication
 * that the other ranks wait for.) An exchange whose use is never done
 * (a request nobody awaits, or one that failed) never serves again, and the slot it holds goes to the next new one.
 * Persistent and v-collective exchanges are not pooled (a v-collective's slicing is fixed from its creator's counts).
 *
 * <p>No CAS and no shared counter: the pool is read and written only by the rank that claimed a call's issue slot,
 * between its claim and its publication, and those stretches are ordered by issue ({@link IssueWindow}, item 3: the
 * claimer of call n has found every call before n, after that call's claimer published it). So the pool's plain
 * fields are never accessed by two threads at once, and a taken exchange is the taker's alone until it publishes it.
 * An exchange stays in its slot while it serves (taking it writes nothing here): the slots' line stays in every
 * rank's cache.
 */
final class ExchangePool {
    /** Slots: an awaited-at-once loop has two or three exchanges of a shape in flight (ranks drift by a call). */
    private static final int SLOTS = 8;
    private final Exchange[] slots = new Exchange[SLOTS];
    /** The slot the next new exchange replaces when none is empty or free. */
    private int next;

    /** Whether calls of {@code c} may take pooled exchanges. */
    static boolean pooled(Collective c, boolean persistent) {
        return !persistent && !c.vector();
    }

    /** An exchange for this call (same shape and user reducer) whose current use is done, or null. Claimer only. */
    Exchange take(Collective c, long count, DType dtype, Op op, int root, Reducer user) {
        for (Exchange x : slots) {
            if (x != null && x.sameCall(c, count, dtype, op, root, false) && x.user == user && x.servedOut()) {
                return x;
            }
        }
        return null;
    }

    /**
     * Whether {@link #take} would find one: a hint for a rank about to claim a call's slot (read without the claim,
     * so possibly stale; a racing claimer's writes make it wrong, never unsafe), which builds a new exchange first
     * when there is none.
     */
    boolean has(Collective c, long count, DType dtype, Op op, int root, Reducer user) {
        return take(c, count, dtype, op, root, user) != null;
    }

    /**
     * Keeps {@code x}, a new exchange, for later calls: in an empty slot, else one whose exchange's use is done,
     * else (every exchange still in use) in turn. Claimer only.
     */
    void add(Exchange x) {
        int at = -1;
        for (int i = 0; i < SLOTS && at < 0; i++) {
            if (slots[i] == null) {
                at = i;
            }
        }
        for (int i = 0; i < SLOTS && at < 0; i++) {
            if (slots[i].servedOut()) {
                at = i;
            }
        }
        if (at < 0) {
            at = next;
            next = (next + 1) % SLOTS;
        }
        slots[at] = x;
    }

    /** Drops every exchange (the team is closing). */
    void clear() {
        java.util.Arrays.fill(slots, null);
    }
}
