package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static io.coll4j.reductions.internal.ReductionAssertions.assertUntouched;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input (issue 5; docs/design.md, "Error contract"): every rejected argument gives an {@link IllegalArgumentException}
 * whose message names it, and the destination is not written — for the scalar and the vector reducers.
 */
class ArgumentsTest {

    private static final long COUNT = 40;

    static List<String> implementations() {
        return List.of("scalar", "vector");
    }

    private static Reducer reducer(String impl, DType dtype, Op op) {
        if (impl.equals("vector")) {
            assumeTrue(Reducers.vectorFactory().isPresent(), Reducers::implementation);
            return Reducers.vector(dtype, op);
        }
        return Reducers.scalar(dtype, op);
    }

    /** Runs {@code call}, expects an IAE whose message contains {@code name}, and checks dst is untouched. */
    private static void rejects(String name, MemorySegment dst, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(name), () -> "message should name " + name + ": " + e.getMessage());
        assertUntouched(dst, name);
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rejectsCountsOffsetsAndRanges(String impl) {
        Reducer r = reducer(impl, DType.F64, Op.SUM);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(COUNT * 8);
            MemorySegment a = arena.allocate(COUNT * 8);
            MemorySegment b = arena.allocate(COUNT * 8);
            MemorySegment small = arena.allocate(COUNT * 8 - 1);
            TestValues.poison(dst);
            rejects("count", dst, () -> r.reduce(dst, 0, a, 0, b, 0, -1));
            rejects("count", dst, () -> r.reduce(dst, 0, a, 0, b, 0, Long.MAX_VALUE / 4));
            rejects("count", dst, () -> r.reduce(dst, 0, a, 0, b, 0, (1L << 62) + 1));   // × 8 wraps to +8
            rejects("dst", dst, () -> r.reduce(dst, 8, a, 0, b, 0, COUNT));
            rejects("a", dst, () -> r.reduce(dst, 0, small, 0, b, 0, COUNT));
            rejects("b", dst, () -> r.reduce(dst, 0, a, 0, b, 1, COUNT));
            rejects("dstOffset", dst, () -> r.reduce(dst, -8, a, 0, b, 0, 1));
            rejects("aOffset", dst, () -> r.reduce(dst, 0, a, -1, b, 0, 1));
            rejects("bOffset", dst, () -> r.reduce(dst, 0, a, 0, b, Long.MIN_VALUE, 1));
            rejects("b", dst, () -> r.reduce(dst, 0, a, 0, b, Long.MAX_VALUE, 1));
            rejects("src", dst, () -> r.reduceInto(dst, 0, small, 0, COUNT));
            rejects("srcOffset", dst, () -> r.reduceInto(dst, 0, a, -4, 1));
            rejects("dst", dst, () -> r.reduceInto(dst, 1, a, 0, COUNT));
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rejectsNullsAndReadOnlyDestination(String impl) {
        Reducer r = reducer(impl, DType.I32, Op.BXOR);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(COUNT * 4);
            MemorySegment a = arena.allocate(COUNT * 4);
            TestValues.poison(dst);
            rejects("dst", dst, () -> r.reduce(null, 0, a, 0, a, 0, COUNT));
            rejects("a", dst, () -> r.reduce(dst, 0, null, 0, a, 0, COUNT));
            rejects("b", dst, () -> r.reduce(dst, 0, a, 0, null, 0, COUNT));
            rejects("src", dst, () -> r.reduceInto(dst, 0, null, 0, COUNT));
            rejects("dst is read-only", dst, () -> r.reduce(dst.asReadOnly(), 0, a, 0, a, 0, COUNT));
            rejects("dst is read-only", dst, () -> r.reduceInto(dst.asReadOnly(), 0, a, 0, COUNT));
            rejects("dst is read-only", dst, () -> r.reduceMany(dst.asReadOnly(), 0, new MemorySegment[] {a, a},
                    new long[2], 2, COUNT));
            // a read-only source is fine
            assertDoesNotThrow(() -> r.reduce(arena.allocate(COUNT * 4), 0, a.asReadOnly(), 0, a, 0, COUNT));
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rejectsBadReduceManyArguments(String impl) {
        Reducer r = reducer(impl, DType.F32, Op.MAX);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(COUNT * 4);
            MemorySegment[] srcs = new MemorySegment[17];
            for (int j = 0; j < srcs.length; j++) {
                srcs[j] = arena.allocate(COUNT * 4);
            }
            long[] offsets = new long[17];
            TestValues.poison(dst);
            rejects("k", dst, () -> r.reduceMany(dst, 0, srcs, offsets, 0, COUNT));
            rejects("k", dst, () -> r.reduceMany(dst, 0, srcs, offsets, 17, COUNT));
            rejects("srcs has only 3", dst, () -> r.reduceMany(dst, 0, new MemorySegment[] {srcs[0], srcs[1], srcs[2]},
                    offsets, 4, COUNT));
            rejects("srcOffsets has only 2", dst, () -> r.reduceMany(dst, 0, srcs, new long[2], 3, COUNT));
            rejects("srcs is null", dst, () -> r.reduceMany(dst, 0, null, offsets, 2, COUNT));
            rejects("srcOffsets is null", dst, () -> r.reduceMany(dst, 0, srcs, null, 2, COUNT));
            MemorySegment[] withNull = srcs.clone();
            withNull[5] = null;
            rejects("srcs[5] is null", dst, () -> r.reduceMany(dst, 0, withNull, offsets, 8, COUNT));
            MemorySegment[] withSmall = srcs.clone();
            withSmall[7] = arena.allocate(COUNT * 4 - 4);
            rejects("srcs[7]", dst, () -> r.reduceMany(dst, 0, withSmall, offsets, 16, COUNT));
            long[] badOffset = offsets.clone();
            badOffset[3] = -4;
            rejects("srcOffsets[3]", dst, () -> r.reduceMany(dst, 0, srcs, badOffset, 4, COUNT));
            rejects("count", dst, () -> r.reduceMany(dst, 0, srcs, offsets, 4, -3));
            rejects("dst", dst, () -> r.reduceMany(null, 0, srcs, offsets, 4, COUNT));
            // the k-less overload takes k from srcs.length: 17 sources are too many
            rejects("k", dst, () -> r.reduceMany(dst, 0, srcs, offsets, COUNT));
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rejectsArraysThatCannotHoldTheDtype(String impl) {
        Reducer f64 = reducer(impl, DType.F64, Op.SUM);
        Reducer f32 = reducer(impl, DType.F32, Op.SUM);
        MemorySegment floats = MemorySegment.ofArray(new float[80]);
        MemorySegment ints = MemorySegment.ofArray(new int[80]);
        MemorySegment doubles = MemorySegment.ofArray(new double[40]);
        MemorySegment dst = MemorySegment.ofArray(new double[40]);
        TestValues.poison(dst);
        rejects("a is backed by a float[]", dst, () -> f64.reduce(dst, 0, floats, 0, doubles, 0, COUNT));
        rejects("b is backed by a int[]", dst, () -> f64.reduce(dst, 0, doubles, 0, ints, 0, COUNT));
        MemorySegment floatDst = MemorySegment.ofArray(new float[40]);
        TestValues.poison(floatDst);
        rejects("dst is backed by a float[]", floatDst, () -> f64.reduceInto(floatDst, 0, doubles, 0, 20));
        MemorySegment floatDst2 = MemorySegment.ofArray(new float[40]);
        TestValues.poison(floatDst2);
        rejects("srcs[1] is backed by a double[]", floatDst2, () -> f32.reduceMany(floatDst2, 0,
                new MemorySegment[] {floats, doubles}, new long[2], 2, 10));
        // raw storage and the dtype's own array are accepted
        assertDoesNotThrow(() -> f64.reduce(MemorySegment.ofArray(new byte[320]), 0,
                MemorySegment.ofArray(new long[40]), 0, doubles, 0, COUNT));
        assertDoesNotThrow(() -> f32.reduce(MemorySegment.ofArray(new float[40]), 0,
                MemorySegment.ofArray(new long[20]), 0, MemorySegment.ofArray(new byte[160]), 0, COUNT));
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void rejectsPartialOverlapButAllowsExactAliasing(String impl) {
        Reducer r = reducer(impl, DType.I64, Op.SUM);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(100 * 8);
            MemorySegment other = arena.allocate(100 * 8);
            TestValues.poison(buf);
            rejects("a partially overlaps dst", buf, () -> r.reduce(buf, 0, buf, 8, other, 0, COUNT));
            rejects("b partially overlaps dst", buf, () -> r.reduce(buf, 16, other, 0, buf, 8, COUNT));
            rejects("src partially overlaps dst", buf, () -> r.reduceInto(buf.asSlice(8), 0, buf, 0, COUNT));
            rejects("srcs[1] partially overlaps dst", buf, () -> r.reduceMany(buf, 0,
                    new MemorySegment[] {other, buf}, new long[] {0, 312}, 2, COUNT));
            assertDoesNotThrow(() -> r.reduce(buf, 8, buf.asSlice(8), 0, other, 0, COUNT));     // exact alias via a slice
            assertDoesNotThrow(() -> r.reduce(buf, 0, buf, COUNT * 8, other, 0, COUNT));      // adjacent, disjoint

            long[] array = new long[100];
            MemorySegment heap = MemorySegment.ofArray(array);
            TestValues.poison(heap);
            rejects("a partially overlaps dst", heap, () -> r.reduce(heap, 0, heap, 8, other, 0, COUNT));
            // a read-only view hides its array from heapBase(): the overlap is still found
            rejects("b partially overlaps dst", heap, () -> r.reduce(heap, 0, other, 0, heap.asReadOnly(), 24, COUNT));
            assertDoesNotThrow(() -> r.reduce(heap, 0, other, 0, heap.asReadOnly(), 0, COUNT));
            assertDoesNotThrow(() -> r.reduce(heap, 0, MemorySegment.ofArray(new long[100]), 8, other, 0, COUNT));
        }
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void closedSourceFailsBeforeWriting(String impl) {
        Reducer r = reducer(impl, DType.F64, Op.MAX);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(COUNT * 8);
            MemorySegment a = arena.allocate(COUNT * 8);
            TestValues.poison(dst);
            Arena closed = Arena.ofConfined();
            MemorySegment gone = closed.allocate(COUNT * 8);
            closed.close();
            assertThrows(IllegalStateException.class, () -> r.reduce(dst, 0, a, 0, gone, 0, COUNT));
            assertUntouched(dst, "closed b");
            assertThrows(IllegalStateException.class, () -> r.reduceMany(dst, 0,
                    new MemorySegment[] {a, a, a, gone}, new long[4], 4, COUNT));
            assertUntouched(dst, "closed srcs[3]");
        }
    }

    @Test
    void bitwiseOpsNeedAnIntegerDtype() {
        for (DType dtype : new DType[] {DType.F32, DType.F64}) {
            for (Op op : new Op[] {Op.BAND, Op.BOR, Op.BXOR}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Reducers.of(dtype, op));
                assertTrue(e.getMessage().contains(op.cliName()) && e.getMessage().contains(dtype.cliName()), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> Reducers.scalar(dtype, op));
                assertThrows(IllegalArgumentException.class, () -> Reducers.vector(dtype, op));
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Reducers.of(null, Op.SUM));
        assertTrue(e.getMessage().contains("dtype"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Reducers.scalar(DType.I32, null));
        assertTrue(e.getMessage().contains("op"), e.getMessage());
    }
}
