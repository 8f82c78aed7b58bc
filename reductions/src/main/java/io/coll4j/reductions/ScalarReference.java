package io.coll4j.reductions;

import java.lang.foreign.MemorySegment;

/**
 * Kept only for {@code io.coll4j.Rank}, which still imports it while another change edits that class; the
 * scalar reference is internal ({@code io.coll4j.reductions.internal.ScalarReference}). To be deleted once
 * Rank imports the internal class.
 *
 * @deprecated internal to coll4j
 */
@Deprecated(forRemoval = true)
public final class ScalarReference {

    private ScalarReference() {
    }

    /** The raw bits of the non-pair element at {@code offset}. */
    public static long get(DType dtype, MemorySegment s, long offset) {
        return io.coll4j.reductions.internal.ScalarReference.get(dtype, s, offset);
    }

    /** Stores {@code bits} as the non-pair element at {@code offset}. */
    public static void set(DType dtype, MemorySegment s, long offset, long bits) {
        io.coll4j.reductions.internal.ScalarReference.set(dtype, s, offset, bits);
    }
}
