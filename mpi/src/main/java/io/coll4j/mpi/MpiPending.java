package io.coll4j.mpi;

import io.coll4j.kernel.span.ProcessSpan;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One non-blocking MPI collective in flight: the index of its MPI_Request in the shim's table, and the native
 * stand-ins of heap buffers, which must live (and not move) until MPI is done with them — so they belong to
 * the request, not to the per-thread staging of the blocking calls, which the next call reuses. Posting and
 * testing go through {@link MpiSession#call}: the serialising lock or the funnel thread, and the watchdog's
 * in-flight mark for the duration of each call (a test returns at once, so an outstanding request is never
 * "in MPI" for the watchdog; its timeout is the request's, see SpanRequest).
 */
final class MpiPending implements ProcessSpan.Pending {
    /** Posts a call; {@code index} receives its request's slot. */
    @FunctionalInterface
    interface Post {
        int run(MemorySegment index) throws Throwable;
    }

    private final MpiSession mpi;
    private final String what;
    /**
     * Cells of two ints (a request's slot, then MPI_Test's flag) for reuse: an auto arena per request cost a
     * malloc and a Cleaner registration on every non-blocking call. Global memory (the funnel thread reads and
     * writes it), as many cells as requests were ever in flight at once.
     */
    private static final ConcurrentLinkedQueue<MemorySegment> CELLS = new ConcurrentLinkedQueue<>();
    private final MemorySegment cell = cell();
    /**
     * The requests MPI has not finished with: they keep their buffers (auto arenas) reachable even when their
     * SpanRequest was dropped un-awaited, since MPI_Finalize may still progress them.
     */
    private static final java.util.Set<MpiPending> IN_FLIGHT = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The native buffers MPI works on while the request is in flight (kept reachable until done). */
    private final MemorySegment input;
    private final MemorySegment output;
    /** Where {@link #output} is copied when done: a heap segment staged through it, else null. */
    private final MemorySegment target;
    private boolean done;

    private MpiPending(MpiSession mpi, String what, MemorySegment input, MemorySegment output, MemorySegment target) {
        this.mpi = mpi;
        this.what = what;
        this.input = input;
        this.output = output;
        this.target = target;
    }

    /**
     * Posts {@code post}; {@code output} receives the result and is copied into {@code target} when done
     * ({@code target} null when the output is {@code output} itself).
     */
    static MpiPending post(MpiSession mpi, String what, MemorySegment input, MemorySegment output, MemorySegment target,
                           Post post) {
        MpiPending p = new MpiPending(mpi, what, input, output, target);
        MemorySegment slot = p.cell;
        int rc = mpi.call(what, () -> post.run(slot));
        if (rc != 0) {
            CELLS.add(slot);   // nothing was posted
        }
        mpi.check(rc, what);
        IN_FLIGHT.add(p);
        return p;
    }

    private static MemorySegment cell() {
        MemorySegment c = CELLS.poll();
        return c != null ? c : Arena.global().allocate(ValueLayout.JAVA_INT, 2);
    }

    /** {@code seg} itself when native, else a native copy of its first {@code bytes} ({@code copyIn}) or a blank one. */
    static MemorySegment nativeOf(MemorySegment seg, long bytes, boolean copyIn) {
        if (seg.isNative()) {
            return seg;
        }
        MemorySegment b = Arena.ofAuto().allocate(Math.max(bytes, 8), 64).asSlice(0, bytes);
        if (copyIn) {
            MemorySegment.copy(seg, 0, b, 0, bytes);
        }
        return b;
    }

    /** The heap segment a staged output goes back to, or null when {@code seg} is native (MPI wrote it directly). */
    static MemorySegment heapTarget(MemorySegment seg) {
        return seg == null || seg.isNative() ? null : seg;
    }

    @Override
    public boolean test() {
        if (done) {
            return true;
        }
        int index = cell.getAtIndex(ValueLayout.JAVA_INT, 0);
        MemorySegment flag = cell.asSlice(4, 4);
        int rc = mpi.call("MPI_Test", () -> (int) MpiShim.TEST.invokeExact(index, flag));
        mpi.check(rc, what + " (MPI_Test)");
        if (flag.get(ValueLayout.JAVA_INT, 0) == 0) {
            return false;
        }
        done = true;
        IN_FLIGHT.remove(this);
        CELLS.add(cell);   // MPI is done with the slot; the cell is not read again
        if (target != null) {
            MemorySegment.copy(output, 0, target, 0, output.byteSize());
        }
        return true;
    }

    @Override
    public String toString() {
        return what + (done ? " (done)" : " (in flight)") + (input != null ? ", staged input" : "");
    }
}
