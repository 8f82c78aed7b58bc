package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API reducer of the 2-byte types {@link DType#F16} and {@link DType#BF16}: a template specialised
 * per (dtype, op, size) exactly as {@link VectorReducer} is (a hidden class per {@link VectorKernelSpec}, whose
 * species here is the f32 one), under the same rules (Vector API calls in the loop body, scalar tails).
 *
 * <p>Every conversion is integer lane work on int lanes sign-extended from a half-width short vector
 * ({@code S2I}), and {@code I2S} narrows back:
 * <ul>
 *   <li>BF16 is the upper half of an f32: widening shifts left 16 bits; narrowing adds {@code 0x7FFF} plus the
 *       lowest kept bit and shifts right 16 (round to nearest even), NaN lanes keep their upper half, made quiet.</li>
 *   <li>F16 widens by placing exponent and significand 13 bits up and multiplying by 2^112 as an f32, which
 *       rebiases normal numbers and normalises subnormals exactly; exponent 31 (infinity, NaN) becomes 255.
 *       Narrowing is the branch-free round-to-nearest-even of F. Giesen's {@code float_to_half_fast3_rtne}
 *       as lane masks: normal lanes add the rebias, {@code 0xFFF} and the odd bit and shift 13; lanes below
 *       2^-14 round through an f32 addition of a magic constant; lanes from 65520 up become infinity, NaN
 *       lanes a quiet NaN.</li>
 *   <li>MIN and MAX select the operand whose widened value won (or the NaN one), on the original bits, so
 *       their result is bitwise one of the operands, as the scalar loops' is.</li>
 * </ul>
 * Every step is the scalar loops' conversion lane for lane ({@link HalfFloats}), so the bits agree except
 * for which NaN payload a SUM or PROD returns ({@link Op}).
 *
 * <p>{@link #reduceMany} folds k sources as k − 1 pairwise passes ({@code d = s0 op s1}, then
 * {@code d = d op sj}), rounding after each step like the scalar left fold; when dst is a later source, which a
 * pass would overwrite before its turn, the scalar loops run instead.
 */
@SuppressWarnings("unchecked")
final class HalfVectorReducer implements Reducer {

    private static final VectorKernelSpec SPEC = spec();
    private static final DType DTYPE = SPEC.dtype();
    private static final boolean F16 = DTYPE == DType.F16;
    private static final Op OP = SPEC.op();
    private static final VectorSpecies<Float> FLOATS = (VectorSpecies<Float>) SPEC.species();
    private static final VectorSpecies<Integer> INTS = VectorSpecies.of(int.class, FLOATS.vectorShape());
    private static final VectorSpecies<Short> SHORTS =
            VectorSpecies.of(short.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 2));
    private static final VectorOperators.Binary OPERATOR = SPEC.operator();
    /** SUM and PROD make new values, which round; MIN and MAX return an operand, which is exact. */
    private static final boolean SELECTS = OP == Op.MIN || OP == Op.MAX;
    /** f16 exponent 31 (infinity, NaN), 13 bits up: from here a widened lane is not a finite number. */
    private static final int F16_SPECIAL = 0x7C00 << 13;
    /** Giesen's constants: f32 bits of 2^-14 (smallest normal f16) and 65520 (rounds to f16 infinity). */
    private static final int F16_MIN_NORMAL = 113 << 23;
    private static final int F16_OVERFLOW = 143 << 23;
    /** Adding this f32 to a value below 2^-14 leaves its f16 subnormal significand, rounded, in the low bits. */
    private static final int DENORM_MAGIC = ((127 - 15) + (23 - 10) + 1) << 23;
    private static final int REBIAS = ((15 - 127) << 23) + 0xFFF;
    private static final ReductionKernel SCALAR = SPEC.scalar();
    /** The scalar loop of this (dtype, op) for the tails, a constant C2 inlines ({@link ScalarReducer#loop2}). */
    private static final ReductionKernel.Loop2 TAIL = SCALAR.loop2();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final long VECTOR_BYTES = FLOATS.length() * 2L;

    private static VectorKernelSpec spec() {
        return VectorKernelSpec.classData(MethodHandles.lookup(), "HalfVectorReducer");
    }

    private HalfVectorReducer() {
    }

    @Override
    public DType dtype() {
        return DTYPE;
    }

    @Override
    public Op op() {
        return OP;
    }

    @Override
    public void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count) {
        pass(ReducerArguments.checkReduceInto(DTYPE, dst, dstOffset, src, srcOffset, count),
                dst, dstOffset, dst, dstOffset, src, srcOffset, count);
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                       long count) {
        pass(ReducerArguments.checkReduce(DTYPE, dst, dstOffset, a, aOffset, b, bOffset, count),
                dst, dstOffset, a, aOffset, b, bOffset, count);
    }

    /** One checked pass: the vector loops on native operands, the scalar loops with any heap operand. */
    private static void pass(boolean allNative, MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b,
                             long bOff, long count) {
        if (allNative) {
            reduce2(d, dOff, a, aOff, b, bOff, count);
        } else {
            SCALAR.reduce2(d, dOff, a, aOff, b, bOff, count);
        }
    }

    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k, long count) {
        boolean allNative = ReducerArguments.checkReduceMany(DTYPE, dst, dstOffset, srcs, srcOffsets, k, count);
        if (k == 1) {
            MemorySegment.copy(srcs[0], srcOffsets[0], dst, dstOffset, count * 2);
        } else if (!allNative || aliasesLaterSource(dst, dstOffset, srcs, srcOffsets, k)) {
            SCALAR.reduceK(dst, dstOffset, srcs, srcOffsets, k, 0, count);
        } else {
            reduce2(dst, dstOffset, srcs[0], srcOffsets[0], srcs[1], srcOffsets[1], count);
            for (int j = 2; j < k; j++) {
                reduce2(dst, dstOffset, dst, dstOffset, srcs[j], srcOffsets[j], count);
            }
        }
    }

    /** True when dst is exactly source j ≥ 2 (all native here: addresses compare). */
    private static boolean aliasesLaterSource(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k) {
        for (int j = 2; j < k; j++) {
            if (s[j].address() + so[j] == d.address() + dOff) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "vector " + DTYPE.cliName() + " " + OP.cliName() + " (" + FLOATS.vectorBitSize() + "-bit)";
    }

    private static void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff,
                                long count) {
        long bytes = count * 2;
        long o = 0;
        for (; o <= bytes - VECTOR_BYTES; o += VECTOR_BYTES) {
            Vector<Integer> ha = SHORTS.fromMemorySegment(a, aOff + o, ORDER).convertShape(VectorOperators.S2I, INTS, 0);
            Vector<Integer> hb = SHORTS.fromMemorySegment(b, bOff + o, ORDER).convertShape(VectorOperators.S2I, INTS, 0);
            Vector<Float> x;
            Vector<Float> y;
            if (F16) {
                Vector<Integer> ea = ha.lanewise(VectorOperators.AND, 0x7FFF).lanewise(VectorOperators.LSHL, 13);
                Vector<Integer> eb = hb.lanewise(VectorOperators.AND, 0x7FFF).lanewise(VectorOperators.LSHL, 13);
                x = ea.reinterpretAsFloats().lanewise(VectorOperators.MUL, 0x1p112f).reinterpretAsInts()
                        .blend(ea.lanewise(VectorOperators.OR, 0x7F80_0000), ea.compare(VectorOperators.GE, F16_SPECIAL))
                        .lanewise(VectorOperators.OR, ha.lanewise(VectorOperators.AND, 0x8000).lanewise(VectorOperators.LSHL, 16))
                        .reinterpretAsFloats();
                y = eb.reinterpretAsFloats().lanewise(VectorOperators.MUL, 0x1p112f).reinterpretAsInts()
                        .blend(eb.lanewise(VectorOperators.OR, 0x7F80_0000), eb.compare(VectorOperators.GE, F16_SPECIAL))
                        .lanewise(VectorOperators.OR, hb.lanewise(VectorOperators.AND, 0x8000).lanewise(VectorOperators.LSHL, 16))
                        .reinterpretAsFloats();
            } else {
                x = ha.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
                y = hb.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            }
            Vector<Float> r = x.lanewise(OPERATOR, y);
            Vector<Integer> bits = r.reinterpretAsInts();
            Vector<Integer> out;
            if (SELECTS) {
                // the operand that won: a where the result is a's value (or a is NaN), else b
                out = hb.blend(ha, bits.compare(VectorOperators.EQ, x.reinterpretAsInts()).or(x.test(VectorOperators.IS_NAN).cast(INTS)));
            } else if (F16) {
                Vector<Integer> f = bits.lanewise(VectorOperators.AND, 0x7FFF_FFFF);
                Vector<Integer> normal = f.lanewise(VectorOperators.ADD, REBIAS)
                        .add(f.lanewise(VectorOperators.LSHR, 13).lanewise(VectorOperators.AND, 1))
                        .lanewise(VectorOperators.LSHR, 13);
                Vector<Integer> tiny = f.reinterpretAsFloats().lanewise(VectorOperators.ADD, Float.intBitsToFloat(DENORM_MAGIC))
                        .reinterpretAsInts().lanewise(VectorOperators.SUB, DENORM_MAGIC);
                Vector<Integer> huge = INTS.broadcast(0x7C00).blend(INTS.broadcast(0x7E00), r.test(VectorOperators.IS_NAN).cast(INTS));
                out = normal.blend(tiny, f.compare(VectorOperators.LT, F16_MIN_NORMAL))
                        .blend(huge, f.compare(VectorOperators.GE, F16_OVERFLOW))
                        .lanewise(VectorOperators.OR, bits.lanewise(VectorOperators.LSHR, 16).lanewise(VectorOperators.AND, 0x8000));
            } else {
                Vector<Integer> upper = bits.lanewise(VectorOperators.LSHR, 16);
                out = bits.add(upper.lanewise(VectorOperators.AND, 1)).lanewise(VectorOperators.ADD, 0x7FFF)
                        .lanewise(VectorOperators.LSHR, 16)
                        .blend(upper.lanewise(VectorOperators.OR, 0x40), r.test(VectorOperators.IS_NAN).cast(INTS));
            }
            out.convertShape(VectorOperators.I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, ORDER);
        }
        if (o < bytes) {
            TAIL.run(d, dOff + o, a, aOff + o, b, bOff + o, (bytes - o) / 2);
        }
    }
}
