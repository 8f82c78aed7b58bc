package io.coll4j.mpi;

import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.kernel.span.RequestBuffers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One non-blocking MPI collective in flight: the index of its MPI_Request in the shim's table, and the memory MPI
 * works on ({@link Buffers}): native stand-ins of heap buffers and of segments of closeable arenas, which must live
 * (and not move) until MPI is done with them — so they belong to the request, not to the per-thread staging of the
 * blocking calls, which the next call reuses. Posting and
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
     * The requests MPI has not finished with: they keep their buffers (the staging, and the user's global or auto
     * segments MPI works on in place) reachable even when their SpanRequest was dropped un-awaited, since any
     * later MPI call, MPI_Finalize included, may still progress them.
     */
    private static final java.util.Set<MpiPending> IN_FLIGHT = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** What MPI works on: see {@link Buffers}. */
    private final Buffers buffers;
    private boolean done;

    private MpiPending(MpiSession mpi, String what, Buffers buffers) {
        this.mpi = mpi;
        this.what = what;
        this.buffers = buffers;
    }

    /** Posts {@code post} on {@code buffers} (its staged outputs are copied back when the test finds it done). */
    static MpiPending post(MpiSession mpi, String what, Buffers buffers, Post post) {
        MpiPending p = new MpiPending(mpi, what, buffers);
        MemorySegment slot = p.cell;
        int rc = mpi.call(what, () -> post.run(slot));
        if (rc != 0) {
            CELLS.add(slot);   // nothing was posted
            buffers.release();
        }
        mpi.check(rc, what);
        IN_FLIGHT.add(p);
        return p;
    }

    /** True while a request is posted that MPI has not finished (it may still read or write its buffers). */
    static boolean anyInFlight() {
        return !IN_FLIGHT.isEmpty();
    }

    private static MemorySegment cell() {
        MemorySegment c = CELLS.poll();
        return c != null ? c : Arena.global().allocate(ValueLayout.JAVA_INT, 2);
    }

    private static final Class<?> GLOBAL = MemorySegment.NULL.scope().getClass();
    private static final Class<?> AUTO = Arena.ofAuto().allocate(1).scope().getClass();

    /**
     * True when MPI may work on native {@code seg} in place after the call that posts returns: its memory is
     * freed only once nothing refers to it (global, auto: the request keeps it reachable until MPI is done) or
     * only once MPI is done with it (a spanning team's own, {@link SpanMemory}). A segment of any other arena
     * (Arena.ofShared, a custom one) could be freed by its owner's close() while MPI still reads or writes it —
     * FFM has no public way to hold a closeable arena open across calls — so it is staged.
     */
    static boolean inPlace(MemorySegment seg) {
        if (!seg.isNative()) {
            return false;
        }
        Class<?> k = seg.scope().getClass();
        return k == GLOBAL || k == AUTO || io.coll4j.kernel.span.SpanMemory.owned(seg.scope());
    }

    /**
     * The memory one non-blocking call works on: each user segment either itself (see {@link #inPlace}) or a
     * native stand-in of the request's own, copied in when posting and back when done. The stand-ins of 64 KiB
     * and more are pooled ({@link RequestBuffers#borrow}). When the request completes, every user segment must
     * still be alive: one whose arena was closed while MPI worked on (a stand-in of) it is an
     * {@link IllegalArgumentException} saying so, and nothing is written to it.
     */
    static final class Buffers {
        private MemorySegment[] user = new MemorySegment[2];
        private MemorySegment[] staged = new MemorySegment[2];
        private String[] names = new String[2];
        private boolean[] back = new boolean[2];
        /** The borrowed buffers the stand-ins are slices of. */
        private MemorySegment[] wholes = new MemorySegment[2];
        private int n;

        /**
         * What MPI works on for {@code seg} ({@code bytes}, the user's segment {@code name}): {@code seg} itself or
         * a stand-in, filled from it when {@code copyIn}, copied back into it when done when {@code copyBack}.
         */
        MemorySegment stage(String name, MemorySegment seg, long bytes, boolean copyIn, boolean copyBack) {
            if (n == user.length) {
                user = java.util.Arrays.copyOf(user, 2 * n);
                staged = java.util.Arrays.copyOf(staged, 2 * n);
                names = java.util.Arrays.copyOf(names, 2 * n);
                back = java.util.Arrays.copyOf(back, 2 * n);
                wholes = java.util.Arrays.copyOf(wholes, 2 * n);
            }
            MemorySegment b;
            if (inPlace(seg)) {
                b = seg;
            } else {
                alive(name, seg);
                MemorySegment whole = RequestBuffers.borrow(bytes);
                b = whole.asSlice(0, bytes);
                if (copyIn) {
                    try {
                        MemorySegment.copy(seg, 0, b, 0, bytes);
                    } catch (IllegalStateException e) {   // closed by another thread since alive()
                        RequestBuffers.giveBack(whole);
                        throw dead(name, e);
                    }
                }
                wholes[n] = whole;
            }
            user[n] = seg;
            staged[n] = b;
            names[n] = name;
            back[n] = copyBack && b != seg;
            n++;
            return b;
        }

        /** Copies the staged outputs back, or throws if a user segment died meanwhile; gives the stand-ins back. */
        void complete(String what) {
            try {
                for (int i = 0; i < n; i++) {
                    if (user[i] != staged[i]) {
                        alive(names[i] + " of " + what, user[i]);
                    }
                }
                for (int i = 0; i < n; i++) {
                    if (back[i]) {
                        try {
                            MemorySegment.copy(staged[i], 0, user[i], 0, staged[i].byteSize());
                        } catch (IllegalStateException e) {   // closed by another thread meanwhile
                            throw dead(names[i] + " of " + what, e);
                        }
                    }
                }
            } finally {
                release();
            }
        }

        /** Gives the stand-ins back (MPI is done with them, or never had them). */
        void release() {
            for (int i = 0; i < n; i++) {
                if (wholes[i] != null) {
                    RequestBuffers.giveBack(wholes[i]);
                    wholes[i] = null;
                }
            }
        }

        boolean staged() {
            for (int i = 0; i < n; i++) {
                if (user[i] != staged[i]) {
                    return true;
                }
            }
            return false;
        }

        private static void alive(String name, MemorySegment seg) {
            if (!seg.scope().isAlive()) {
                throw dead(name, null);
            }
        }

        private static IllegalArgumentException dead(String name, Throwable cause) {
            return new IllegalArgumentException(name + " is not alive: its arena was closed", cause);
        }
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
        buffers.complete(what);
        return true;
    }

    @Override
    public String toString() {
        return what + (done ? " (done)" : " (in flight)") + (buffers.staged() ? ", staged" : "");
    }
}
