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

    /** A buffer the collective reads: not null, large enough, accessible from every rank's thread. */
    static void readable(String name, MemorySegment seg, long bytes) {
        if (seg == null) {
            throw new IllegalArgumentException(name + " must not be null");
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
    static void writable(String name, MemorySegment seg, long bytes) {
        readable(name, seg, bytes);
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
