package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The scalar reference: plain element-by-element loops, the definition of truth for every other
 * implementation, and the fallback when {@code jdk.incubator.vector} is absent.
 *
 * <p>{@link #reduce} and {@link #reduceInto} run one loop per (dtype, op), picked when the reducer is made
 * ({@link #loop2}), so each loop is a plain scalar loop C2 compiles on its own — the honest
 * "scalar segment loop" baseline of {@code ReductionBench}. {@link #reduceMany} folds each element
 * left to right through {@link #apply}; it is the reference and the fallback, not a fast path.
 *
 * <p>F32/F64 MIN and MAX are {@link Math#min}/{@link Math#max} by definition ({@link Op}).
 *
 * <p>It is also the {@link ReductionKernel} the vector reducers use for calls with a heap operand
 * (see {@link VectorReducer} for why).
 */
final class ScalarReducer implements Reducer, ReductionKernel {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private final DType dtype;
    private final Op op;
    /** The loop of (dtype, op), picked once: {@link #reduce2} is then one call, no switch. */
    private final Loop2 loop2;

    ScalarReducer(DType dtype, Op op) {
        op.checkSupports(dtype);
        this.dtype = dtype;
        this.op = op;
        this.loop2 = pickLoop2();
    }

    /**
     * The (dtype, op) loop of {@link #reduce2}, also handed to the vector reducers of (dtype, op) for their tails:
     * held in a static final of their hidden class it is a constant, so C2 inlines the loop into the vector
     * reducer. Through this reducer's {@code reduce2} — a shared method switching on dtype and op, too large to
     * inline — a one-element tail cost ~10 ns, most of an 8-byte allreduce's fold.
     */
    @Override
    public Loop2 loop2() {
        return loop2;
    }

    @Override
    public DType dtype() {
        return dtype;
    }

    @Override
    public Op op() {
        return op;
    }

    @Override
    public void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count) {
        ReducerArguments.checkReduceInto(dtype, dst, dstOffset, src, srcOffset, count);
        reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                       MemorySegment b, long bOffset, long count) {
        ReducerArguments.checkReduce(dtype, dst, dstOffset, a, aOffset, b, bOffset, count);
        reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
    }

    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k,
                           long count) {
        ReducerArguments.checkReduceMany(dtype, dst, dstOffset, srcs, srcOffsets, k, count);
        reduceK(dst, dstOffset, srcs, srcOffsets, k, 0, count);
    }

    /** The left fold of {@link #reduceMany}, element by element, for any {@code k >= 1}. */
    @Override
    public void reduceK(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k,
                        long from, long count) {
        int size = dtype.size();
        for (long i = from; i < count; i++) {
            long at = i * size;
            switch (dtype) {
                case F32 -> {
                    float acc = srcs[0].get(F32, srcOffsets[0] + at);
                    for (int j = 1; j < k; j++) {
                        acc = apply(op, acc, srcs[j].get(F32, srcOffsets[j] + at));
                    }
                    dst.set(F32, dstOffset + at, acc);
                }
                case F64 -> {
                    double acc = srcs[0].get(F64, srcOffsets[0] + at);
                    for (int j = 1; j < k; j++) {
                        acc = apply(op, acc, srcs[j].get(F64, srcOffsets[j] + at));
                    }
                    dst.set(F64, dstOffset + at, acc);
                }
                case I32 -> {
                    int acc = srcs[0].get(I32, srcOffsets[0] + at);
                    for (int j = 1; j < k; j++) {
                        acc = apply(op, acc, srcs[j].get(I32, srcOffsets[j] + at));
                    }
                    dst.set(I32, dstOffset + at, acc);
                }
                case I64 -> {
                    long acc = srcs[0].get(I64, srcOffsets[0] + at);
                    for (int j = 1; j < k; j++) {
                        acc = apply(op, acc, srcs[j].get(I64, srcOffsets[j] + at));
                    }
                    dst.set(I64, dstOffset + at, acc);
                }
                case F16, BF16, U32, U64 -> {
                    long acc = ElementOps.get(dtype, srcs[0], srcOffsets[0] + at);
                    for (int j = 1; j < k; j++) {
                        acc = ElementOps.apply(dtype, op, acc, ElementOps.get(dtype, srcs[j], srcOffsets[j] + at));
                    }
                    ElementOps.set(dtype, dst, dstOffset + at, acc);
                }
                case F32_I32, F64_I64, I32_I32, I64_I64 -> {
                    // the left fold picks a winning source; the pair is copied once, after every source's
                    // pair i has been read, so dst may be any source exactly
                    int w = 0;
                    for (int j = 1; j < k; j++) {
                        if (!PairOps.firstWins(dtype, op, srcs[w], srcOffsets[w] + at, srcs[j], srcOffsets[j] + at)) {
                            w = j;
                        }
                    }
                    MemorySegment.copy(srcs[w], srcOffsets[w] + at, dst, dstOffset + at, size);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "scalar " + dtype.cliName() + " " + op.cliName();
    }

    /** {@code a op b} for F32 (AVG combines as SUM); the definition every F32 kernel is checked against. */
    static float apply(Op op, float a, float b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case AVG -> a + b;
            case BAND, BOR, BXOR, MINLOC, MAXLOC, USER -> throw new IllegalArgumentException("op " + op.cliName() + " is not defined for dtype f32");
        };
    }

    /** {@code a op b} for F64. */
    static double apply(Op op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case AVG -> a + b;
            case BAND, BOR, BXOR, MINLOC, MAXLOC, USER -> throw new IllegalArgumentException("op " + op.cliName() + " is not defined for dtype f64");
        };
    }

    /** {@code a op b} for I32, wrapping. */
    static int apply(Op op, int a, int b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            case AVG -> a + b;
            case MINLOC, MAXLOC, USER -> throw new IllegalArgumentException("op " + op.cliName() + " is not an element op of integers");
        };
    }

    /** {@code a op b} for I64, wrapping. */
    static long apply(Op op, long a, long b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            case BAND -> a & b;
            case BOR -> a | b;
            case BXOR -> a ^ b;
            case AVG -> a + b;
            case MINLOC, MAXLOC, USER -> throw new IllegalArgumentException("op " + op.cliName() + " is not an element op of integers");
        };
    }

    /**
     * {@code d[i] = a[i] op b[i]}: one plain loop per (dtype, op), chosen once at construction. Each loop is a
     * method of its own: one method holding all 22 made C1 give up ("out of virtual registers"), which
     * left the loops interpreted for seconds.
     */
    @Override
    public void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        loop2.run(d, dOff, a, aOff, b, bOff, n);
    }

    private Loop2 pickLoop2() {
        return switch (dtype) {
            case F32 -> switch (op.foldOp()) {
                case SUM -> ScalarReducer::sumF32;
                case PROD -> ScalarReducer::prodF32;
                case MIN -> ScalarReducer::minF32;
                case MAX -> ScalarReducer::maxF32;
                default -> throw new AssertionError(op);
            };
            case F64 -> switch (op.foldOp()) {
                case SUM -> ScalarReducer::sumF64;
                case PROD -> ScalarReducer::prodF64;
                case MIN -> ScalarReducer::minF64;
                case MAX -> ScalarReducer::maxF64;
                default -> throw new AssertionError(op);
            };
            case I32 -> switch (op.foldOp()) {
                case SUM -> ScalarReducer::sumI32;
                case PROD -> ScalarReducer::prodI32;
                case MIN -> ScalarReducer::minI32;
                case MAX -> ScalarReducer::maxI32;
                case BAND -> ScalarReducer::bandI32;
                case BOR -> ScalarReducer::borI32;
                case BXOR -> ScalarReducer::bxorI32;
                default -> throw new AssertionError(op);
            };
            case I64 -> switch (op.foldOp()) {
                case SUM -> ScalarReducer::sumI64;
                case PROD -> ScalarReducer::prodI64;
                case MIN -> ScalarReducer::minI64;
                case MAX -> ScalarReducer::maxI64;
                case BAND -> ScalarReducer::bandI64;
                case BOR -> ScalarReducer::borI64;
                case BXOR -> ScalarReducer::bxorI64;
                default -> throw new AssertionError(op);
            };
            case F16, BF16, U32, U64 -> this::elements;
            case F32_I32, F64_I64, I32_I32, I64_I64 -> this::pairs;
        };
    }

    /** The types without loops of their own: one {@link ElementOps#apply} per element, on raw bits. */
    private void elements(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        int size = dtype.size();
        for (long i = 0; i < n * size; i += size) {
            ElementOps.set(dtype, d, dOff + i,
                    ElementOps.apply(dtype, op, ElementOps.get(dtype, a, aOff + i), ElementOps.get(dtype, b, bOff + i)));
        }
    }

    private void pairs(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        int size = dtype.size();
        for (long i = 0; i < n * size; i += size) {
            PairOps.combine(dtype, op, d, dOff + i, a, aOff + i, b, bOff + i);
        }
    }

    private static void sumF32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(F32, dOff + i, a.get(F32, aOff + i) + b.get(F32, bOff + i));
        }
    }

    private static void prodF32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(F32, dOff + i, a.get(F32, aOff + i) * b.get(F32, bOff + i));
        }
    }

    private static void minF32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(F32, dOff + i, Math.min(a.get(F32, aOff + i), b.get(F32, bOff + i)));
        }
    }

    private static void maxF32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(F32, dOff + i, Math.max(a.get(F32, aOff + i), b.get(F32, bOff + i)));
        }
    }

    private static void sumF64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(F64, dOff + i, a.get(F64, aOff + i) + b.get(F64, bOff + i));
        }
    }

    private static void prodF64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(F64, dOff + i, a.get(F64, aOff + i) * b.get(F64, bOff + i));
        }
    }

    private static void minF64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(F64, dOff + i, Math.min(a.get(F64, aOff + i), b.get(F64, bOff + i)));
        }
    }

    private static void maxF64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(F64, dOff + i, Math.max(a.get(F64, aOff + i), b.get(F64, bOff + i)));
        }
    }

    private static void sumI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, a.get(I32, aOff + i) + b.get(I32, bOff + i));
        }
    }

    private static void prodI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, a.get(I32, aOff + i) * b.get(I32, bOff + i));
        }
    }

    private static void minI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, Math.min(a.get(I32, aOff + i), b.get(I32, bOff + i)));
        }
    }

    private static void maxI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, Math.max(a.get(I32, aOff + i), b.get(I32, bOff + i)));
        }
    }

    private static void bandI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, a.get(I32, aOff + i) & b.get(I32, bOff + i));
        }
    }

    private static void borI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, a.get(I32, aOff + i) | b.get(I32, bOff + i));
        }
    }

    private static void bxorI32(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 4; i += 4) {
            d.set(I32, dOff + i, a.get(I32, aOff + i) ^ b.get(I32, bOff + i));
        }
    }

    private static void sumI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, a.get(I64, aOff + i) + b.get(I64, bOff + i));
        }
    }

    private static void prodI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, a.get(I64, aOff + i) * b.get(I64, bOff + i));
        }
    }

    private static void minI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, Math.min(a.get(I64, aOff + i), b.get(I64, bOff + i)));
        }
    }

    private static void maxI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, Math.max(a.get(I64, aOff + i), b.get(I64, bOff + i)));
        }
    }

    private static void bandI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, a.get(I64, aOff + i) & b.get(I64, bOff + i));
        }
    }

    private static void borI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, a.get(I64, aOff + i) | b.get(I64, bOff + i));
        }
    }

    private static void bxorI64(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, long n) {
        for (long i = 0; i < n * 8; i += 8) {
            d.set(I64, dOff + i, a.get(I64, aOff + i) ^ b.get(I64, bOff + i));
        }
    }
}
