package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static io.coll4j.reductions.internal.ReductionAssertions.assertSameResult;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import io.coll4j.reductions.internal.TestValues.Backing;

/**
 * Runs one reducer against the scalar reference over the awkward cases of issue 5: every count in
 * {@code 0..4·LANES+7} (main loop, one-vector loop and masked tail in every combination) and a few
 * large ones, byte offsets {@code 0..3·size} on every operand, native and heap segments (typed,
 * {@code byte[]}, {@code long[]}), out of place and in place (dst aliasing either operand or any
 * source), and {@code reduceMany} for k = 1..16. Every result must match bitwise
 * ({@link ReductionAssertions}); bytes of dst outside the range must stay untouched. Half of the cases
 * use native segments only (the vector loops' domain), the other half rotate every backing over the
 * operands (mixed calls, which a vector reducer hands to the scalar loops).
 *
 * <p>It also counts the bytes the thread allocated inside the all-native calls under test: zero means
 * they ran as C2-compiled, intrinsified code (the interpreter's and C1's Vector API fallback allocate).
 * Calls with heap operands are not counted: their argument checks read {@code heapBase()}, an
 * {@code Optional} that C2 does not always scalar-replace.
 */
final class EquivalenceSweep {

    /** Guard bytes after every destination range: a masked tail must not write there. */
    private static final int GUARD = 64;
    private static final long[] LARGE_COUNTS = {4_099, 100_003};

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Reducer tested;
    private final Reducer reference;
    private final DType dtype;
    private final Op op;
    private final int lanes;
    private final int maxOffset;
    private long allocatedInCalls;
    private String firstAllocation;

    /** {@code lanes}: elements per vector of the tested reducer (1 for a scalar one). */
    EquivalenceSweep(Reducer tested, int lanes) {
        this.tested = tested;
        this.dtype = tested.dtype();
        this.op = tested.op();
        this.reference = Reducers.scalar(dtype, op);
        this.lanes = lanes;
        this.maxOffset = 3 * dtype.size();
    }

    /** Runs every case; returns the bytes allocated inside the all-native calls to the tested reducer. */
    long run(long seed, boolean withLargeCounts) {
        allocatedInCalls = 0;
        firstAllocation = null;
        SplittableRandom rnd = new SplittableRandom(seed);
        try (Arena arena = Arena.ofConfined()) {
            int maxCount = 4 * lanes + 7;
            for (int count = 0; count <= maxCount; count++) {
                pairCase(arena, rnd, count, count);
            }
            if (withLargeCounts) {
                for (long count : LARGE_COUNTS) {
                    pairCase(arena, rnd, count, (int) count);
                }
            }
            for (int k = 1; k <= Reducer.MAX_SOURCES; k++) {
                manyCase(arena, rnd, k, maxCount, k);
                manyCase(arena, rnd, k, lanes + k, k + 1);
                manyCase(arena, rnd, k, k % 3, k + 2);
            }
            if (withLargeCounts) {
                manyCase(arena, rnd, 5, LARGE_COUNTS[0], 0);
                // beyond 256 KiB per operand the vector kernel folds strip by strip (dst as the accumulator):
                // k = 3 aliases source 1 (strips), k = 4 source 2 (the register-blocked loop), k = 16 many passes
                manyCase(arena, rnd, 3, LARGE_COUNTS[1], 0);
                manyCase(arena, rnd, 4, LARGE_COUNTS[1], 2);
                manyCase(arena, rnd, Reducer.MAX_SOURCES, LARGE_COUNTS[1], 4);
            }
        }
        return allocatedInCalls;
    }

    /** reduce out of place, reduceInto, and reduce with dst aliasing b. {@code salt} varies offsets and backing. */
    private void pairCase(Arena arena, SplittableRandom rnd, long count, int salt) {
        int size = dtype.size();
        long bytes = count * size;
        long dOff = (salt * 5L) % (maxOffset + 1);
        long aOff = (salt * 3L + 1) % (maxOffset + 1);
        long bOff = (salt * 7L + 2) % (maxOffset + 1);
        MemorySegment a = backing(salt, 0).allocate(arena, dtype, aOff + bytes);
        MemorySegment b = backing(salt, 1).allocate(arena, dtype, bOff + bytes);
        TestValues.fill(a, aOff, dtype, count, rnd);
        TestValues.fill(b, bOff, dtype, count, rnd);
        MemorySegment expected = arena.allocate(Math.max(bytes, 1));
        reference.reduce(expected, 0, a, aOff, b, bOff, count);
        String what = tested + " count " + count + " offsets dst " + dOff + " a " + aOff + " b " + bOff;

        MemorySegment dst = backing(salt, 2).allocate(arena, dtype, dOff + bytes + GUARD);
        TestValues.poison(dst);
        boolean allNative = salt % 2 == 0;
        long before = allocated();
        tested.reduce(dst, dOff, a, aOff, b, bOff, count);
        long spent = allocated() - before;
        count(allNative, spent, "reduce " + what);
        assertSameResult(dtype, op, expected, 0, dst, dOff, count, "reduce " + what);
        assertGuards(dst, dOff, bytes, "reduce " + what);

        // in place: dst starts as a copy of a (same offset inside its own segment)
        MemorySegment inPlace = backing(salt, 3).allocate(arena, dtype, aOff + bytes + GUARD);
        TestValues.poison(inPlace);
        MemorySegment.copy(a, aOff, inPlace, aOff, bytes);
        before = allocated();
        tested.reduceInto(inPlace, aOff, b, bOff, count);
        spent = allocated() - before;
        count(allNative, spent, "reduceInto " + what);
        assertSameResult(dtype, op, expected, 0, inPlace, aOff, count, "reduceInto " + what);
        assertGuards(inPlace, aOff, bytes, "reduceInto " + what);

        // dst aliasing the second operand exactly: b = a op b
        before = allocated();
        tested.reduce(b, bOff, a, aOff, b, bOff, count);
        spent = allocated() - before;
        count(allNative, spent, "reduce into b " + what);
        assertSameResult(dtype, op, expected, 0, b, bOff, count, "reduce into b " + what);
    }

    /** reduceMany out of place, then with dst aliasing one source exactly. */
    private void manyCase(Arena arena, SplittableRandom rnd, int k, long count, int salt) {
        int size = dtype.size();
        long bytes = count * size;
        MemorySegment[] srcs = new MemorySegment[k];
        long[] offsets = new long[k];
        for (int j = 0; j < k; j++) {
            offsets[j] = (salt + 5L * j) % (maxOffset + 1);
            srcs[j] = backing(salt, j).allocate(arena, dtype, offsets[j] + bytes);
            TestValues.fill(srcs[j], offsets[j], dtype, count, rnd);
        }
        MemorySegment expected = arena.allocate(Math.max(bytes, 1));
        reference.reduceMany(expected, 0, srcs, offsets, k, count);
        long dOff = (salt * 3L) % (maxOffset + 1);
        String what = tested + " k " + k + " count " + count + " dst offset " + dOff;

        MemorySegment dst = backing(salt, k).allocate(arena, dtype, dOff + bytes + GUARD);
        TestValues.poison(dst);
        boolean allNative = salt % 2 == 0;
        long before = allocated();
        tested.reduceMany(dst, dOff, srcs, offsets, k, count);
        long spent = allocated() - before;
        count(allNative, spent, "reduceMany " + what);
        assertSameResult(dtype, op, expected, 0, dst, dOff, count, "reduceMany " + what);
        assertGuards(dst, dOff, bytes, "reduceMany " + what);

        int alias = k / 2;
        before = allocated();
        tested.reduceMany(srcs[alias], offsets[alias], srcs, offsets, k, count);
        spent = allocated() - before;
        count(allNative, spent, "reduceMany into srcs[" + alias + "] " + what);
        assertSameResult(dtype, op, expected, 0, srcs[alias], offsets[alias], count,
                "reduceMany into srcs[" + alias + "] " + what);
    }

    /** Books {@code spent} bytes of a call; read the counter right after the call, before building strings. */
    private void count(boolean allNative, long spent, String what) {
        if (allNative && spent != 0) {
            allocatedInCalls += spent;
            if (firstAllocation == null) {
                firstAllocation = spent + " bytes in " + what;
            }
        }
    }

    /** The first all-native call of the last {@link #run} that allocated, or null. */
    String firstAllocation() {
        return firstAllocation;
    }

    /** Even cases: every operand native. Odd cases: the backings rotate over the operands. */
    private static Backing backing(int salt, int operand) {
        Backing[] kinds = Backing.values();
        return salt % 2 == 0 ? Backing.NATIVE : kinds[(salt / 2 + operand) % kinds.length];
    }

    private static void assertGuards(MemorySegment dst, long offset, long bytes, String context) {
        for (long i = 0; i < dst.byteSize(); i++) {
            if (i >= offset && i < offset + bytes) {
                continue;
            }
            if (dst.get(ValueLayout.JAVA_BYTE, i) != 0x5A) {
                fail(context + ": byte " + i + " outside the destination range [" + offset + ", "
                        + (offset + bytes) + ") was written");
            }
        }
    }

    private static long allocated() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }
}
