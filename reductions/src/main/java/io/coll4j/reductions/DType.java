package io.coll4j.reductions;

import java.lang.foreign.ValueLayout;

/**
 * Element types a collective can carry. Names match the CLI's {@code -d} values ({@link #cliName()}).
 *
 * <ul>
 *   <li>F16 and BF16 are 2-byte storage types: every step {@code a op b} widens both operands to f32
 *       (exactly), computes in f32 and rounds the result back to nearest, ties to even. For SUM, PROD and
 *       the AVG division this is exactly IEEE binary16 / bfloat16 arithmetic: f32's 24-bit significand is at
 *       least 2p + 2 bits for p = 11 (f16) and 8 (bf16), so rounding twice cannot differ from rounding
 *       once (Figueroa's double-rounding theorem). A k-ary fold rounds after every step, so the bits do not
 *       depend on how many sources a pass folds. NaN results are quiet NaNs.</li>
 *   <li>U32 and U64 are unsigned: MIN and MAX compare unsigned; SUM and PROD wrap exactly like the signed
 *       types (the bits are the same); AVG divides unsigned.</li>
 *   <li>F32_I32, F64_I64, I32_I32 and I64_I64 are (value, index) pairs for MINLOC/MAXLOC only: the value
 *       at byte 0, the index right after it, both of the value's width, so a pair has no padding (MPI's
 *       {@code MPI_DOUBLE_INT} pads an int index to 16 bytes; coll4j widens the index to i64 instead).</li>
 * </ul>
 */
public enum DType {
    /** IEEE-754 binary32 ({@code float}). */
    F32(4, Kind.FLOAT, ValueLayout.JAVA_FLOAT_UNALIGNED, float.class, float[].class),
    /** IEEE-754 binary64 ({@code double}). */
    F64(8, Kind.FLOAT, ValueLayout.JAVA_DOUBLE_UNALIGNED, double.class, double[].class),
    /** two's complement 32-bit ({@code int}); SUM and PROD wrap like Java arithmetic. */
    I32(4, Kind.SIGNED, ValueLayout.JAVA_INT_UNALIGNED, int.class, int[].class),
    /** two's complement 64-bit ({@code long}); SUM and PROD wrap like Java arithmetic. */
    I64(8, Kind.SIGNED, ValueLayout.JAVA_LONG_UNALIGNED, long.class, long[].class),
    /** IEEE-754 binary16 in a {@code short} ({@link Float#float16ToFloat}); folded in f32, rounded per step. */
    F16(2, Kind.HALF, ValueLayout.JAVA_SHORT_UNALIGNED, short.class, short[].class),
    /** bfloat16 (the upper half of an f32) in a {@code short}; folded in f32, rounded per step. */
    BF16(2, Kind.HALF, ValueLayout.JAVA_SHORT_UNALIGNED, short.class, short[].class),
    /** unsigned 32-bit in an {@code int}: unsigned MIN/MAX/AVG, wrapping SUM/PROD. */
    U32(4, Kind.UNSIGNED, ValueLayout.JAVA_INT_UNALIGNED, int.class, int[].class),
    /** unsigned 64-bit in a {@code long}: unsigned MIN/MAX/AVG, wrapping SUM/PROD. */
    U64(8, Kind.UNSIGNED, ValueLayout.JAVA_LONG_UNALIGNED, long.class, long[].class),
    /** (f32 value, i32 index) pair, 8 bytes, for MINLOC/MAXLOC. */
    F32_I32(8, Kind.PAIR, ValueLayout.JAVA_FLOAT_UNALIGNED, float.class, long[].class),
    /** (f64 value, i64 index) pair, 16 bytes, for MINLOC/MAXLOC. */
    F64_I64(16, Kind.PAIR, ValueLayout.JAVA_DOUBLE_UNALIGNED, double.class, long[].class),
    /** (i32 value, i32 index) pair, 8 bytes, for MINLOC/MAXLOC ({@code MPI_2INT}). */
    I32_I32(8, Kind.PAIR, ValueLayout.JAVA_INT_UNALIGNED, int.class, long[].class),
    /** (i64 value, i64 index) pair, 16 bytes, for MINLOC/MAXLOC. */
    I64_I64(16, Kind.PAIR, ValueLayout.JAVA_LONG_UNALIGNED, long.class, long[].class);

    /** The arithmetic family of a dtype, which decides the ops it supports. */
    enum Kind { FLOAT, SIGNED, UNSIGNED, HALF, PAIR }

    private final int size;
    private final Kind kind;
    private final ValueLayout layout;
    private final Class<?> javaType;
    private final Class<?> arrayType;

    DType(int size, Kind kind, ValueLayout layout, Class<?> javaType, Class<?> arrayType) {
        this.size = size;
        this.kind = kind;
        this.layout = layout;
        this.javaType = javaType;
        this.arrayType = arrayType;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** True for the floating-point types F32, F64, F16 and BF16 (no bitwise ops). */
    public boolean isFloating() {
        return kind == Kind.FLOAT || kind == Kind.HALF;
    }

    /** True for the integer types I32, I64, U32 and U64 (the ones bitwise ops are defined on). */
    public boolean isInteger() {
        return kind == Kind.SIGNED || kind == Kind.UNSIGNED;
    }

    /** True for U32 and U64. */
    public boolean isUnsigned() {
        return kind == Kind.UNSIGNED;
    }

    /** True for the 2-byte floating types F16 and BF16 (folded in f32). */
    public boolean isHalf() {
        return kind == Kind.HALF;
    }

    /** True for the (value, index) pair types of MINLOC/MAXLOC. */
    public boolean isPair() {
        return kind == Kind.PAIR;
    }

    /** For a pair type, the type of its value (and the width of its index): F32 for F32_I32, …; else this. */
    public DType valueType() {
        return switch (this) {
            case F32_I32 -> F32;
            case F64_I64 -> F64;
            case I32_I32 -> I32;
            case I64_I64 -> I64;
            default -> this;
        };
    }

    /**
     * The unaligned value layout of one element (of a pair type: of its value; the index has the same
     * width): kernels accept segments at any byte offset, so every access they make goes through an
     * unaligned layout.
     */
    public ValueLayout layout() {
        return layout;
    }

    /**
     * The Java primitive type of one element: {@code float.class}, {@code double.class}, {@code int.class},
     * {@code long.class}; {@code short.class} for F16/BF16; the value's type for a pair.
     */
    public Class<?> javaType() {
        return javaType;
    }

    /**
     * The Java array type whose elements are this dtype: {@code float[].class} for F32, {@code short[]} for
     * F16/BF16, {@code int[]}/{@code long[]} for U32/U64; pairs have none of their own and use the raw
     * {@code long[]}.
     */
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

    /** Lower-case CLI name: {@code f32}, {@code f64}, {@code i32}, {@code i64}, {@code f16}, {@code bf16}, {@code u32}, {@code u64}, {@code f32_i32}, …. */
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
        throw new IllegalArgumentException("unknown dtype '" + name + "' (expected one of " + names() + ")");
    }

    /** Every CLI name, comma-separated, for messages. */
    public static String names() {
        StringBuilder b = new StringBuilder();
        for (DType t : values()) {
            b.append(b.isEmpty() ? "" : ", ").append(t.cliName());
        }
        return b.toString();
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
