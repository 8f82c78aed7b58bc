package io.coll4j.reductions;

import io.coll4j.reductions.internal.Reducers;

import java.lang.foreign.MemorySegment;

/**
 * One (dtype, op) reduction kernel over {@link MemorySegment} ranges. Obtain it once
 * ({@link #of(DType, Op)}) and keep it: hot loops then do no dispatch per call.
 *
 * <p>Offsets are in bytes, counts in elements. Segments may be heap or native, at any alignment.
 * Every method validates all its arguments before writing anything, and throws
 * {@link IllegalArgumentException} naming the offending argument ({@code dst}, {@code a},
 * {@code srcs[3]}, {@code count}, …) for:
 * <ul>
 *   <li>a {@code null} segment or array, a negative count or offset, {@code k} outside
 *       {@code 1..}{@link #MAX_SOURCES} or longer than {@code srcs}/{@code srcOffsets};</li>
 *   <li>a range ({@code offset}, {@code count} elements) that does not fit its segment;</li>
 *   <li>a read-only destination;</li>
 *   <li>a heap segment over an array that cannot carry this dtype (see
 *       {@link DType#canBeBackedBy(Class)}: e.g. a {@code float[]} for F64; {@code byte[]} and
 *       {@code long[]} are raw storage and always accepted);</li>
 *   <li>a destination range that partially overlaps a source range. Exact aliasing (same first byte)
 *       is allowed and is how in-place reductions are written.</li>
 * </ul>
 * On any of these the destination is left untouched. A segment whose arena is closed, or that is
 * used from a thread its confined arena does not allow, fails as FFM does
 * ({@link IllegalStateException}/{@link WrongThreadException}) before anything is written.
 *
 * <p>Floating-point order: every method folds its operands left to right
 * ({@code ((s0 op s1) op s2) …}), element by element, so its result is bitwise equal to the scalar
 * left fold whatever the implementation (vector or scalar, any vector size), with the NaN-payload
 * caveat documented on {@link Op}. Integer results are always bitwise equal.
 *
 * <p>Implementations are stateless and thread-safe; the arrays passed to {@link #reduceMany} must not
 * be modified during the call.
 */
public interface Reducer {

    /**
     * The reducer for (dtype, op), created once per process and cached, so it may be called per collective.
     * It is the Vector API implementation when that can run here ({@code --add-modules jdk.incubator.vector},
     * C2, vectors of at least 128 bits, {@code -Dcoll4j.vector.disable} not {@code true};
     * {@code -Dcoll4j.vector.bits=128|256|512} forces a size), else the scalar one, logged once. Both give
     * bitwise identical results. For {@link Op#AVG} it is the SUM reducer (AVG divides once at the end:
     * {@link Averages}); pair types always get the scalar loops.
     *
     * {@link Op#USER} has none here: a user op's reducer is {@link UserOp#reducer()}.
     *
     * @throws IllegalArgumentException when an argument is null or {@code op} is not defined for {@code dtype}
     */
    static Reducer of(DType dtype, Op op) {
        return Reducers.of(dtype, op);
    }

    /** The element type. */
    DType dtype();

    /** The operator. */
    Op op();

    /** {@code dst[i] = dst[i] op src[i]} for {@code i < count}: the in-place step of a reduction tree. */
    void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count);

    /** {@code dst[i] = a[i] op b[i]}; {@code dst} may alias {@code a} or {@code b} exactly (same range). */
    void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                MemorySegment b, long bOffset, long count);

    /**
     * {@code dst[i] = s0[i] op s1[i] op … op s(k-1)[i]} for the first {@code k} entries of
     * {@code srcs}/{@code srcOffsets}, {@code 1 <= k <= 16}, in ONE pass over memory: every source is
     * read once and {@code dst} written once (each thread of HMPI's tiled reduce folds its chunk of all
     * send buffers [HMPI §2.4]; fewer bytes moved is YHCCL's data-access-volume argument [YHCCL §2.1]), so a k-ary step moves k + 1 streams
     * where k − 1 pairwise steps move 3(k − 1). {@code dst} may alias any source exactly (sources may
     * overlap each other freely). With {@code k == 1} it is a copy.
     */
    void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k, long count);

    /** The same, over every entry of {@code srcs}. */
    default void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, long count) {
        reduceMany(dst, dstOffset, srcs, srcOffsets, srcs.length, count);
    }

    /**
     * False for a {@link UserOp} declared non-commutative: collectives then fold in ascending rank order
     * (every algorithm's {@code reproducible(true)} order), as MPI requires of non-commutative ops. Every
     * built-in op is commutative.
     */
    default boolean commutative() {
        return true;
    }

    /** Largest k {@link #reduceMany} accepts. */
    int MAX_SOURCES = 16;
}
