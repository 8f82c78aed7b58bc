package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * Argument checks shared by every {@link Reducer} implementation, run before anything is written
 * (the contract on {@link Reducer}). Each failure is an {@link IllegalArgumentException} whose message
 * starts with the argument's name. On success the checks return whether every operand is native
 * memory, which is when {@link VectorReducer} runs its SIMD loops.
 *
 * <p>These checks sit on the path of every small reduction (a 4 KiB reduce is some tens of
 * nanoseconds), so the common case — native segments, no overlap — costs a few compares and no
 * allocation; only heap segments look at their backing array.
 */
final class ReducerArguments {

    /** "srcs[0]" … "srcs[15]", built once: the checks run on every call and must not allocate. */
    private static final String[] SOURCE_NAMES = java.util.stream.IntStream.range(0, Reducer.MAX_SOURCES)
            .mapToObj(j -> "srcs[" + j + "]").toArray(String[]::new);

    private ReducerArguments() {
    }

    /** Checks of {@link Reducer#reduce}; returns true when every operand is native. */
    static boolean checkReduce(DType dtype, MemorySegment dst, long dstOffset, MemorySegment a, long aOffset,
                           MemorySegment b, long bOffset, long count) {
        long bytes = byteCount(dtype, count);
        boolean allNative = checkDestination(dtype, dst, dstOffset, bytes);
        allNative &= checkSource(dtype, a, "a", aOffset, bytes);
        allNative &= checkSource(dtype, b, "b", bOffset, bytes);
        checkNoPartialOverlap(dst, dstOffset, a, "a", aOffset, bytes);
        checkNoPartialOverlap(dst, dstOffset, b, "b", bOffset, bytes);
        return allNative;
    }

    /** Checks of {@link Reducer#reduceInto}; returns true when every operand is native. */
    static boolean checkReduceInto(DType dtype, MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset,
                               long count) {
        long bytes = byteCount(dtype, count);
        boolean allNative = checkDestination(dtype, dst, dstOffset, bytes);
        allNative &= checkSource(dtype, src, "src", srcOffset, bytes);
        checkNoPartialOverlap(dst, dstOffset, src, "src", srcOffset, bytes);
        return allNative;
    }

    /** Checks of {@link Reducer#reduceMany}; returns true when every operand is native. */
    static boolean checkReduceMany(DType dtype, MemorySegment dst, long dstOffset, MemorySegment[] srcs,
                               long[] srcOffsets, int k, long count) {
        long bytes = byteCount(dtype, count);
        boolean allNative = checkDestination(dtype, dst, dstOffset, bytes);
        if (srcs == null) {
            throw new IllegalArgumentException("srcs is null");
        }
        if (srcOffsets == null) {
            throw new IllegalArgumentException("srcOffsets is null");
        }
        if (k < 1 || k > Reducer.MAX_SOURCES) {
            throw new IllegalArgumentException("k must be in 1.." + Reducer.MAX_SOURCES + ", got " + k);
        }
        if (k > srcs.length) {
            throw new IllegalArgumentException("k = " + k + " but srcs has only " + srcs.length + " entries");
        }
        if (k > srcOffsets.length) {
            throw new IllegalArgumentException("k = " + k + " but srcOffsets has only " + srcOffsets.length + " entries");
        }
        for (int j = 0; j < k; j++) {
            MemorySegment src = srcs[j];
            long offset = srcOffsets[j];
            if (src == null) {
                throw new IllegalArgumentException("srcs[" + j + "] is null");
            }
            if (offset < 0) {
                throw new IllegalArgumentException("srcOffsets[" + j + "] must be >= 0, got " + offset);
            }
            checkRange(src, SOURCE_NAMES[j], offset, bytes);
            allNative &= checkBacking(dtype, src, SOURCE_NAMES[j]);
            checkNoPartialOverlap(dst, dstOffset, src, SOURCE_NAMES[j], offset, bytes);
        }
        return allNative;
    }

    private static long byteCount(DType dtype, long count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, got " + count);
        }
        long bytes = count * dtype.size();
        // overflow test without a 64-bit division (a divide by the non-constant size was a third of a
        // one-element reduce's time): count >= 0, so the product overflowed iff its high word is set or
        // it wrapped negative
        if (Math.multiplyHigh(count, dtype.size()) != 0 || bytes < 0) {
            throw new IllegalArgumentException("count " + count + " is too large for " + dtype.cliName());
        }
        return bytes;
    }

    private static boolean checkDestination(DType dtype, MemorySegment dst, long offset, long bytes) {
        if (dst == null) {
            throw new IllegalArgumentException("dst is null");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        checkOffset("dst", offset);
        checkRange(dst, "dst", offset, bytes);
        return checkBacking(dtype, dst, "dst");
    }

    private static boolean checkSource(DType dtype, MemorySegment src, String name, long offset, long bytes) {
        if (src == null) {
            throw new IllegalArgumentException(name + " is null");
        }
        checkOffset(name, offset);
        checkRange(src, name, offset, bytes);
        return checkBacking(dtype, src, name);
    }

    private static void checkOffset(String name, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException(name + "Offset must be >= 0, got " + offset);
        }
    }

    /** {@code offset >= 0} already; written so that neither side can overflow. */
    private static void checkRange(MemorySegment segment, String name, long offset, long bytes) {
        long size = segment.byteSize();
        if (offset > size || bytes > size - offset) {
            throw new IllegalArgumentException(name + " is too small: " + bytes + " bytes at offset " + offset
                    + " do not fit in its " + size + " bytes");
        }
    }

    /**
     * Rejects a heap segment over an array that cannot carry {@code dtype} ({@link DType#canBeBackedBy});
     * returns true for a native segment. A read-only heap segment does not reveal its array
     * ({@link MemorySegment#heapBase()} is empty), so it cannot be checked.
     */
    private static boolean checkBacking(DType dtype, MemorySegment segment, String name) {
        if (segment.isNative()) {
            return true;
        }
        Optional<Object> base = segment.heapBase();
        if (base.isPresent() && !dtype.canBeBackedBy(base.get().getClass())) {
            throw new IllegalArgumentException(name + " is backed by a " + base.get().getClass().getSimpleName()
                    + " array, which cannot hold " + dtype.cliName() + " elements (use a "
                    + dtype.arrayType().getSimpleName() + ", byte[] or long[] backed segment)");
        }
        return false;
    }

    /**
     * Rejects a source range that overlaps the destination range without starting at the same byte.
     * Exact aliasing is allowed: every kernel loads a block of all sources before it stores that block
     * of dst, so {@code dst == a} reads each element before overwriting it. A partial overlap would let
     * a vector store clobber source elements a later load still needs.
     */
    private static void checkNoPartialOverlap(MemorySegment dst, long dstOffset, MemorySegment src, String name,
                                              long srcOffset, long bytes) {
        if (bytes == 0 || dst.isNative() != src.isNative()) {
            return;
        }
        long dstStart;
        long srcStart;
        if (dst.isNative()) {
            dstStart = dst.address() + dstOffset;
            srcStart = src.address() + srcOffset;
        } else {
            Optional<Object> dstBase = dst.heapBase();
            Optional<Object> srcBase = src.heapBase();
            if (srcBase.isEmpty()) {
                checkReadOnlyHeapOverlap(dst, dstOffset, src, name, srcOffset, bytes);
                return;
            }
            if (dstBase.get() != srcBase.get()) {
                return;
            }
            // for heap segments address() is the byte offset into the backing array
            dstStart = dst.address() + dstOffset;
            srcStart = src.address() + srcOffset;
        }
        if (dstStart != srcStart && Math.abs(dstStart - srcStart) < bytes) {
            throw new IllegalArgumentException(name + " partially overlaps dst (" + name + " starts "
                    + (srcStart - dstStart) + " bytes from dst; only exact aliasing is allowed)");
        }
    }

    /** The rare case of a read-only heap source, which hides its array: let FFM compare the memory. */
    private static void checkReadOnlyHeapOverlap(MemorySegment dst, long dstOffset, MemorySegment src, String name,
                                                 long srcOffset, long bytes) {
        MemorySegment dstRange = dst.asSlice(dstOffset, bytes);
        MemorySegment srcRange = src.asSlice(srcOffset, bytes);
        // equal-length ranges overlap over their full length exactly when they start at the same byte
        Optional<MemorySegment> common = dstRange.asOverlappingSlice(srcRange);
        if (common.isPresent() && common.get().byteSize() != bytes) {
            throw new IllegalArgumentException(name + " partially overlaps dst (" + common.get().byteSize()
                    + " of " + bytes + " bytes shared; only exact aliasing is allowed)");
        }
    }
}
