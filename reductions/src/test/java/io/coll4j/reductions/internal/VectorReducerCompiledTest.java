package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.coll4j.reductions.internal.TestValues.Backing;

/**
 * The production vector kernels ({@link Reducers#vector}, at the process-wide size) as C2 compiles
 * them, against the scalar reference. C2 is where the Vector API becomes SIMD instructions and where
 * its corner cases can differ from the Java fallback, so the equivalence sweep must run on compiled
 * code — and {@link HotLoop} tells when it does: each kernel is warmed (round robin, so C2 compiles one
 * in the background while the others run) until a batch of all-native calls allocates nothing; then a
 * complete {@link EquivalenceSweep} must run with zero bytes allocated inside its all-native calls. A sweep that
 * allocated (a deoptimisation sent a kernel back to the interpreter) is repeated, up to three times.
 *
 * <p>Besides all 22 (dtype, op) kernels at the process-wide size, one kernel per dtype is built at each
 * other size the CPU runs natively, so C2's code for every size is checked in one run.
 */
class VectorReducerCompiledTest {

    /**
     * How long the warm-up may go without one more kernel turning hot. Counted from the last kernel that did,
     * not from the start: on a loaded machine C2's queue drains slowly but steadily (a fixed 60 s from the start
     * failed there while every kernel was on its way), and a kernel that never compiles still fails.
     */
    private static final long STALL_NANOS = 60_000_000_000L;
    /** The warm-up's bound in all. */
    private static final long WARM_UP_NANOS = 240_000_000_000L;
    private static final int SWEEP_ATTEMPTS = 3;

    @Test
    void compiledKernelsMatchScalarReference() {
        assumeTrue(Reducers.vectorFactory().isPresent(), Reducers::implementation);
        int bits = ((VectorReducers) Reducers.vectorFactory().orElseThrow()).bits();
        List<Reducer> cold = new ArrayList<>();
        Map<Reducer, Integer> lanesOf = new IdentityHashMap<>();
        for (DType dtype : DType.values()) {
            for (Op op : Op.values()) {
                if (Reducers.ownKernel(dtype, op) && VectorKernelSpec.hasLanes(dtype)) {
                    Reducer r = Reducers.vector(dtype, op);
                    cold.add(r);
                    lanesOf.put(r, bits / 8 / dtype.size());
                }
            }
        }
        // the other sizes once, in the default execution (the forced-size execution repeats only its own)
        boolean forced = System.getProperty(Reducers.BITS_PROPERTY) != null;
        for (int other : new int[] {128, 256, 512}) {
            if (!forced && other != bits && other <= VectorConstants.PREFERRED_BITS) {
                VectorReducers family = new VectorReducers(other);
                for (Reducer r : List.of(family.create(DType.F32, Op.MAX), family.create(DType.F64, Op.SUM),
                        family.create(DType.I32, Op.PROD), family.create(DType.I64, Op.BXOR))) {
                    cold.add(r);
                    lanesOf.put(r, other / 8 / r.dtype().size());
                }
            }
        }
        List<Reducer> hot = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            Probe probe = new Probe(arena);
            long start = System.nanoTime();
            long lastHot = start;
            while (!cold.isEmpty()) {
                long now = System.nanoTime();
                if (now - lastHot > STALL_NANOS || now - start > WARM_UP_NANOS) {
                    fail("still allocating (not C2-compiled) after " + (now - start) / 1_000_000_000 + " s, the last "
                            + (now - lastHot) / 1_000_000_000 + " s without one more kernel compiled: " + cold);
                }
                for (var it = cold.iterator(); it.hasNext(); ) {
                    Reducer r = it.next();
                    int lanes = lanesOf.get(r);
                    probe.run(r, lanes, 200, false);
                    long before = HotLoop.allocated();
                    probe.run(r, lanes, 4 * lanes + 8, true);
                    if (HotLoop.allocated() == before) {
                        it.remove();
                        hot.add(r);
                        lastHot = System.nanoTime();
                    }
                }
            }
            sweepAll(probe, hot, lanesOf);
        }
    }

    private static void sweepAll(Probe probe, List<Reducer> hot, Map<Reducer, Integer> lanesOf) {
        for (Reducer r : hot) {
            EquivalenceSweep sweep = new EquivalenceSweep(r, lanesOf.get(r));
            long allocated = -1;
            for (int attempt = 0; attempt < SWEEP_ATTEMPTS && allocated != 0; attempt++) {
                if (attempt > 0) {
                    rewarm(probe, r, lanesOf.get(r));
                }
                allocated = sweep.run(r.toString().hashCode() + attempt, true);
            }
            if (allocated != 0) {
                fail(r + " allocated " + allocated + " bytes inside each of " + SWEEP_ATTEMPTS
                        + " sweeps: it keeps leaving compiled code, or its loops allocate; first: " + sweep.firstAllocation());
            }
        }
    }

    /**
     * A sweep that allocated met a kernel that was deoptimised or whose path C2 had not compiled yet (on a loaded
     * machine its queue lags the sweep): run the kernel's probe until a batch allocates nothing again, within the
     * stall bound, before the next attempt, so the attempts test compiled code rather than C2's backlog.
     */
    private static void rewarm(Probe probe, Reducer r, int lanes) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < STALL_NANOS) {
            long before = HotLoop.allocated();
            probe.run(r, lanes, 4 * lanes + 8, true);
            if (HotLoop.allocated() == before) {
                return;
            }
        }
    }

    /**
     * Calls that take every path a sweep takes, so C2's profile has seen them all and every method a
     * kernel calls has been invoked often enough to be compiled on its own: counts 0..4·LANES+7, every
     * segment backing, offsets, each k = 1..16 with counts that reach the vector loops, and every 32nd
     * call a k = 3 fold of operands beyond 256 KiB (the strip-mined loop the sweep's large counts take;
     * left cold, C2 compiled it only during the sweeps and a loaded machine failed all three).
     */
    private static final class Probe {
        private static final long LARGE_BYTES = 320 * 1024;
        private final MemorySegment[][] segments = new MemorySegment[Backing.values().length][];
        private final long[] offsets = new long[Reducer.MAX_SOURCES];
        private final MemorySegment[] large = new MemorySegment[4];
        private final long[] largeOffsets = new long[4];

        Probe(Arena arena) {
            for (int j = 0; j < large.length; j++) {
                large[j] = arena.allocate(LARGE_BYTES, 64);
            }
            for (Backing b : Backing.values()) {
                MemorySegment[] s = new MemorySegment[Reducer.MAX_SOURCES + 1];
                for (int j = 0; j < s.length; j++) {
                    s[j] = b.allocate(arena, DType.I64, 2048);
                }
                segments[b.ordinal()] = s;
            }
            for (int j = 0; j < offsets.length; j++) {
                offsets[j] = j % 13;
            }
        }

        /** {@code nativeOnly}: native segments only, whose calls must not allocate once compiled. */
        void run(Reducer r, int lanes, int calls, boolean nativeOnly) {
            int counts = 4 * lanes + 8;
            for (int i = 0; i < calls; i++) {
                long count = (i * 7L) % counts;
                MemorySegment[] s = segments[nativeOnly ? Backing.NATIVE.ordinal() : i % segments.length];
                int k = 1 + (i * 5) % Reducer.MAX_SOURCES;
                r.reduce(s[0], i % 17, s[1], i % 11, s[2], i % 5, count);
                r.reduceInto(s[3], i % 7, s[4], i % 19, count);
                r.reduceMany(s[Reducer.MAX_SOURCES], i % 23, s, offsets, k, count);
                if (i % 32 == 0) {
                    r.reduceMany(large[3], 0, large, largeOffsets, 3, LARGE_BYTES / r.dtype().size());
                }
            }
        }
    }
}
