package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.nio.ByteOrder;

import jdk.incubator.vector.Vector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector API reducer, written once and specialised per (dtype, op, species).
 *
 * <p>This class is a <em>template</em>: it is never initialised under its own name.
 * {@link VectorReducers} defines one hidden class from these bytes for each (dtype, op, species)
 * ({@link MethodHandles.Lookup#defineHiddenClassWithClassData}) with a {@link VectorKernelSpec} as class
 * data. The static initialiser reads the spec into {@code static final} fields, so in each copy the
 * species, the lane-wise operator and the element size are compile-time constants for C2: the
 * Vector API calls intrinsify to plain SIMD instructions, and each copy's loops are compiled and profiled
 * on their own — no per-element dispatch, no megamorphic call, no lambda in a loop. (Sharing one loop
 * between operators through a virtual call or a {@code Binary} argument would pollute its profile and
 * leave the vectors boxed.) It also lets a test build the kernels at 128, 256 and 512 bits in one JVM.
 *
 * <p>Native memory only: the SIMD loops run when every operand is a native segment (a team's shared
 * arena always is); a call with any heap operand goes to the scalar loops. Measured on JDK 25: C2
 * compiles a Vector API load from a heap segment to SIMD only when the array's element type is the
 * vector's ({@code byte[]}/{@code long[]} under F64 are never intrinsified), and a loop that sees both
 * native and heap segments deoptimises and recompiles until it runs the non-intrinsified path, slower than
 * the scalar loops on heap data (the numbers: docs/measurements.md).
 * Keeping heap calls out of these loops keeps their profile monomorphic, so no heap call can slow the
 * native path down. (Collectives fold SUM over heap arrays of the dtype's own type with
 * {@link HeapArrayFold} before they get here: a call to it inside these methods changed C2's inlining of
 * their vector loops, which then allocated.)
 *
 * <p>Loop shapes, as Lucene's {@code PanamaVectorUtilSupport}: vector loops, then the last
 * {@code < LANES} elements through the scalar loops. {@link #reduce2} is one vector per iteration, which
 * C2 unrolls itself; {@link #reduceK} has a loop over the sources inside, which C2 does not unroll, so
 * its body takes {@value #UNROLL} vectors per source by hand. Nothing is allocated: every vector stays in
 * a register once C2 has compiled the copy.
 *
 * <p>Three rules keep it that way, all learnt by measuring on JDK 25. (1) The loops call the Vector API
 * directly, never through a private helper: the API's own methods are {@code @ForceInline}, a helper is
 * not, and C2 does not inline a helper at a call site it saw rarely ("low call site frequency") — the
 * vectors there are then boxed, allocating ~100 bytes each and running 5–10x slower, for good once the
 * method is compiled that way. (2) The tail is scalar, not one masked vector: a masked tail was 2x
 * faster for 13 doubles on AVX-512 when C2 inlined it, but the per-dtype masked load needs such a
 * helper, and C2 never intrinsifies masked loads of 2-lane vectors (F64/I64 at 128 bits) while CPUs
 * without AVX-512 emulate them. The scalar tail costs at most {@code LANES - 1} scalar steps. (3) A
 * vector carried around a loop is cast to the exact vector class before it is used ({@link #VECTOR}).
 *
 * <p>Order: every element is folded left to right, {@code ((s0 op s1) op s2) …}, exactly as the scalar
 * reference, so float results are bitwise equal to it (NaN payloads: see {@link Op}). Each step loads
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
    /**
     * The concrete vector class ({@code Double512Vector}, …). A vector carried around a loop is a phi whose
     * type C2 only knows as the interface {@code Vector} when it parses the loop body, so a call on it is
     * devirtualised — and the API inlined and intrinsified — only if that call site's profile says which
     * class it is; a rarely run path may have no profile, and then every vector there is boxed (seen in
     * {@link #reduceK}'s remainder loop, 270 bytes per vector, in about one test run in twenty). Casting with
     * this constant class gives C2 the exact type without any profile.
     */
    private static final Class<? extends Vector<Object>> VECTOR = SPECIES.vectorType();
    /** The scalar loops, for calls with a heap operand and for tails. */
    private static final ReductionKernel SCALAR = SPEC.scalar();
    /** The scalar loop of this (dtype, op) for the tails: a constant here, so C2 inlines it ({@link ScalarReducer#loop2}). */
    private static final ReductionKernel.Loop2 TAIL = SCALAR.loop2();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final long ELEMENT_BYTES = DTYPE.size();
    private static final long LANES = SPECIES.length();
    private static final long VECTOR_BYTES = LANES * ELEMENT_BYTES;
    /** Vectors per source per iteration of {@link #reduceK}: amortises the loop over the sources. */
    private static final int UNROLL = 4;
    private static final long BLOCK = UNROLL * LANES;

    private static VectorKernelSpec spec() {
        return VectorKernelSpec.classData(MethodHandles.lookup(), "VectorReducer");
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
        if (ReducerArguments.checkReduceInto(DTYPE, dst, dstOffset, src, srcOffset, count)) {
            reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
        } else {
            SCALAR.reduce2(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
        }
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                       MemorySegment b, long bOffset, long count) {
        if (ReducerArguments.checkReduce(DTYPE, dst, dstOffset, a, aOffset, b, bOffset, count)) {
            reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
        } else {
            SCALAR.reduce2(dst, dstOffset, a, aOffset, b, bOffset, count);
        }
    }

    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k,
                           long count) {
        boolean allNative = ReducerArguments.checkReduceMany(DTYPE, dst, dstOffset, srcs, srcOffsets, k, count);
        if (k == 1) {
            MemorySegment.copy(srcs[0], srcOffsets[0], dst, dstOffset, count * ELEMENT_BYTES);
        } else if (!allNative) {
            SCALAR.reduceK(dst, dstOffset, srcs, srcOffsets, k, 0, count);
        } else {
            // k = 2 too: one compiled method for every k, so none of them waits in the interpreter for a
            // separate compilation of reduce2 that only its rare calls would trigger
            if (k >= 3 && count * ELEMENT_BYTES >= STRIPS_FROM_BYTES && !aliasesLaterSource(dst, dstOffset, srcs, srcOffsets, k)) {
                reduceKStrips(dst, dstOffset, srcs, srcOffsets, k, count);
            } else {
                reduceK(dst, dstOffset, srcs, srcOffsets, k, count);
            }
        }
    }

    @Override
    public String toString() {
        return "vector " + DTYPE.cliName() + " " + OP.cliName() + " (" + SPECIES.vectorBitSize() + "-bit)";
    }

    /**
     * {@code d = a op b} over {@code count} elements: one vector per iteration, which C2 unrolls and
     * strips of range checks itself. Measured against a body unrolled 4x by hand (the shape of
     * {@link #reduceK}): 45–50 ns vs 70 ns for 4 KiB of F64 on AVX-512, and equal within noise at 256 KiB.
     */
    private static void reduce2(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff,
                                long count) {
        long bytes = count * ELEMENT_BYTES;
        long o = 0;
        for (; o <= bytes - VECTOR_BYTES; o += VECTOR_BYTES) {
            SPECIES.fromMemorySegment(a, aOff + o, ORDER)
                    .lanewise(OPERATOR, SPECIES.fromMemorySegment(b, bOff + o, ORDER))
                    .intoMemorySegment(d, dOff + o, ORDER);
        }
        if (o < bytes) {
            TAIL.run(d, dOff + o, a, aOff + o, b, bOff + o, (bytes - o) / ELEMENT_BYTES);
        }
    }

    /** Bytes of dst per strip of {@link #reduceKStrips}: stays in L1 between the passes over the sources. */
    private static final long STRIP_BYTES = 4096;
    /** From this size on (per operand) the sources come from L2 or beyond and the strips pay off. */
    private static final long STRIPS_FROM_BYTES = 256 * 1024;

    /** True when dst is exactly source m ≥ 2, which the strips would overwrite before they read it. */
    private static boolean aliasesLaterSource(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k) {
        for (int j = 2; j < k; j++) {
            if (s[j].address() + so[j] == d.address() + dOff) {
                return true;
            }
        }
        return false;
    }

    /**
     * The same one-pass fold for operands beyond the cache, as the C kernel does it: per strip of
     * {@value #STRIP_BYTES} bytes, {@code d = s0 op s1}, then {@code d = d op sj} for each further source,
     * so every source is read as one contiguous run per strip (the hardware prefetchers follow k + 1 long
     * streams instead of switching source every 256 bytes) while the strip of d stays in L1: DRAM still sees
     * each source read once and d written once (as in HMPI's tiled reduce [HMPI §2.4]). Measured on 64 MiB sources,
     * k = 4, the
     * register-blocked {@link #reduceK} was slower than the C kernel (the numbers: docs/measurements.md). The order
     * per element is the
     * same left fold, so the bits are those of {@link #reduceK}. Only when dst is not a later source.
     */
    private static void reduceKStrips(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k, long count) {
        long bytes = count * ELEMENT_BYTES;
        long whole = bytes / VECTOR_BYTES * VECTOR_BYTES;
        for (long start = 0; start < whole; start += STRIP_BYTES) {
            long end = Math.min(whole, start + STRIP_BYTES);
            MemorySegment a = s[0];
            long aOff = so[0];
            for (int j = 1; j < k; j++) {
                MemorySegment b = s[j];
                long bOff = so[j];
                for (long o = start; o < end; o += VECTOR_BYTES) {
                    SPECIES.fromMemorySegment(a, aOff + o, ORDER)
                            .lanewise(OPERATOR, SPECIES.fromMemorySegment(b, bOff + o, ORDER))
                            .intoMemorySegment(d, dOff + o, ORDER);
                }
                a = d;
                aOff = dOff;
            }
        }
        if (whole < bytes) {
            SCALAR.reduceK(d, dOff, s, so, k, whole / ELEMENT_BYTES, count);
        }
    }

    /**
     * {@code d = s0 op s1 op … op s(k-1)} in one pass: per block of {@value #UNROLL} vectors, load s0,
     * fold in each further source, store once (as in HMPI's tiled reduce [HMPI §2.4]). The sources are re-read from the arrays per
     * block, which costs two loads per source per {@value #UNROLL} vectors. A loop over k in the body was
     * measured as fast as bodies specialised for k = 3 and 4, so there is one shape for every k.
     */
    private static void reduceK(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k, long count) {
        MemorySegment s0 = s[0];
        long o0 = so[0];
        long e = 0;
        for (; e <= count - BLOCK; e += BLOCK) {
            long o = e * ELEMENT_BYTES;
            Vector<Object> v0 = SPECIES.fromMemorySegment(s0, o0 + o, ORDER);
            Vector<Object> v1 = SPECIES.fromMemorySegment(s0, o0 + o + VECTOR_BYTES, ORDER);
            Vector<Object> v2 = SPECIES.fromMemorySegment(s0, o0 + o + 2 * VECTOR_BYTES, ORDER);
            Vector<Object> v3 = SPECIES.fromMemorySegment(s0, o0 + o + 3 * VECTOR_BYTES, ORDER);
            for (int j = 1; j < k; j++) {
                MemorySegment sj = s[j];
                long oj = so[j] + o;
                v0 = VECTOR.cast(v0).lanewise(OPERATOR, SPECIES.fromMemorySegment(sj, oj, ORDER));
                v1 = VECTOR.cast(v1).lanewise(OPERATOR, SPECIES.fromMemorySegment(sj, oj + VECTOR_BYTES, ORDER));
                v2 = VECTOR.cast(v2).lanewise(OPERATOR, SPECIES.fromMemorySegment(sj, oj + 2 * VECTOR_BYTES, ORDER));
                v3 = VECTOR.cast(v3).lanewise(OPERATOR, SPECIES.fromMemorySegment(sj, oj + 3 * VECTOR_BYTES, ORDER));
            }
            VECTOR.cast(v0).intoMemorySegment(d, dOff + o, ORDER);
            VECTOR.cast(v1).intoMemorySegment(d, dOff + o + VECTOR_BYTES, ORDER);
            VECTOR.cast(v2).intoMemorySegment(d, dOff + o + 2 * VECTOR_BYTES, ORDER);
            VECTOR.cast(v3).intoMemorySegment(d, dOff + o + 3 * VECTOR_BYTES, ORDER);
        }
        long bound = SPECIES.loopBound(count);
        for (; e < bound; e += LANES) {
            long o = e * ELEMENT_BYTES;
            Vector<Object> v = SPECIES.fromMemorySegment(s0, o0 + o, ORDER);
            for (int j = 1; j < k; j++) {
                v = VECTOR.cast(v).lanewise(OPERATOR, SPECIES.fromMemorySegment(s[j], so[j] + o, ORDER));
            }
            VECTOR.cast(v).intoMemorySegment(d, dOff + o, ORDER);
        }
        if (e < count) {
            SCALAR.reduceK(d, dOff, s, so, k, e, count);
        }
    }
}
