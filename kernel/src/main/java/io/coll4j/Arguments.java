package io.coll4j;

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
            case ALLREDUCE -> {
                readable("send", send, block, rank);
                writable("recv", recv, block, rank);
                inPlaceOrDisjoint("send", send, "recv", recv, block);
            }
            case REDUCE_SCATTER -> {
                long total = bytes(count, dtype, size);
                readable("send", send, total, rank);
                writable("recv", recv, block, rank);
                if (overlap(send, total, recv, block)) {
                    throw new IllegalArgumentException("send and recv overlap: reduceScatter needs separate buffers");
                }
            }
            case ALLGATHER -> {
                long total = bytes(count, dtype, size);
                readable("send", send, block, rank);
                writable("recv", recv, total, rank);
                if (overlap(send, block, recv, total)
                        && !sameStart(send, recv.asSlice(Math.min(rank * block, recv.byteSize())))) {
                    throw new IllegalArgumentException("send overlaps recv without being this rank's block of it");
                }
            }
            default -> throw new AssertionError(c);
        }
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

    /** Same first byte and same storage: the caller passed one buffer as both (in place). */
    static boolean sameStart(MemorySegment a, MemorySegment b) {
        if (a == b) {
            return true;
        }
        if (a.isNative() != b.isNative()) {
            return false;
        }
        if (!a.isNative() && a.heapBase().orElse(null) != b.heapBase().orElse(null)) {
            return false;
        }
        return a.address() == b.address();
    }

    /** True when [a, a+aBytes) and [b, b+bBytes) share a byte. */
    static boolean overlap(MemorySegment a, long aBytes, MemorySegment b, long bBytes) {
        if (aBytes == 0 || bBytes == 0 || a.isNative() != b.isNative()) {
            return false;
        }
        if (!a.isNative() && a.heapBase().orElse(null) != b.heapBase().orElse(null)) {
            return false;
        }
        long a0 = a.address();
        long b0 = b.address();
        return a0 < b0 + bBytes && b0 < a0 + aBytes;
    }

    /** In place (same start) is allowed; any other overlap is an error. Returns true for in place. */
    static boolean inPlaceOrDisjoint(String sendName, MemorySegment send, String recvName, MemorySegment recv, long bytes) {
        if (sameStart(send, recv)) {
            return true;
        }
        if (overlap(send, bytes, recv, bytes)) {
            throw new IllegalArgumentException(sendName + " and " + recvName
                    + " overlap without being the same buffer (pass the same segment for in place)");
        }
        return false;
    }
}
