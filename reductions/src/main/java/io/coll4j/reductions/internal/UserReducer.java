package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A {@link UserOp} as a {@link Reducer}: the same argument checks as the built-in reducers, then the user's
 * range function, pairwise, left to right.
 */
public final class UserReducer implements Reducer {

    private final UserOp op;

    public UserReducer(UserOp op) {
        this.op = op;
    }

    @Override
    public DType dtype() {
        return op.dtype();
    }

    @Override
    public Op op() {
        return Op.USER;
    }

    @Override
    public boolean commutative() {
        return op.commutative();
    }

    @Override
    public void reduceInto(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long count) {
        ReducerArguments.checkReduceInto(op.dtype(), dst, dstOffset, src, srcOffset, count);
        op.function().apply(dst, dstOffset, dst, dstOffset, src, srcOffset, count);
    }

    @Override
    public void reduce(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                       long count) {
        ReducerArguments.checkReduce(op.dtype(), dst, dstOffset, a, aOffset, b, bOffset, count);
        op.function().apply(dst, dstOffset, a, aOffset, b, bOffset, count);
    }

    /**
     * {@code dst = s0 op s1}, then {@code dst = dst op sj}: k − 1 passes. When dst is exactly a source after the
     * first two, the first pass would overwrite it before its turn, so the fold goes through a temporary
     * (user ops are not the hot path the built-in kernels are).
     */
    @Override
    public void reduceMany(MemorySegment dst, long dstOffset, MemorySegment[] srcs, long[] srcOffsets, int k, long count) {
        ReducerArguments.checkReduceMany(op.dtype(), dst, dstOffset, srcs, srcOffsets, k, count);
        long bytes = count * op.dtype().size();
        if (k == 1 || count == 0) {
            MemorySegment.copy(srcs[0], srcOffsets[0], dst, dstOffset, bytes);
            return;
        }
        if (aliasesLaterSource(dst, dstOffset, srcs, srcOffsets, k)) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment tmp = arena.allocate(bytes, 16);
                fold(tmp, 0, srcs, srcOffsets, k, count);
                MemorySegment.copy(tmp, 0, dst, dstOffset, bytes);
            }
        } else {
            fold(dst, dstOffset, srcs, srcOffsets, k, count);
        }
    }

    private void fold(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k, long count) {
        op.function().apply(d, dOff, s[0], so[0], s[1], so[1], count);
        for (int j = 2; j < k; j++) {
            op.function().apply(d, dOff, d, dOff, s[j], so[j], count);
        }
    }

    private static boolean aliasesLaterSource(MemorySegment d, long dOff, MemorySegment[] s, long[] so, int k) {
        for (int j = 2; j < k; j++) {
            if (s[j].isNative() == d.isNative() && s[j].address() + so[j] == d.address() + dOff
                    && (d.isNative() || sameArray(s[j], d))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Two heap segments over one array. Not {@code heapBase()} alone: it is empty for a read-only view, and an
     * in-place call through {@code recv.asReadOnly()} then folded into dst before reading that source (issue
     * 30). The kernel's {@code Aliasing} answers the same way; this module cannot depend on it.
     */
    private static boolean sameArray(MemorySegment a, MemorySegment b) {
        Object aa = a.heapBase().orElse(null);
        Object ba = b.heapBase().orElse(null);
        if (aa != null && ba != null) {
            return aa == ba;
        }
        // called with equal start bytes and count > 0: one array means the segments share a byte
        return a.asOverlappingSlice(b).isPresent();
    }

    @Override
    public String toString() {
        return "user op " + op.name() + " on " + op.dtype().cliName() + (op.commutative() ? "" : " (non-commutative)");
    }
}
