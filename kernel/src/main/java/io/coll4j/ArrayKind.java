package io.coll4j;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * The Java array types the array forms of {@link Rank}'s collectives take, and the dtype each one carries:
 * {@code double[]} F64, {@code float[]} F32, {@code int[]} I32, {@code long[]} I64. {@link ArrayCollectives}'
 * typed overloads fix the type at compile time; {@link ArrayCalls} resolves the kind here once per call, so the
 * plumbing is written once for the four types. Other dtypes (F16, BF16, U32, U64, pairs) have no array type of
 * their own — a {@code short[]} could be either half type — and use the segment forms.
 */
enum ArrayKind {
    F64(double[].class, DType.F64), F32(float[].class, DType.F32), I32(int[].class, DType.I32), I64(long[].class, DType.I64);

    private final Class<?> arrayClass;
    private final DType dtype;

    ArrayKind(Class<?> arrayClass, DType dtype) {
        this.arrayClass = arrayClass;
        this.dtype = dtype;
    }

    DType dtype() {
        return dtype;
    }

    /** The kind of {@code a}; {@link IllegalArgumentException} naming {@code name} when it is null or not one of them. */
    static ArrayKind of(String name, Object a) {
        if (a == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        for (ArrayKind k : values()) {
            if (k.arrayClass == a.getClass()) {
                return k;
            }
        }
        throw new IllegalArgumentException(name + " is a " + a.getClass().getSimpleName()
                + ", not a numeric array (double[], float[], int[] or long[])");
    }

    /** The whole of {@code a}, which must be an array of this kind (the buffers of one call share a type). */
    MemorySegment segment(String name, Object a) {
        if (a == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (a.getClass() != arrayClass) {
            throw new IllegalArgumentException(name + " is a " + a.getClass().getSimpleName() + " but the call's "
                    + "other buffer is a " + arrayClass.getSimpleName() + ": the buffers of one call share a type");
        }
        return switch (this) {
            case F64 -> MemorySegment.ofArray((double[]) a);
            case F32 -> MemorySegment.ofArray((float[]) a);
            case I32 -> MemorySegment.ofArray((int[]) a);
            case I64 -> MemorySegment.ofArray((long[]) a);
        };
    }

    /** {@link #segment}, or null for a null {@code a} (the buffers MPI ignores, e.g. recv off the root). */
    MemorySegment optional(String name, Object a) {
        return a == null ? null : segment(name, a);
    }

    /** Elements {@code [offset, offset + count)} of {@code a}, checked: {@link IllegalArgumentException} naming what is out of range. */
    MemorySegment range(String name, Object a, int offset, long count) {
        MemorySegment whole = segment(name, a);
        long length = whole.byteSize() / dtype.size();
        if (offset < 0 || count < 0 || offset + count > length) {
            throw new IllegalArgumentException(name + ": elements [" + offset + ", " + offset + " + " + count
                    + ") are outside its " + length + " elements");
        }
        return whole.asSlice(offset * (long) dtype.size(), count * dtype.size());
    }

    /** {@link #range}, or null for a null {@code a}. */
    MemorySegment optionalRange(String name, Object a, int offset, long count) {
        return a == null ? null : range(name, a, offset, count);
    }

    /** Number of elements of {@code a} (0 for null). */
    static int length(Object a) {
        return a == null ? 0 : java.lang.reflect.Array.getLength(a);
    }
}
