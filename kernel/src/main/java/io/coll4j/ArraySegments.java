package io.coll4j;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The segment views of {@link PointToPoint}'s array and buffer forms: the whole array, or {@code count} elements from
 * {@code offset}, refused with one line when null or out of range (the messages name the array, not a segment).
 */
final class ArraySegments {
    private ArraySegments() {
    }

    static MemorySegment of(ByteBuffer b) {
        if (b == null) {
            throw new IllegalArgumentException("the buffer must not be null");
        }
        return MemorySegment.ofBuffer(b);
    }

    static MemorySegment of(byte[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(byte[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 1L, count * 1L);
    }

    static MemorySegment of(short[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(short[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 2L, count * 2L);
    }

    static MemorySegment of(char[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(char[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 2L, count * 2L);
    }

    static MemorySegment of(int[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(int[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 4L, count * 4L);
    }

    static MemorySegment of(long[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(long[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 8L, count * 8L);
    }

    static MemorySegment of(float[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(float[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 4L, count * 4L);
    }

    static MemorySegment of(double[] a) {
        if (a == null) {
            throw new IllegalArgumentException("the array must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(double[] a, int offset, int count) {
        range(a == null ? -1 : a.length, offset, count);
        return MemorySegment.ofArray(a).asSlice(offset * 8L, count * 8L);
    }

    private static void range(int length, int offset, int count) {
        if (length < 0) {
            throw new IllegalArgumentException("the array must not be null");
        }
        if (offset < 0 || count < 0 || offset > length - count) {
            throw new IllegalArgumentException("offset " + offset + " and count " + count + " do not fit an array of "
                    + length + " elements");
        }
    }
}
