package io.coll4j.reductions;

/**
 * Reduction operators. Every operator here is associative and commutative on integers; on floats
 * SUM and PROD are not associative, which is why every algorithm documents its reduction order.
 *
 * <ul>
 *   <li>Integer SUM and PROD wrap (two's complement), exactly like Java's {@code +} and {@code *}.</li>
 *   <li>F32/F64 MIN and MAX are exactly {@link Math#min(double, double)} / {@link Math#max(double, double)}:
 *       if either operand is NaN the result is NaN, and −0.0 is treated as smaller than +0.0.
 *       (This differs from C's {@code fmin}/{@code fmax}, which return the non-NaN operand.)</li>
 *   <li>NaN payloads: where a result is NaN, implementations agree on its NaN-ness, not on its bits.
 *       Java does not fix which payload comes out when two NaNs meet: on JDK 25, {@code Math.min(-NaN₁, NaN₂)}
 *       returns NaN₁ in the interpreter and NaN₂ once C2 has compiled it, and {@code a + b} likewise returns
 *       a different operand's payload per tier, so no kernel can be bitwise equal to "the" scalar result
 *       there. Every non-NaN result is bitwise identical across implementations, vector sizes and tiers.
 *       MIN and MAX never make up a NaN: their result is always bitwise one of the operands (a signalling
 *       NaN stays signalling).</li>
 *   <li>BAND, BOR and BXOR are defined for I32 and I64 only; asking for them on F32/F64 is an
 *       {@link IllegalArgumentException} that names both the op and the dtype.</li>
 * </ul>
 */
public enum Op {
    SUM, PROD, MIN, MAX, BAND, BOR, BXOR;

    /** True for BAND, BOR, BXOR. */
    public boolean isBitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }

    /** True when this op is defined for {@code dtype}. */
    public boolean supports(DType dtype) {
        return !(isBitwise() && dtype.isFloating());
    }

    /**
     * Throws {@link IllegalArgumentException} naming both this op and the dtype when the op is not
     * defined for it (a bitwise op on a floating type).
     */
    public void checkSupports(DType dtype) {
        if (!supports(dtype)) {
            throw new IllegalArgumentException("op " + cliName() + " is not defined for dtype " + dtype.cliName()
                    + " (bitwise ops need an integer dtype: i32 or i64)");
        }
    }

    /** Lower-case CLI name: {@code sum}, {@code prod}, {@code min}, {@code max}, {@code band}, {@code bor}, {@code bxor}. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses a CLI name (case-insensitive); {@link IllegalArgumentException} naming the value otherwise. */
    public static Op parse(String name) {
        for (Op o : values()) {
            if (o.name().equalsIgnoreCase(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown op '" + name + "' (expected one of sum, prod, min, max, band, bor, bxor)");
    }
}
