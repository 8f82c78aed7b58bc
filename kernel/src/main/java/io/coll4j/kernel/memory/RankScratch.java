package io.coll4j.kernel.memory;

import io.coll4j.topology.NumaNode;

import java.lang.foreign.MemorySegment;

/**
 * A rank's two scratch buffers, one per collective parity. The buffer of parity {@code s & 1} is
 * only (re)allocated by its owner at the start of collective {@code s}, when the runtime has checked
 * that every rank has entered {@code s-1} — so nobody still reads the buffer of the same parity from
 * {@code s-2}, and it can be freed.
 */
public final class RankScratch {
    /** Scratch grows to at least this, then geometrically, so a sweep of sizes reallocates O(log) times. */
    static final long MIN_BYTES = 64 * 1024;

    private final SharedArena arena;
    private final NumaNode node;
    private final SharedArena.Scratch[] buffers = new SharedArena.Scratch[2];

    public RankScratch(SharedArena arena, NumaNode node) {
        this.arena = arena;
        this.node = node;
    }

    /**
     * The buffer of {@code parity} with room for {@code bytes}; called by the owning rank only, before it
     * announces the collective (the announce publishes the reference to peers).
     */
    public MemorySegment ensure(int parity, long bytes) {
        SharedArena.Scratch cur = buffers[parity];
        if (cur != null && cur.segment().byteSize() >= bytes) {
            return cur.segment();
        }
        long size = Math.max(MIN_BYTES, cur == null ? bytes : Math.max(bytes, 2 * cur.segment().byteSize()));
        SharedArena.Scratch next = arena.allocateScratch(size, node);
        buffers[parity] = next;
        if (cur != null) {
            cur.close();
        }
        return next.segment();
    }

    /** The buffer of {@code parity}, or null when none was needed yet. */
    public MemorySegment current(int parity) {
        SharedArena.Scratch cur = buffers[parity];
        return cur == null ? null : cur.segment();
    }
}
