package io.coll4j.bindings.copy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The streaming fold against the Java left fold, bitwise (NaN as any NaN): every dtype × op, 1 to 5
 * sources, 1 and 3 destinations, counts around the 1 KiB stage and the 64-byte alignment of the first
 * destination, destinations at offsets that are not line-aligned, in place, and nothing written
 * outside the result. Then every refusal, with nothing written.
 */
class StreamingFoldTest {
    private static final int[] SIZE = {4, 8, 4, 8};
    private static final int[] COUNTS = {0, 1, 7, 15, 16, 17, 255, 256, 257, 1000, 5003};
    private static final int MAX = 5003;
    private static final long GUARD = 64;

    @BeforeAll
    static void needsStreaming() {
        assumeTrue(StreamingFold.available(), () -> "no streaming fold: " + Copy.nativeStatus());
    }

    private static void fillRandom(int dtype, MemorySegment s, long seed) {
        Random r = new Random(seed);
        for (long i = 0; i < s.byteSize() / SIZE[dtype]; i++) {
            switch (dtype) {
                case NativeReduce.F32 -> s.setAtIndex(ValueLayout.JAVA_FLOAT, i, (float) (r.nextGaussian() * Math.scalb(1.0, r.nextInt(40) - 20)));
                case NativeReduce.F64 -> s.setAtIndex(ValueLayout.JAVA_DOUBLE, i, r.nextGaussian() * Math.scalb(1.0, r.nextInt(60) - 30));
                case NativeReduce.I32 -> s.setAtIndex(ValueLayout.JAVA_INT, i, r.nextInt());
                default -> s.setAtIndex(ValueLayout.JAVA_LONG, i, r.nextLong());
            }
        }
    }

    private static long expected(int dtype, int op, MemorySegment[] srcs, long[] offs, int k, long i) {
        int es = SIZE[dtype];
        long acc = NativeReduceTest.bits(dtype, srcs[0].asSlice(offs[0]), i);
        for (int j = 1; j < k; j++) {
            acc = NativeReduceTest.expected(dtype, op, acc, NativeReduceTest.bits(dtype, srcs[j].asSlice(offs[j]), i));
        }
        return acc;
    }

    @Test
    void everyDtypeOpSourceCountAndAlignmentIsTheLeftFold() {
        StreamingFold fold = new StreamingFold(3, 5);
        long[] dstOffsets = {0, 8, 24, 40};      // line-aligned, and 8, 24, 40 bytes into a line
        try (Arena arena = Arena.ofConfined()) {
            for (int dtype = NativeReduce.F32; dtype <= NativeReduce.I64; dtype++) {
                int es = SIZE[dtype];
                int ops = dtype <= NativeReduce.F64 ? NativeReduce.MAX : NativeReduce.BXOR;
                MemorySegment[] srcs = new MemorySegment[5];
                long[] offs = new long[5];
                for (int j = 0; j < 5; j++) {
                    srcs[j] = arena.allocate((long) MAX * es + 128, 64);
                    fillRandom(dtype, srcs[j], 100L * dtype + j);
                    offs[j] = (j * 12L) % 64 / es * es;    // sources at assorted element offsets
                }
                MemorySegment[] dsts = new MemorySegment[3];
                for (int d = 0; d < 3; d++) {
                    dsts[d] = arena.allocate((long) MAX * es + 64 + 2 * GUARD, 64);
                }
                for (int op = NativeReduce.SUM; op <= ops; op++) {
                    for (int k = 1; k <= 5; k++) {
                        for (int nd = 1; nd <= 3; nd += 2) {
                            for (int count : COUNTS) {
                                long off0 = dstOffsets[(op + k + count) % dstOffsets.length];
                                fold.clear();
                                for (int d = 0; d < nd; d++) {
                                    dsts[d].fill((byte) 0x5A);
                                    // the other destinations one element further into their lines
                                    fold.destination(dsts[d], GUARD + off0 + (long) d * es);
                                }
                                for (int j = 0; j < k; j++) {
                                    fold.source(srcs[j], offs[j]);
                                }
                                fold.run(NativeType.values()[dtype], NativeOp.values()[op], count);
                                for (int d = 0; d < nd; d++) {
                                    MemorySegment out = dsts[d].asSlice(GUARD + off0 + (long) d * es);
                                    for (long i = 0; i < count; i++) {
                                        long want = expected(dtype, op, srcs, offs, k, i);
                                        long got = NativeReduceTest.bits(dtype, out, i);
                                        if (!NativeReduceTest.same(dtype, got, want)) {
                                            throw new AssertionError("dtype " + dtype + " op " + op + " k " + k + " nd " + nd
                                                    + " count " + count + " dst " + d + " offset " + off0 + " [" + i + "]: "
                                                    + Long.toHexString(got) + ", Java " + Long.toHexString(want));
                                        }
                                    }
                                    long start = GUARD + off0 + (long) d * es;
                                    long end = start + (long) count * es;
                                    for (long b = 0; b < dsts[d].byteSize(); b++) {
                                        if ((b < start || b >= end) && dsts[d].get(ValueLayout.JAVA_BYTE, b) != 0x5A) {
                                            throw new AssertionError("wrote outside the result at byte " + b + " (count " + count
                                                    + ", dst " + d + ", k " + k + ")");
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /** A destination that is exactly one of the sources (an in-place collective): every element read before written. */
    @Test
    void inPlaceOnAnySource() {
        StreamingFold fold = new StreamingFold(2, 4);
        int n = 4099;
        try (Arena arena = Arena.ofConfined()) {
            for (int alias = 0; alias < 3; alias++) {
                MemorySegment[] srcs = new MemorySegment[3];
                MemorySegment[] copies = new MemorySegment[3];
                for (int j = 0; j < 3; j++) {
                    srcs[j] = arena.allocate(n * 8L + 8, 8).asSlice(8);      // 8 bytes into a line
                    fillRandom(NativeReduce.F64, srcs[j], 7 + j);
                    copies[j] = arena.allocate(srcs[j].byteSize());
                    copies[j].copyFrom(srcs[j]);
                }
                MemorySegment other = arena.allocate(n * 8L, 64);
                fold.destination(srcs[alias], 0);
                fold.destination(other, 0);
                for (int j = 0; j < 3; j++) {
                    fold.source(srcs[j], 0);
                }
                fold.run(NativeType.F64, NativeOp.SUM, n);
                long[] zero = new long[3];
                for (long i = 0; i < n; i++) {
                    long want = expected(NativeReduce.F64, NativeReduce.SUM, copies, zero, 3, i);
                    assertEquals(want, NativeReduceTest.bits(NativeReduce.F64, srcs[alias], i), "alias " + alias + " [" + i + "]");
                    assertEquals(want, NativeReduceTest.bits(NativeReduce.F64, other, i), "other, alias " + alias + " [" + i + "]");
                }
            }
        }
    }

    @Test
    void refusesWhatItCannotDoAndWritesNothing() {
        StreamingFold fold = new StreamingFold(1, 2);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(1024, 64);
            MemorySegment b = arena.allocate(1024, 64);
            MemorySegment dst = arena.allocate(1024, 64);
            dst.fill((byte) 1);
            // a bitwise op on a float type
            fold.destination(dst, 0);
            fold.source(a, 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.BXOR, 16));
            // no source; a heap source; a short destination; a read-only destination; partial overlap
            fold.destination(dst, 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            fold.destination(dst, 0);
            fold.source(MemorySegment.ofArray(new double[128]), 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            fold.destination(dst, 1000);
            fold.source(a, 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            fold.destination(dst.asReadOnly(), 0);
            fold.source(a, 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            fold.destination(a, 8);
            fold.source(a, 0);
            fold.source(b, 0);
            assertThrows(IllegalArgumentException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            for (long i = 0; i < dst.byteSize(); i++) {
                assertEquals(1, dst.get(ValueLayout.JAVA_BYTE, i), "byte " + i);
            }
            // the bounds of the table
            fold.clear();
            fold.destination(dst, 0);
            assertThrows(IllegalStateException.class, () -> fold.destination(dst, 0));
            fold.source(a, 0);
            fold.source(b, 0);
            assertThrows(IllegalStateException.class, () -> fold.source(a, 0));
            assertThrows(IllegalArgumentException.class, () -> new StreamingFold(0, 1));
        }
    }

    /** A segment whose arena was closed is refused before the downcall (the table would hold a dangling address). */
    @Test
    void refusesClosedSegments() {
        StreamingFold fold = new StreamingFold(1, 2);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(1024, 64);
            MemorySegment dead;
            try (Arena gone = Arena.ofShared()) {
                dead = gone.allocate(1024, 64);
            }
            fold.destination(dst, 0);
            fold.source(dead, 0);
            fold.source(dst, 0);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
            assertTrue(e.getMessage().contains("source 0"), e.getMessage());
            fold.destination(dead, 0);
            fold.source(dst, 0);
            assertThrows(IllegalStateException.class, () -> fold.run(NativeType.F64, NativeOp.SUM, 16));
        }
    }

    /** Segments of more sessions than it can hold alive: nothing is folded, the caller is told so. */
    @Test
    void declinesMoreSessionsThanItCanHold() {
        int n = StreamingFold.MAX_SESSIONS + 1;
        StreamingFold fold = new StreamingFold(1, n);
        Arena[] arenas = new Arena[n];
        try {
            for (int i = 0; i < n; i++) {
                arenas[i] = Arena.ofShared();
                fold.source(arenas[i].allocate(64, 64), 0);
            }
            try (Arena a = Arena.ofConfined()) {
                MemorySegment dst = a.allocate(64, 64);
                dst.fill((byte) 3);
                fold.destination(dst, 0);
                assertFalse(fold.run(NativeType.I64, NativeOp.SUM, 8));
                for (long i = 0; i < 64; i++) {
                    assertEquals(3, dst.get(ValueLayout.JAVA_BYTE, i));
                }
                // exactly MAX_SESSIONS distinct sessions (the destination's among them) is fine
                for (int i = 0; i < StreamingFold.MAX_SESSIONS - 1; i++) {
                    fold.source(arenas[i].allocate(64, 64), 0);
                }
                fold.destination(dst, 0);
                assertTrue(fold.run(NativeType.I64, NativeOp.SUM, 8));
            }
        } finally {
            for (Arena a : arenas) {
                if (a != null) {
                    a.close();
                }
            }
        }
    }
}
