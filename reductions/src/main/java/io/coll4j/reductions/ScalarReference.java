package io.coll4j.reductions;

/**
 * The scalar reference of one element, on raw bits: what every algorithm's result is checked against
 * (the CLI's {@code --validate}, the collective tests). The arithmetic is {@link ScalarReducer}'s — the
 * plain-loop reducer — so there is one definition of {@code a op b} per type in coll4j.
 *
 * <p>Values travel as raw bits in a {@code long}: F64 as {@link Double#doubleToRawLongBits}, F32 as
 * {@link Float#floatToRawIntBits} in the low 32 bits, I32 sign-extended, I64 as is.
 */
public final class ScalarReference {

    private ScalarReference() {
    }

    /**
     * {@code a op b} for {@code dtype}, integers wrapping.
     *
     * @throws IllegalArgumentException for a bitwise op on a floating type
     */
    public static long apply(DType dtype, Op op, long a, long b) {
        return switch (dtype) {
            case F64 -> Double.doubleToRawLongBits(
                    ScalarReducer.apply(op, Double.longBitsToDouble(a), Double.longBitsToDouble(b)));
            case F32 -> Float.floatToRawIntBits(
                    ScalarReducer.apply(op, Float.intBitsToFloat((int) a), Float.intBitsToFloat((int) b)));
            case I32 -> ScalarReducer.apply(op, (int) a, (int) b);
            case I64 -> ScalarReducer.apply(op, a, b);
        };
    }

    /**
     * Equal as values of {@code dtype}: floats compare as {@link Double#compare}/{@link Float#compare} do
     * (any NaN equals any NaN, −0.0 differs from +0.0), integers by their {@code dtype}-wide bits.
     */
    public static boolean same(DType dtype, long expected, long actual) {
        return switch (dtype) {
            case F64 -> Double.compare(Double.longBitsToDouble(expected), Double.longBitsToDouble(actual)) == 0;
            case F32 -> Float.compare(Float.intBitsToFloat((int) expected), Float.intBitsToFloat((int) actual)) == 0;
            case I32 -> (int) expected == (int) actual;
            case I64 -> expected == actual;
        };
    }
}
