package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * MINLOC and MAXLOC on the (value, index) pair types ({@link DType#isPair()}): the value at byte 0 and the
 * index, of the same width, right after it. The winner is the smaller (MINLOC) or larger (MAXLOC) value;
 * equal values keep the lower index, MPI's tie rule, which makes the op commutative as well as associative,
 * so every fold order gives the same pair. Floats order as {@link Double#compare} (−0.0 below +0.0) except
 * that NaN beats every number, as it does in MIN and MAX; between NaNs the lower index wins. The whole
 * winning pair is copied, bit for bit.
 *
 * <p>Scalar only: a pair op picks one of two 8- or 16-byte records per element, a select that the Vector
 * API would need two lanes and a shuffle for; the pair types are for "who holds the extreme" questions on
 * short vectors, not for bandwidth.
 */
final class PairOps {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private PairOps() {
    }

    /** {@code d = a op b} for one pair at each offset; {@code d} may be {@code a} or {@code b}. */
    static void combine(DType dtype, Op op, MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b,
                        long bOff) {
        boolean takeA = firstWins(dtype, op, a, aOff, b, bOff);
        MemorySegment w = takeA ? a : b;
        long wOff = takeA ? aOff : bOff;
        if (w != d || wOff != dOff) {
            MemorySegment.copy(w, wOff, d, dOff, dtype.size());
        }
    }

    /** True when pair a beats pair b (or ties with a lower or equal index). */
    static boolean firstWins(DType dtype, Op op, MemorySegment a, long aOff, MemorySegment b, long bOff) {
        int half = dtype.size() / 2;
        int c = switch (dtype) {
            case F32_I32 -> compare(op, a.get(F32, aOff), b.get(F32, bOff));
            case F64_I64 -> compare(op, a.get(F64, aOff), b.get(F64, bOff));
            case I32_I32 -> orient(op, Integer.compare(a.get(I32, aOff), b.get(I32, bOff)));
            case I64_I64 -> orient(op, Long.compare(a.get(I64, aOff), b.get(I64, bOff)));
            default -> throw new IllegalArgumentException("dtype " + dtype.cliName() + " is not a pair type");
        };
        if (c != 0) {
            return c < 0;
        }
        long ia = half == 4 ? a.get(I32, aOff + 4) : a.get(I64, aOff + 8);
        long ib = half == 4 ? b.get(I32, bOff + 4) : b.get(I64, bOff + 8);
        return ia <= ib;
    }

    /** Negative when x should win: NaN first, then by value in the op's direction. */
    private static int compare(Op op, double x, double y) {
        boolean nx = Double.isNaN(x);
        boolean ny = Double.isNaN(y);
        if (nx || ny) {
            return nx == ny ? 0 : nx ? -1 : 1;
        }
        return orient(op, Double.compare(x, y));
    }

    private static int orient(Op op, int ascending) {
        return switch (op) {
            case MINLOC -> ascending;
            case MAXLOC -> -ascending;
            default -> throw new IllegalArgumentException("op " + op.cliName() + " is not a location op");
        };
    }
}
