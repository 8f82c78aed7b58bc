package io.coll4j;

import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Argument checks of the collectives (docs/design.md, "Error contract"): every failure is an {@link IllegalArgumentException}
 * naming the argument, thrown on the calling rank before any shared state is touched.
 */
final class Arguments {
    /** A thread that never runs: a segment it may access is accessible from every thread. */
    private static final Thread PROBE = Thread.ofPlatform().unstarted(() -> { });

    private Arguments() {
    }

    static void count(String name, long count) {
        if (count < 0) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + count);
        }
    }

    static void dtype(DType dtype) {
        if (dtype == null) {
            throw new IllegalArgumentException("dtype must not be null");
        }
    }

    static void op(Op op, DType dtype) {
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        op.checkSupports(dtype);
    }

    static void root(int root, int ranks) {
        if (root < 0 || root >= ranks) {
            throw new IllegalArgumentException("root " + root + " is out of range: the team has ranks 0.." + (ranks - 1));
        }
    }

    static long bytes(long count, DType dtype, int multiple) {
        try {
            return Math.multiplyExact(Math.multiplyExact(count, (long) dtype.size()), (long) multiple);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("count " + count + " × " + dtype.size() + " bytes overflows");
        }
    }

    /**
     * The one validation of a collective call, shared by the {@link Rank} methods and the plan path
     * ({@link CollectivePlan#execute}): counts, dtype, op and root, then every buffer the call touches —
     * not null, alive, large enough, accessible from every rank, writable where written, and overlapping
     * only as the collective allows. {@code recv} of a non-root reduce rank is not looked at.
     */
    static void collective(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                           int root, int rank, int size) {
        if (c == Collective.BARRIER) {
            return;
        }
        count(switch (c) {
            case REDUCE_SCATTER -> "recvCount";
            case ALLGATHER -> "sendCount";
            default -> "count";
        }, count);
        dtype(dtype);
        if (c.reduces()) {
            op(op, dtype);
        }
        if (c.rooted()) {
            root(root, size);
        }
        buffers(c, send, recv, count, dtype, root, rank, size);
    }

    /**
     * The buffer half of {@link #collective}: what a plan's call checks, since the plan checked the rest once
     * (a call of the whole validation is not inlined, and cost the 8-byte plan path ~6 ns of ~200).
     */
    static void buffers(Collective c, MemorySegment send, MemorySegment recv, long count, DType dtype, int root,
                        int rank, int size) {
        if (c == Collective.ALLREDUCE) {
            allreduceBuffers(send, recv, bytes(count, dtype, 1), rank);
            return;
        }
        if (c == Collective.BARRIER) {
            return;
        }
        long block = bytes(count, dtype, 1);
        switch (c) {
            case BCAST -> writable("buf", send, block, rank);
            case REDUCE -> {
                readable("send", send, block, rank);
                if (rank == root) {
                    writable("recv", recv, block, rank);
                    inPlaceOrDisjoint("send", send, "recv", recv, block);
                }
            }
            case REDUCE_SCATTER -> {
                long total = bytes(count, dtype, size);
                readable("send", send, total, rank);
                writable("recv", recv, block, rank);
                if (Aliasing.overlap(send, total, recv, block)) {
                    throw new IllegalArgumentException("send and recv overlap: reduceScatter needs separate buffers");
                }
            }
            case ALLGATHER -> {
                long total = bytes(count, dtype, size);
                readable("send", send, block, rank);
                writable("recv", recv, total, rank);
                if (Aliasing.overlap(send, block, recv, total) && !Aliasing.sameStart(send, 0, recv, rank * block)) {
                    throw new IllegalArgumentException("send overlaps recv without being this rank's block of it");
                }
            }
            default -> throw new AssertionError(c);
        }
    }

    /** Allreduce's buffers ({@code bytes} each), small enough for C2 to inline on the latency path. */
    static void allreduceBuffers(MemorySegment send, MemorySegment recv, long bytes, int rank) {
        readable("send", send, bytes, rank);
        writable("recv", recv, bytes, rank);
        inPlaceOrDisjoint("send", send, "recv", recv, bytes);
    }

    /** A buffer the collective reads: not null, alive, large enough, accessible from every rank's thread. */
    static void readable(String name, MemorySegment seg, long bytes, int rank) {
        if (seg == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (!seg.scope().isAlive()) {
            // checked here, before anything is published: a peer reading it would fail in the middle of the
            // collective, and a native kernel given its address would read freed memory
            throw new IllegalArgumentException(name + " of rank " + rank + " is not alive: its arena was closed");
        }
        if (seg.byteSize() < bytes) {
            throw new IllegalArgumentException(name + " is too small: " + seg.byteSize() + " bytes, the call needs " + bytes);
        }
        if (!seg.isAccessibleBy(PROBE)) {
            throw new IllegalArgumentException(name + " is confined to one thread; other ranks must read it: use rank.allocate,"
                    + " Arena.ofShared/ofAuto/global, or a heap segment");
        }
    }

    /** A buffer the collective writes: as {@link #readable} and not read-only. */
    static void writable(String name, MemorySegment seg, long bytes, int rank) {
        readable(name, seg, bytes, rank);
        if (seg.isReadOnly()) {
            throw new IllegalArgumentException(name + " is read-only");
        }
    }

    /** In place (same start) is allowed; any other overlap is an error. Returns true for in place. */
    static boolean inPlaceOrDisjoint(String sendName, MemorySegment send, String recvName, MemorySegment recv, long bytes) {
        if (Aliasing.sameStart(send, recv)) {
            return true;
        }
        if (Aliasing.overlap(send, bytes, recv, bytes)) {
            throw new IllegalArgumentException(sendName + " and " + recvName
                    + " overlap without being the same buffer (pass the same segment for in place)");
        }
        return false;
    }

    // ---- count arrays of the v-variants ----

    /**
     * A counts or displacements array: not null, one entry per rank, every entry {@code >= 0}.
     * Returns nothing; throws naming the array and the first bad entry.
     */
    static void perRank(String name, long[] a, int ranks) {
        if (a == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (a.length != ranks) {
            throw new IllegalArgumentException(name + " has " + a.length + " entries, the team has " + ranks + " ranks");
        }
        for (int j = 0; j < ranks; j++) {
            if (a[j] < 0) {
                throw new IllegalArgumentException(name + "[" + j + "] must be >= 0, got " + a[j]);
            }
        }
    }

    /**
     * Bytes from the start of a buffer to the end of its last non-empty block {@code displs[j] + counts[j]}
     * (elements × dtype size), with overflow reported against the arrays' names.
     */
    static long extentBytes(String countsName, long[] counts, String displsName, long[] displs, DType dtype) {
        long end = 0;
        try {
            for (int j = 0; j < counts.length; j++) {
                if (counts[j] > 0) {
                    end = Math.max(end, Math.addExact(displs[j], counts[j]));
                }
            }
            return Math.multiplyExact(end, (long) dtype.size());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(displsName + " + " + countsName + " overflows");
        }
    }

    /** Sum of {@code counts} in bytes. */
    static long totalBytes(String name, long[] counts, DType dtype) {
        try {
            long t = 0;
            for (long c : counts) {
                t = Math.addExact(t, c);
            }
            return Math.multiplyExact(t, (long) dtype.size());
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("the sum of " + name + " overflows");
        }
    }

    /**
     * Non-empty blocks {@code [displs[j], displs[j] + counts[j])} of one buffer must not share an element
     * (MPI forbids it for receive buffers: the result would depend on the order of the copies). Linear when
     * the displacements ascend (the usual layout), quadratic otherwise.
     */
    static void disjointBlocks(String countsName, long[] counts, String displsName, long[] displs) {
        int p = counts.length;
        long prevEnd = 0;
        boolean ascending = true;
        for (int j = 0; j < p && ascending; j++) {
            if (counts[j] == 0) {
                continue;
            }
            if (displs[j] < prevEnd) {
                ascending = false;
            }
            prevEnd = displs[j] + counts[j];
        }
        if (ascending) {
            return;
        }
        for (int i = 0; i < p; i++) {
            for (int j = i + 1; j < p; j++) {
                if (counts[i] > 0 && counts[j] > 0 && displs[i] < displs[j] + counts[j] && displs[j] < displs[i] + counts[i]) {
                    throw new IllegalArgumentException("blocks " + i + " and " + j + " of " + displsName + "/" + countsName
                            + " overlap: [" + displs[i] + ", +" + counts[i] + ") and [" + displs[j] + ", +" + counts[j] + ")");
                }
            }
        }
    }

    /** {@code int[]} counts of an array form as {@code long[]} (null stays null). */
    static long[] widen(int[] a) {
        if (a == null) {
            return null;
        }
        long[] w = new long[a.length];
        for (int i = 0; i < a.length; i++) {
            w[i] = a[i];
        }
        return w;
    }
}
