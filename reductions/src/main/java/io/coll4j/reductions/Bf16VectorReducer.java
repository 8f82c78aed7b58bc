package io.coll4j.reductions;

import java.lang.constant.ConstantDescs;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API reducer of {@link DType#BF16}: a template specialised per (op, size) exactly as
 * {@link VectorReducer} is (a hidden class per {@link VectorKernelSpec}, whose species here is the f32 one),
 * under the same three rules (Vector API calls in the loop body, scalar tails, no helpers on vectors).
 *
 * <p>A bf16 is the upper half of an f32, so every conversion is integer lane work: a half-width short vector
 * is sign-extended to int lanes ({@code S2I}) and shifted left 16 bits, which is the f32 exactly; the op runs
 * in f32 lanes; SUM and PROD round back to nearest even by adding {@code 0x7FFF} plus the lowest kept bit
 * and shifting right 16 (NaN lanes instead keep their upper half with the quiet bit set), and {@code I2S}
 * narrows. MIN and MAX pick one operand, whose low 16 bits are zero, so they only shift. Each step is
 * {@link HalfFloats#floatToBf16} lane for lane: the bits are those of the scalar loops.
 *
 * <p>{@link #reduceMany} folds k sources as k − 1 pairwise passes ({@code d = s0 op s1}, then
 * {@code d = d op sj}), rounding after each step like the scalar left fold; when dst is a later source, which a
 * pass would overwrite before its turn, the scalar loops run instead.
 */
@SuppressWarnings("unchecked")
final class Bf16VectorReducer implements Reducer {

    private static final VectorKernelSpec SPEC = spec();
    private static final Op OP = SPEC.op();
    private static final VectorSpecies<Float> FLOATS = (VectorSpecies<Float>) SPEC.species();
    private static final VectorSpecies<Integer> INTS = VectorSpecies.of(int.class, FLOATS.vectorShape());
    private static final VectorSpecies<Short> SHORTS =
            VectorSpecies.of(short.class, VectorShape.forBitSize(FLOATS.vectorBitSize() / 2));
    private static final VectorOperators.Binary OPERATOR = SPEC.operator();
    /** SUM and PROD make new values, which round; MIN and MAX return an operand, which is exact. */
    private static final boolean ROUNDS = OP == Op.SUM || OP == Op.PROD;
    private static final ReductionKernel SCALAR = SPEC.scalar();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final long VECTOR_BYTES = FLOATS.length() * 2L;

    private static VectorKernelSpec spec() {
        try {
            VectorKernelSpec spec = MethodHandles.classData(MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME,
                    VectorKernelSpec.class);
            if (spec == null) {
                throw new IllegalStateException("Bf16VectorReducer is a template; VectorReducers defines its copies");
            }
            return spec;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private Bf16VectorReducer() {
    }

    @Override
    public DType dtype() {
        return DType.BF16;
    }

    @Override
    public Op op() {
        return OP;
    }

    @Override
    public void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count) {
        if (ReducerArguments.checkReduceInto(DType.BF16, dst, dstOffset, src, srcOffset, count)) {
            reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
        } else {
            SCALAR.reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
        }
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                       long count) {
        if (ReducerArguments.checkReduce(DType.BF16, dst, dstOffset, a, aOffset, b, bOffset, count)) {
            reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
        } else {
            SCALAR.reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
        }
    }

    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k, long count) {
        boolean allNative = ReducerArguments.checkReduceMany(DType.BF16, dst, dstOffset, srcs, srcOffsets, k, count);
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
        return "vector bf16 " + OP.cliName() + " (" + FLOATS.vectorBitSize() + "-bit)";
    }

    private static void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff,
                                long count) {
        long bytes = count * 2;
        long o = 0;
        for (; o <= bytes - VECTOR_BYTES; o += VECTOR_BYTES) {
            Vector<Float> x = SHORTS.fromMemorySegment(a, aOff + o, ORDER).convertShape(VectorOperators.S2I, INTS, 0)
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            Vector<Float> y = SHORTS.fromMemorySegment(b, bOff + o, ORDER).convertShape(VectorOperators.S2I, INTS, 0)
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
            Vector<Float> r = x.lanewise(OPERATOR, y);
            Vector<Integer> bits = r.reinterpretAsInts();
            Vector<Integer> upper = bits.lanewise(VectorOperators.LSHR, 16);
            Vector<Integer> out = upper;
            if (ROUNDS) {
                out = bits.add(upper.lanewise(VectorOperators.AND, 1)).lanewise(VectorOperators.ADD, 0x7FFF)
                        .lanewise(VectorOperators.LSHR, 16)
                        .blend(upper.lanewise(VectorOperators.OR, 0x40), r.test(VectorOperators.IS_NAN).cast(INTS));
            }
            out.convertShape(VectorOperators.I2S, SHORTS, 0).intoMemorySegment(d, dOff + o, ORDER);
        }
        if (o < bytes) {
            SCALAR.reduce2(d, dOff + o, a, aOff + o, b, bOff + o, (bytes - o) / 2);
        }
    }
}
