package io.coll4j.kernel.memory;

import java.lang.foreign.MemorySegment;

/**
 * The one answer to "are these two buffers the same memory?" for the argument checks and for every
 * algorithm that treats an in-place call differently (docs/design.md, "Error contract", aliasing).
 *
 * <p>Why not {@code heapBase()}: it is empty for a read-only heap segment, so a comparison of bases takes
 * {@code arr.asReadOnly()} and {@code arr} for unrelated storage, and a partial overlap or an in-place call
 * through a read-only view went unnoticed (issue 30). {@code equals} is no better: its specification also
 * compares {@code heapBase()} (the implementation happens not to). {@link MemorySegment#asOverlappingSlice}
 * is specified on the memory itself, whatever the view, so heap segments fall back to it when either hides
 * its array. Native segments (allocated, mapped, wrapped direct buffers, read-only or not) share one
 * address space and compare by address.
 *
 * <p>Two mappings of one file at different addresses alias without sharing an address; nothing short of
 * asking the kernel can see that, and nothing here tries.
 */
public final class Aliasing {
    /** {@link #offset}'s answer for segments that share no storage. */
    public static final long UNRELATED = Long.MIN_VALUE;

    private Aliasing() {
    }

    /**
     * The byte offset of {@code b}'s first byte from {@code a}'s when both lie in one storage (native memory,
     * or one Java array), else {@link #UNRELATED}. One limit: a read-only heap view and a segment of the same
     * array that share no byte (or are empty) are reported unrelated, since the JDK shows a read-only view's
     * array only through an overlap; no question this class answers for non-empty ranges within the
     * segments depends on that.
     */
    public static long offset(MemorySegment a, MemorySegment b) {
        if (a == b) {
            return 0;
        }
        boolean an = a.isNative();
        if (an != b.isNative()) {
            return UNRELATED;
        }
        if (an) {
            return b.address() - a.address();
        }
        Object aa = a.heapBase().orElse(null);
        Object ba = b.heapBase().orElse(null);
        if (aa != null && ba != null) {
            return aa == ba ? b.address() - a.address() : UNRELATED;
        }
        // a read-only view hides its array; for heap segments address() is the byte offset into the array
        return a.asOverlappingSlice(b).isPresent() ? b.address() - a.address() : UNRELATED;
    }

    /** True when byte {@code aOff} of {@code a} is byte {@code bOff} of {@code b}: one buffer passed twice (in place). */
    public static boolean sameStart(MemorySegment a, long aOff, MemorySegment b, long bOff) {
        if (a == b) {
            return aOff == bOff;
        }
        long d = offset(a, b);
        return d != UNRELATED && aOff == d + bOff;
    }

    /** {@link #sameStart(MemorySegment, long, MemorySegment, long)} of the first bytes. */
    public static boolean sameStart(MemorySegment a, MemorySegment b) {
        return sameStart(a, 0, b, 0);
    }

    /** True when {@code [aOff, aOff + aBytes)} of {@code a} and {@code [bOff, bOff + bBytes)} of {@code b} share a byte. */
    public static boolean overlap(MemorySegment a, long aOff, long aBytes, MemorySegment b, long bOff, long bBytes) {
        if (aBytes <= 0 || bBytes <= 0) {
            return false;
        }
        long d = offset(a, b);
        if (d == UNRELATED) {
            return false;
        }
        long b0 = d + bOff;                   // b's range, in a's byte numbering
        return aOff < b0 + bBytes && b0 < aOff + aBytes;
    }

    /** {@link #overlap(MemorySegment, long, long, MemorySegment, long, long)} of ranges from the first bytes. */
    public static boolean overlap(MemorySegment a, long aBytes, MemorySegment b, long bBytes) {
        return overlap(a, 0, aBytes, b, 0, bBytes);
    }
}
