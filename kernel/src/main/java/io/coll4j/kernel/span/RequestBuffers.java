package io.coll4j.kernel.span;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The native buffers a request across processes stages its data in (MPI reads native memory only, and the
 * blocking calls' scratch is reused by the next call while a request may still be in flight), kept for the
 * next request once a one-shot request is complete. Each fresh buffer was an {@code Arena.ofAuto()} allocation,
 * zeroed and first touched page by page, then freed by the garbage collector: a one-shot 1 MiB {@code ialltoall}
 * on 2 processes × 2 ranks took 2.3 ms (best batch) against 0.3–0.5 ms for its persistent form, which binds its
 * buffers once; reusing them brought it to 0.44 ms.
 *
 * <p>Buffers of at least {@value #POOLED_BYTES} bytes come from per-size-class free lists (capacity a power of
 * two, at most {@value #KEPT_PER_CLASS} kept per class and {@value #KEPT_BYTES} bytes in all, the rest left to the
 * collector); smaller ones are
 * allocated as before. A reused buffer is zeroed like a fresh one, so a schedule sees the same memory either
 * way. {@link #collect} gathers what a one-shot request's schedule takes on this thread, and {@link SpanRequest}
 * gives it back when the request completes: then MPI has finished with it (its inter stages waited) and no
 * local rank reads it any more (a sliced local exchange reads and writes no rank's buffers after any rank's
 * request completes; buffers this large are never staged). Persistent requests keep theirs (collected by the
 * garbage collector once the request is unreachable), as does a request that failed.
 */
public final class RequestBuffers {
    private RequestBuffers() {
    }

    /** Smaller buffers are not pooled: their allocation is cheap and counts and cells are most of them. */
    static final long POOLED_BYTES = 64 << 10;
    /** Buffers kept per size class. */
    static final int KEPT_PER_CLASS = 4;
    /** Bytes kept in all (a process that once ran a one-shot 256 MiB alltoall does not keep a gigabyte). */
    static final long KEPT_BYTES = 64L << 20;
    /** Bytes in the free lists now. */
    private static final java.util.concurrent.atomic.AtomicLong KEPT_TOTAL = new java.util.concurrent.atomic.AtomicLong();

    @SuppressWarnings("unchecked")
    private static final ConcurrentLinkedDeque<MemorySegment>[] FREE = new ConcurrentLinkedDeque[64];
    /** Buffers in each class's list (a bound on the list, read and updated without the list's lock). */
    private static final AtomicIntegerArray KEPT = new AtomicIntegerArray(64);

    static {
        for (int k = 0; k < FREE.length; k++) {
            FREE[k] = new ConcurrentLinkedDeque<>();
        }
    }

    /** What a one-shot request's schedule took on this thread while {@link #collect} was open. */
    private static final ThreadLocal<List<MemorySegment>> TAKEN = new ThreadLocal<>();

    /** A zeroed native buffer of {@code bytes} (a slice of a pooled buffer, or a fresh one when small). */
    public static MemorySegment take(long bytes) {
        if (bytes < POOLED_BYTES) {
            return Arena.ofAuto().allocate(Math.max(bytes, 1), 64).asSlice(0, bytes);
        }
        int k = sizeClass(bytes);
        MemorySegment whole = FREE[k].pollFirst();
        if (whole != null) {
            KEPT.decrementAndGet(k);
            KEPT_TOTAL.addAndGet(-whole.byteSize());
            whole.fill((byte) 0);
        } else {
            whole = Arena.ofAuto().allocate(1L << k, 64);
        }
        List<MemorySegment> taken = TAKEN.get();
        if (taken != null) {
            taken.add(whole);
        }
        return whole.asSlice(0, bytes);
    }

    /**
     * A native buffer of at least {@code bytes}, NOT zeroed when reused, for a non-blocking MPI call's stand-in of a
     * user segment (filled from it, or written whole by MPI); not collected by {@link #collect}: its call gives it
     * back with {@link #giveBack} once MPI is done with it. Slice it to {@code bytes}.
     */
    public static MemorySegment borrow(long bytes) {
        if (bytes < POOLED_BYTES) {
            return Arena.ofAuto().allocate(Math.max(bytes, 1), 64);
        }
        int k = sizeClass(bytes);
        MemorySegment whole = FREE[k].pollFirst();
        if (whole != null) {
            KEPT.decrementAndGet(k);
            KEPT_TOTAL.addAndGet(-whole.byteSize());
            return whole;
        }
        // a shared arena of its own, closed when the pool does not keep it: an auto one is freed only by the garbage
        // collector, and two 64 MiB stand-ins per call (beyond what the pool keeps) then waited for it in the JDK's
        // direct-memory reservation: 4.3 s per 64 MiB iallreduce instead of 0.1 s
        Arena a = Arena.ofShared();
        whole = a.allocate(1L << k, 64);
        OWNED.put(whole, a);
        return whole;
    }

    /** The arenas of what {@link #borrow} allocated, closed when the pool lets such a buffer go. */
    private static final java.util.Map<MemorySegment, Arena> OWNED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Gives back what {@link #borrow} returned (a smaller one is left to the garbage collector). */
    public static void giveBack(MemorySegment whole) {
        if (whole.byteSize() >= POOLED_BYTES && Long.bitCount(whole.byteSize()) == 1) {
            release(List.of(whole));
        }
    }

    /** A buffer the pool does not keep: freed now if {@link #borrow} made it, else left to the garbage collector. */
    private static void drop(MemorySegment whole) {
        Arena a = OWNED.remove(whole);
        if (a != null) {
            a.close();
        }
    }

    /** The class of a buffer of {@code bytes}: the exponent of the power of two that holds it. */
    static int sizeClass(long bytes) {
        return 64 - Long.numberOfLeadingZeros(bytes - 1);
    }

    /**
     * Runs {@code schedule} on this thread and returns it with the pooled buffers it took, which its request
     * gives back with {@link #release} when it completes.
     */
    public static <T> Collected<T> collect(java.util.function.Supplier<T> schedule) {
        List<MemorySegment> outer = TAKEN.get();
        List<MemorySegment> mine = new ArrayList<>(2);
        TAKEN.set(mine);
        try {
            return new Collected<>(schedule.get(), mine);
        } finally {
            TAKEN.set(outer);
        }
    }

    /** A schedule and the pooled buffers it took. */
    public record Collected<T>(T value, List<MemorySegment> buffers) {
    }

    /**
     * Gives {@code buffers} back for the next request: each class keeps {@value #KEPT_PER_CLASS} and all together
     * {@value #KEPT_BYTES} bytes; the rest are left to the garbage collector.
     */
    public static void release(List<MemorySegment> buffers) {
        for (MemorySegment whole : buffers) {
            int k = sizeClass(whole.byteSize());
            if (KEPT.incrementAndGet(k) > KEPT_PER_CLASS) {
                KEPT.decrementAndGet(k);
                drop(whole);
            } else if (KEPT_TOTAL.addAndGet(whole.byteSize()) > KEPT_BYTES) {
                KEPT_TOTAL.addAndGet(-whole.byteSize());
                KEPT.decrementAndGet(k);
                drop(whole);
            } else {
                FREE[k].addFirst(whole);
            }
        }
    }

    /** Buffers kept in {@code bytes}' class now (tests). */
    static int kept(long bytes) {
        return KEPT.get(sizeClass(bytes));
    }
}
