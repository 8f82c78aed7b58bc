package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.constant.ConstantDescs;
import java.lang.invoke.MethodHandles;

import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * What one hidden copy of {@link VectorReducer} is specialised for: handed to it as class data and read
 * into {@code static final} fields, which C2 treats as constants.
 *
 * @param dtype    element type
 * @param op       reduction operator
 * @param species  vector species (element type of {@code dtype}, chosen size)
 * @param operator the lane-wise operator implementing {@code op}: {@code VectorOperators.MIN}/{@code MAX}
 *                 follow {@code Math.min}/{@code Math.max} (NaN wins, −0.0 &lt; +0.0), so F32/F64 need no fix-up
 * @param scalar   the scalar loops of (dtype, op), for calls with a heap operand and for loop tails
 */
record VectorKernelSpec(DType dtype, Op op, VectorSpecies<?> species, VectorOperators.Binary operator,
                        ReductionKernel scalar) {

    /**
     * The spec a hidden template copy was defined with, read through the copy's own {@code lookup}; an
     * {@link IllegalStateException} naming {@code template} when the class is the template itself (no class data).
     */
    static VectorKernelSpec classData(MethodHandles.Lookup lookup, String template) {
        try {
            VectorKernelSpec spec = MethodHandles.classData(lookup, ConstantDescs.DEFAULT_NAME, VectorKernelSpec.class);
            if (spec == null) {
                throw new IllegalStateException(template + " is a template; VectorReducers defines its copies");
            }
            return spec;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static VectorKernelSpec of(DType dtype, Op op, int bits) {
        op.checkSupports(dtype);
        if (!hasLanes(dtype) && !dtype.isHalf()) {
            throw new IllegalArgumentException("dtype " + dtype.cliName() + " has no lane-wise vector kernel");
        }
        // U32/U64 share I32/I64's lanes: only MIN and MAX differ, as unsigned compares
        VectorOperators.Binary operator = switch (op.foldOp()) {
            case SUM -> VectorOperators.ADD;
            case PROD -> VectorOperators.MUL;
            case MIN -> dtype.isUnsigned() ? VectorOperators.UMIN : VectorOperators.MIN;
            case MAX -> dtype.isUnsigned() ? VectorOperators.UMAX : VectorOperators.MAX;
            case BAND -> VectorOperators.AND;
            case BOR -> VectorOperators.OR;
            case BXOR -> VectorOperators.XOR;
            case AVG, MINLOC, MAXLOC, USER -> throw new IllegalArgumentException("op " + op.cliName() + " has no lane-wise operator");
        };
        // F16 and BF16 compute in f32 lanes (HalfVectorReducer): their species is the f32 one
        VectorSpecies<?> species = dtype.isHalf() ? VectorConstants.species(DType.F32, bits) : VectorConstants.species(dtype, bits);
        return new VectorKernelSpec(dtype, op, species, operator,
                (ReductionKernel) Reducers.scalar(dtype, op));
    }

    /**
     * True for the dtypes whose elements are lanes of one Vector API species with the op as one lane-wise
     * operator: F32, F64, I32, I64, U32, U64. F16 and BF16 fold in f32 lanes ({@link HalfVectorReducer}); the pairs,
     * which select whole records, run the scalar loops.
     */
    static boolean hasLanes(DType dtype) {
        return !dtype.isHalf() && !dtype.isPair();
    }
}
