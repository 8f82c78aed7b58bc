package io.coll4j.reductions;

import java.lang.constant.ConstantDescs;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API reduction kernels, written once and specialised per (dtype, op, species).
 *
 * <p>This class is a <em>template</em>: it is never initialised under its own name.
 * {@link VectorReducers} defines one hidden class from these bytes for each (dtype, op, species), with
 * a {@link VectorKernelSpec} as class data ({@link MethodHandles.Lookup#defineHiddenClassWithClassData}).
 * The static initialiser reads the spec into {@code static final} fields, so in each copy the species,
 * the lane-wise operator and every branch on the dtype are compile-time constants for C2: the Vector
 * API calls intrinsify to plain SIMD instructions and each copy's loops are compiled and profiled on
 * their own — no per-element dispatch, no megamorphic call, no lambda in a loop. (Sharing one loop
 * between operators through a virtual call or a {@code Binary} argument would pollute its profile and
 * leave the vectors boxed.) It also lets a test build the kernels at 128, 256 and 512 bits in one JVM.
 *
 * <p>Loop shape of every kernel, as Lucene's {@code PanamaVectorUtilSupport}: a main loop over
 * {@value #UNROLL} vectors per iteration (independent loads in flight), a one-vector loop up to
 * {@code loopBound}, then one masked vector for the last {@code < LANES} elements. A masked tail was
 * measured faster than a scalar one for short counts on AVX-512 (13 doubles: 11 ns vs 21 ns per call)
 * and keeps the template free of scalar per-dtype code. Nothing is allocated: every vector stays in a
 * register once C2 has compiled the copy.
 *
 * <p>Order: every element is folded left to right, {@code ((s0 op s1) op s2) …}, exactly as the scalar
 * reference, so float results are bitwise equal to it (NaN payloads: see {@link Op}). Each block loads
 * all its operands before it stores to {@code dst}, which is why {@code dst} may alias a source exactly.
 */
@SuppressWarnings("unchecked")
final class VectorReducer implements Reducer {

    private static final VectorKernelSpec SPEC = spec();
    private static final DType DTYPE = SPEC.dtype();
    private static final Op OP = SPEC.op();
    /** The element type is erased to {@code Object}: one template serves all four dtypes. */
    private static final VectorSpecies<Object> SPECIES = (VectorSpecies<Object>) SPEC.species();
    private static final VectorOperators.Binary OPERATOR = SPEC.operator();
    private static final boolean NAN_FIRST = SPEC.nanFirst();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final long ELEMENT_BYTES = DTYPE.size();
    private static final long LANES = SPECIES.length();
    private static final long VECTOR_BYTES = LANES * ELEMENT_BYTES;
    /** Vectors per main-loop iteration: enough independent loads to cover L1/L2 latency. */
    private static final int UNROLL = 4;
    private static final long BLOCK = UNROLL * LANES;

    private static VectorKernelSpec spec() {
        try {
            VectorKernelSpec spec = MethodHandles.classData(MethodHandles.lookup(), ConstantDescs.DEFAULT_NAME,
                    VectorKernelSpec.class);
            if (spec == null) {
                throw new IllegalStateException("VectorReducer is a template; VectorReducers defines its copies");
            }
            return spec;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private VectorReducer() {
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
        ReducerArguments.checkReduceInto(DTYPE, dst, dstOffset, src, srcOffset, count);
        reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                       MemorySegment b, long bOffset, long count) {
        ReducerArguments.checkReduce(DTYPE, dst, dstOffset, a, aOffset, b, bOffset, count);
        reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
    }

    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k,
                           long count) {
        long bytes = ReducerArguments.checkReduceMany(DTYPE, dst, dstOffset, srcs, srcOffsets, k, count);
        switch (k) {
            case 1 -> MemorySegment.copy(srcs[0], srcOffsets[0], dst, dstOffset, bytes);
            case 2 -> reduce2(dst, dstOffset, srcs[0], srcOffsets[0], srcs[1], srcOffsets[1], count);
            default -> reduceK(dst, dstOffset, srcs, srcOffsets, k, count);
        }
    }

    @Override
    public String toString() {
        return "vector " + DTYPE.cliName() + " " + OP.cliName() + " (" + SPECIES.vectorBitSize() + "-bit)";
    }

    /** {@code d = a op b} over {@code count} elements. */
    private static void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff,
                                long count) {
        long e = 0;
        for (; e <= count - BLOCK; e += BLOCK) {
            long o = e * ELEMENT_BYTES;
            Vector<Object> a0 = load(a, aOff + o);
            Vector<Object> a1 = load(a, aOff + o + VECTOR_BYTES);
            Vector<Object> a2 = load(a, aOff + o + 2 * VECTOR_BYTES);
            Vector<Object> a3 = load(a, aOff + o + 3 * VECTOR_BYTES);
            Vector<Object> b0 = load(b, bOff + o);
            Vector<Object> b1 = load(b, bOff + o + VECTOR_BYTES);
            Vector<Object> b2 = load(b, bOff + o + 2 * VECTOR_BYTES);
            Vector<Object> b3 = load(b, bOff + o + 3 * VECTOR_BYTES);
            combine(a0, b0).intoMemorySegment(d, dOff + o, ORDER);
            combine(a1, b1).intoMemorySegment(d, dOff + o + VECTOR_BYTES, ORDER);
            combine(a2, b2).intoMemorySegment(d, dOff + o + 2 * VECTOR_BYTES, ORDER);
            combine(a3, b3).intoMemorySegment(d, dOff + o + 3 * VECTOR_BYTES, ORDER);
        }
        long bound = SPECIES.loopBound(count);
        for (; e < bound; e += LANES) {
            long o = e * ELEMENT_BYTES;
            combine(load(a, aOff + o), load(b, bOff + o)).intoMemorySegment(d, dOff + o, ORDER);
        }
        if (e < count) {
            VectorMask<Object> m = SPECIES.indexInRange(e, count);
            long o = e * ELEMENT_BYTES;
            combine(load(a, aOff + o, m), load(b, bOff + o, m)).intoMemorySegment(d, dOff + o, ORDER, m);
        }
    }

    /**
     * {@code d = s0 op s1 op … op s(k-1)} in one pass, {@code k >= 3}: per block of {@value #UNROLL}
     * vectors, load s0, fold in each further source, store once [YHCCL §3]. The sources are re-read
     * from the arrays per block, which costs two loads per source per {@value #UNROLL} vectors.
     */
    private static void reduceK(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k, long count) {
        MemorySegment s0 = s[0];
        long o0 = so[0];
        long e = 0;
        for (; e <= count - BLOCK; e += BLOCK) {
            long o = e * ELEMENT_BYTES;
            Vector<Object> v0 = load(s0, o0 + o);
            Vector<Object> v1 = load(s0, o0 + o + VECTOR_BYTES);
            Vector<Object> v2 = load(s0, o0 + o + 2 * VECTOR_BYTES);
            Vector<Object> v3 = load(s0, o0 + o + 3 * VECTOR_BYTES);
            for (int j = 1; j < k; j++) {
                MemorySegment sj = s[j];
                long oj = so[j] + o;
                v0 = combine(v0, load(sj, oj));
                v1 = combine(v1, load(sj, oj + VECTOR_BYTES));
                v2 = combine(v2, load(sj, oj + 2 * VECTOR_BYTES));
                v3 = combine(v3, load(sj, oj + 3 * VECTOR_BYTES));
            }
            v0.intoMemorySegment(d, dOff + o, ORDER);
            v1.intoMemorySegment(d, dOff + o + VECTOR_BYTES, ORDER);
            v2.intoMemorySegment(d, dOff + o + 2 * VECTOR_BYTES, ORDER);
            v3.intoMemorySegment(d, dOff + o + 3 * VECTOR_BYTES, ORDER);
        }
        long bound = SPECIES.loopBound(count);
        for (; e < bound; e += LANES) {
            long o = e * ELEMENT_BYTES;
            Vector<Object> v = load(s0, o0 + o);
            for (int j = 1; j < k; j++) {
                v = combine(v, load(s[j], so[j] + o));
            }
            v.intoMemorySegment(d, dOff + o, ORDER);
        }
        if (e < count) {
            VectorMask<Object> m = SPECIES.indexInRange(e, count);
            long o = e * ELEMENT_BYTES;
            Vector<Object> v = load(s0, o0 + o, m);
            for (int j = 1; j < k; j++) {
                v = combine(v, load(s[j], so[j] + o, m));
            }
            v.intoMemorySegment(d, dOff + o, ORDER, m);
        }
    }

    /**
     * {@code x op y} lane-wise. For F32/F64 MIN/MAX, {@code VectorOperators.MIN}/{@code MAX} already
     * follow {@code Math.min}/{@code Math.max} for −0.0 and for one NaN operand, but compiled by C2 they
     * return the <em>second</em> NaN when both are NaN (the interpreter's fallback returns the first);
     * the blend makes every tier return the first, bitwise as {@code Math.min} (measured on JDK 25).
     */
    private static Vector<Object> combine(Vector<Object> x, Vector<Object> y) {
        Vector<Object> r = x.lanewise(OPERATOR, y);
        if (NAN_FIRST) {
            r = r.blend(x, x.compare(VectorOperators.NE, x));
        }
        return r;
    }

    private static Vector<Object> load(MemorySegment segment, long offset) {
        return SPECIES.fromMemorySegment(segment, offset, ORDER);
    }

    /** Masked load: {@code VectorSpecies} has no masked variant, so go through the concrete vector class. */
    private static Vector<Object> load(MemorySegment segment, long offset, VectorMask<Object> m) {
        VectorSpecies<?> species = SPECIES;
        VectorMask<?> mask = m;
        Vector<?> v;
        if (DTYPE == DType.F64) {
            v = DoubleVector.fromMemorySegment((VectorSpecies<Double>) species, segment, offset, ORDER, (VectorMask<Double>) mask);
        } else if (DTYPE == DType.F32) {
            v = FloatVector.fromMemorySegment((VectorSpecies<Float>) species, segment, offset, ORDER, (VectorMask<Float>) mask);
        } else if (DTYPE == DType.I64) {
            v = LongVector.fromMemorySegment((VectorSpecies<Long>) species, segment, offset, ORDER, (VectorMask<Long>) mask);
        } else {
            v = IntVector.fromMemorySegment((VectorSpecies<Integer>) species, segment, offset, ORDER, (VectorMask<Integer>) mask);
        }
        return (Vector<Object>) v;
    }
}
