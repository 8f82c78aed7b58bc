package io.coll4j.kernel.algo;

import io.coll4j.kernel.sync.Stamp;

/**
 * How a strip-mined copy cuts {@code bytes} into slices [YHCCL §5.1]: {@code I = max(min(s/p, I_max),
 * cache line)}, rounded up to whole 64-byte lines (a whole number of elements of every dtype, and two
 * ranks never write the same line), and large enough that the slice count fits a stamp's step field.
 * Slice {@code j} is {@code [offset(j), offset(j) + length(j))}; only the last one may be shorter.
 *
 * @param bytes  the bytes cut into slices
 * @param slice  I, the length of every slice but the last
 * @param count  number of slices (0 for an empty message)
 */
public record Slicing(long bytes, long slice, long count) {
    /** Cache line: the smallest slice and the granularity of every slice. */
    public static final long LINE = 64;

    public Slicing {
        if (bytes < 0 || slice < LINE || slice % LINE != 0 || count < 0) {
            throw new IllegalArgumentException("bad slicing: bytes " + bytes + ", slice " + slice + ", count " + count);
        }
    }

    /**
     * Slices of {@code bytes} for {@code parts} parties (the {@code s/p} of YHCCL's rule) with at most
     * {@code maxSlice} bytes each ({@code I_max}, rounded down to whole lines, at least one line).
     */
    public static Slicing of(long bytes, int parts, long maxSlice) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1, got " + parts);
        }
        long max = Math.max(LINE, maxSlice / LINE * LINE);
        long share = roundUp((bytes + parts - 1) / parts);
        // every slice index must be a publishable step (Stamp.MAX_STEP): grow the slice for huge messages
        long floor = roundUp((bytes + Stamp.MAX_STEP - 1) / Stamp.MAX_STEP);
        long slice = Math.max(Math.max(Math.min(share, max), LINE), floor);
        return new Slicing(bytes, slice, (bytes + slice - 1) / slice);
    }

    private static long roundUp(long b) {
        return (b + LINE - 1) / LINE * LINE;
    }

    /** Byte offset of slice {@code j}. */
    public long offset(long j) {
        return j * slice;
    }

    /** Bytes of slice {@code j}. */
    public long length(long j) {
        return Math.min(slice, bytes - j * slice);
    }

    /** Bytes a ring of {@code slots} slices occupies (no more slots than slices). */
    public long ringBytes(int slots) {
        return Math.min(slots, count) * slice;
    }
}
