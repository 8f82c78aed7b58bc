package io.coll4j.reductions;

import java.lang.foreign.ValueLayout;

/**
 * Element types a collective can carry. Names match the CLI's {@code -d f32|f64|i32|i64}.
 */
public enum DType {
    /** IEEE-754 binary32 ({@code float}). */
    F32(4, true, ValueLayout.JAVA_FLOAT_UNALIGNED, float.class, float[].class),
    /** IEEE-754 binary64 ({@code double}). */
    F64(8, true, ValueLayout.JAVA_DOUBLE_UNALIGNED, double.class, double[].class),
    /** two's complement 32-bit ({@code int}); SUM and PROD wrap like Java arithmetic. */
    I32(4, false, ValueLayout.JAVA_INT_UNALIGNED, int.class, int[].class),
    /** two's complement 64-bit ({@code long}); SUM and PROD wrap like Java arithmetic. */
    I64(8, false, ValueLayout.JAVA_LONG_UNALIGNED, long.class, long[].class);

    private final int size;
    private final boolean floating;
    private final ValueLayout layout;
    private final Class<?> javaType;
    private final Class<?> arrayType;

    DType(int size, boolean floating, ValueLayout layout, Class<?> javaType, Class<?> arrayType) {
        this.size = size;
        this.floating = floating;
        this.layout = layout;
        this.javaType = javaType;
        this.arrayType = arrayType;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** True for F32 and F64. */
    public boolean isFloating() {
        return floating;
    }

    /**
     * The unaligned value layout of one element: kernels accept segments at any byte offset, so
     * every access they make goes through an unaligned layout.
     */
    public ValueLayout layout() {
        return layout;
    }

    /** The Java primitive type of one element: {@code float.class}, {@code double.class}, {@code int.class}, {@code long.class}. */
    public Class<?> javaType() {
        return javaType;
    }

    /** The Java array type whose elements are this dtype: {@code float[].class} for F32, and so on. */
    public Class<?> arrayType() {
        return arrayType;
    }

    /**
     * True when a heap segment backed by an array of class {@code arrayClass} may carry elements of
     * this dtype: its own array type ({@code double[]} for F64, …), or {@code byte[]} and {@code long[]},
     * which are raw storage for every dtype ({@code byte[]} is what {@code ByteBuffer}s and files give,
     * {@code long[]} is the usual 8-byte-aligned raw buffer). Any other array — a {@code float[]} handed to
     * an F64 reduction, an {@code int[]} to an F32 one — is almost always the wrong overload or the wrong
     * dtype, and reductions reject it.
     */
    public boolean canBeBackedBy(Class<?> arrayClass) {
        return arrayClass == arrayType || arrayClass == byte[].class || arrayClass == long[].class;
    }

    /** Lower-case CLI name: {@code f32}, {@code f64}, {@code i32}, {@code i64}. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses a CLI name (case-insensitive); {@link IllegalArgumentException} naming the value otherwise. */
    public static DType parse(String name) {
        for (DType t : values()) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + name + "' (expected one of f32, f64, i32, i64)");
    }

    /**
     * Bytes occupied by {@code count} elements, checked: {@link IllegalArgumentException} naming
     * {@code count} when it is negative or the product overflows.
     */
    public long bytes(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
        return Math.multiplyExact(count, (long) size);
    }
}
