package io.coll4j.reductions;

/**
 * Reduction operators. Every operator here is associative and commutative on integers; on floats
 * SUM, PROD and AVG are not associative, which is why every algorithm documents its reduction order.
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
 *   <li>BAND, BOR and BXOR are defined for the integer types (I32, I64, U32, U64) only.</li>
 *   <li>AVG is SUM followed by one division of each result element by the number of contributions
 *       folded into it — the team size for allreduce, reduce and reduce-scatter, {@code r + 1} for rank
 *       r's inclusive scan and {@code r} for its exclusive scan (rank 0's exscan result is undefined, as
 *       in MPI). Floating types divide once, correctly rounded ({@code sum / n}, F16/BF16 in f32 then
 *       rounded to nearest even). Integer types divide the wrapped SUM truncating toward zero (Java's
 *       {@code /}); U32/U64 divide unsigned. Folds combine with {@link #foldOp()} (SUM), so every
 *       algorithm and kernel that sums serves AVG.</li>
 *   <li>MINLOC and MAXLOC are defined only on the pair types ({@link DType#isPair()}): the pair with the
 *       smaller (larger) value wins and equal values keep the lower index (MPI's rule), so the result is
 *       the same in every fold order. Float values order as {@link Float#compare}/{@link Double#compare}
 *       (−0.0 below +0.0) except that NaN wins both, as it does in MIN and MAX.</li>
 *   <li>Any other combination — a bitwise op on a float, MINLOC on a non-pair type, SUM on a pair — is an
 *       {@link IllegalArgumentException} that names both the op and the dtype.</li>
 * </ul>
 * Every operator here is commutative and associative on exact values; a {@link UserOp} need not be.
 */
public enum Op {
    SUM, PROD, MIN, MAX, BAND, BOR, BXOR, AVG, MINLOC, MAXLOC,
    /**
     * Stands for a {@link UserOp} where a collective call carries its op (the selector, the call's check
     * word): the arithmetic is the user op's own {@link UserOp#reducer()}. {@link Reducer#of} has no reducer
     * for it and {@link #parse} does not accept it.
     */
    USER;

    /** True for BAND, BOR, BXOR. */
    public boolean isBitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }

    /** True for MINLOC and MAXLOC, the ops on (value, index) pairs. */
    public boolean isLocation() {
        return this == MINLOC || this == MAXLOC;
    }

    /** The op folds combine with: SUM for AVG (whose division comes once, after the fold), else this op. */
    public Op foldOp() {
        return this == AVG ? SUM : this;
    }

    /** True when this op is defined for {@code dtype}. */
    public boolean supports(DType dtype) {
        if (this == USER) {
            return true;    // the user op decides what its bytes mean
        }
        if (dtype.isPair() || isLocation()) {
            return dtype.isPair() && isLocation();
        }
        return !isBitwise() || dtype.isInteger();
    }

    /**
     * Throws {@link IllegalArgumentException} naming both this op and the dtype when the op is not
     * defined for it.
     */
    public void checkSupports(DType dtype) {
        if (!supports(dtype)) {
            String why = isLocation() ? "minloc and maxloc need a (value, index) pair dtype: f32_i32, f64_i64, i32_i32 or i64_i64"
                    : dtype.isPair() ? "pair dtypes carry minloc and maxloc only"
                    : "bitwise ops need an integer dtype: i32, i64, u32 or u64";
            throw new IllegalArgumentException("op " + cliName() + " is not defined for dtype " + dtype.cliName()
                    + " (" + why + ")");
        }
    }

    /** Lower-case CLI name: {@code sum}, {@code prod}, …, {@code avg}, {@code minloc}, {@code maxloc}. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses a CLI name (case-insensitive); {@link IllegalArgumentException} naming the value otherwise. */
    public static Op parse(String name) {
        for (Op o : values()) {
            if (o != USER && o.name().equalsIgnoreCase(name)) {
                return o;
            }
        }
        throw new IllegalArgumentException("unknown op '" + name
                + "' (expected one of sum, prod, min, max, band, bor, bxor, avg, minloc, maxloc)");
    }
}
