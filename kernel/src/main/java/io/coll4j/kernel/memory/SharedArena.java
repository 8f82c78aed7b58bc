package io.coll4j.kernel.memory;

import io.coll4j.topology.Binder;
import io.coll4j.topology.Fallbacks;
import io.coll4j.topology.MemoryBindResult;
import io.coll4j.topology.NumaNode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The team's native memory: one {@link Arena#ofShared()} for the control block and the buffers ranks
 * ask for ({@code rank.allocate}), and a separate shared arena per scratch buffer so scratch can be
 * replaced by a larger one and the old one freed. Everything is freed by {@link #close()}.
 *
 * <p>NUMA placement: memory is allocated (and therefore zeroed, i.e. first touched) by the thread of the
 * rank that owns it, which is bound to a PU of its node, so the kernel's first-touch policy puts its
 * pages on that node; where memory binding works the pages are additionally bound to the node with
 * {@link Binder#bindMemory} so the placement survives migration.
 */
public final class SharedArena implements AutoCloseable {
    /** Alignment of rank buffers and scratch: a page, so binding and NT stores never split a page with a neighbour. */
    public static final long PAGE = 4096;

    private final Arena main = Arena.ofShared();
    /** The session of {@link #allocate}'s segments. */
    private final java.lang.foreign.MemorySegment.Scope scope = main.allocate(1).scope();
    private final List<Arena> scratchArenas = new ArrayList<>();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final AtomicLong scratchBytes = new AtomicLong();
    private final Binder binder;
    private volatile boolean closed;

    public SharedArena(Binder binder) {
        this.binder = binder;
    }

    /** The memory session of every segment {@link #allocate} hands out (closed by {@link #close()}). */
    public java.lang.foreign.MemorySegment.Scope scope() {
        return scope;
    }

    /** The arena for team-lifetime allocations (control block). */
    public Arena arena() {
        return main;
    }

    /** Allocates {@code bytes} for the calling rank on {@code node} (null: no explicit binding), page aligned, zeroed. */
    public MemorySegment allocate(long bytes, NumaNode node) {
        checkOpen();
        MemorySegment seg = main.allocate(Math.max(bytes, 1), PAGE).asSlice(0, bytes);
        bind(seg, node);
        allocatedBytes.addAndGet(bytes);
        return seg;
    }

    /** A scratch buffer in an arena of its own; free it with {@link Scratch#close()}. */
    Scratch allocateScratch(long bytes, NumaNode node) {
        checkOpen();
        Arena a = Arena.ofShared();
        MemorySegment seg = a.allocate(Math.max(bytes, 1), PAGE).asSlice(0, bytes);
        bind(seg, node);
        synchronized (scratchArenas) {
            scratchArenas.add(a);
        }
        scratchBytes.addAndGet(bytes);
        return new Scratch(this, a, seg);
    }

    void release(Scratch s) {
        boolean owned;
        synchronized (scratchArenas) {
            owned = scratchArenas.remove(s.arena());
        }
        if (owned) {
            scratchBytes.addAndGet(-s.segment().byteSize());
            s.arena().close();
        }
    }

    private void bind(MemorySegment seg, NumaNode node) {
        if (node != null && binder != null && binder.canBindMemory() && seg.byteSize() >= PAGE) {
            MemoryBindResult r = binder.bindMemory(seg, node);
            if (!r.bound() && !r.method().equals("none")) {   // "none": nothing was attempted (heap, no whole page)
                Fallbacks.note("memory binding", "memory not bound to NUMA node P#" + node.osIndex() + " (" + r.method() + ": "
                        + r.detail() + "); pages stay where first touch put them");
            }
        }
    }

    /** Bytes handed out by {@link #allocate} (user buffers). */
    public long allocatedBytes() {
        return allocatedBytes.get();
    }

    /** Bytes of scratch currently held by the team's algorithms. */
    public long scratchBytes() {
        return scratchBytes.get();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("team is closed: its memory has been freed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (scratchArenas) {
            for (Arena a : scratchArenas) {
                a.close();
            }
            scratchArenas.clear();
        }
        main.close();
    }

    /** A scratch buffer and the arena that owns it. */
    public record Scratch(SharedArena owner, Arena arena, MemorySegment segment) {
        public void close() {
            owner.release(this);
        }
    }
}
