package io.coll4j.bindings.copy;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The copy engine: every size 0..4100 at every source/destination misalignment 0..63, heap and native,
 * for the NT path (no threshold) and the temporal paths, plus large sizes; guard bytes around the
 * destination stay untouched; bad arguments are rejected before anything is written.
 */
class CopyTest {
    static final int GUARD = 64;

    interface CopyFn {
        void copy(MemorySegment dst, long dOff, MemorySegment src, long sOff, long bytes);
    }

    @Test
    void theNativeLibraryLoadsOnThisMachine() {
        assumeTrue(System.getProperty("os.arch").equals("amd64"), "x86-64 only");
        assertTrue(Copy.nativeAvailable(), Copy.nativeStatus());
        assertTrue(Copy.ntIsa().equals("avx512") || Copy.ntIsa().equals("avx2"), Copy.ntIsa());
    }

    @Test
    void everySizeAndMisalignmentNative() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(4100 + 2 * GUARD + 64, 64);
            MemorySegment dst = a.allocate(4100 + 2 * GUARD + 64, 64);
            sweep(src, dst, Copy::nonTemporalAlways);
            sweep(src, dst, Copy::nativeTemporal);
            sweep(src, dst, Copy::temporal);
        }
    }

    @Test
    void everySizeAndMisalignmentHeap() {
        MemorySegment src = MemorySegment.ofArray(new byte[4100 + 2 * GUARD + 64]);
        MemorySegment dst = MemorySegment.ofArray(new long[(4100 + 2 * GUARD + 64) / 8 + 1]);
        sweep(src, dst, Copy::nonTemporalAlways);
        sweep(src, dst, Copy::nativeTemporal);
    }

    /** Sizes 0..4100 at (src, dst) misalignments covering 0..63 on each side. */
    static void sweep(MemorySegment src, MemorySegment dst, CopyFn fn) {
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 0; i < src.byteSize(); i++) {
            src.set(ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt());
        }
        for (int size = 0; size <= 4100; size += size < 300 ? 1 : 37) {
            for (int mis = 0; mis < 64; mis += size < 300 ? 7 : 1) {
                int sm = mis;
                int dm = (mis * 29 + size) & 63;
                check(src, dst, fn, size, sm, dm);
            }
        }
        for (int sm = 0; sm < 64; sm++) {
            for (int dm = 0; dm < 64; dm++) {
                check(src, dst, fn, 1031, sm, dm);
            }
        }
    }

    static void check(MemorySegment src, MemorySegment dst, CopyFn fn, int size, int sm, int dm) {
        long dOff = GUARD + dm;
        dst.fill((byte) 0x11);
        fn.copy(dst, dOff, src, sm, size);
        assertEquals(-1, MemorySegment.mismatch(src, sm, sm + size, dst, dOff, dOff + size), "size " + size + " src+" + sm + " dst+" + dm);
        for (long g = 0; g < dOff; g++) {
            assertEquals(0x11, dst.get(ValueLayout.JAVA_BYTE, g), "guard before, size " + size);
        }
        for (long g = dOff + size; g < dOff + size + GUARD && g < dst.byteSize(); g++) {
            assertEquals(0x11, dst.get(ValueLayout.JAVA_BYTE, g), "guard after, size " + size);
        }
    }

    @Test
    void largeCopies() {
        long n = (64L << 20) + 13;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(n + 64);
            MemorySegment dst = a.allocate(n + 64);
            for (long i = 0; i < n; i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, Math.min(i, n - 8), i * 0x9E3779B97F4A7C15L);
            }
            for (CopyFn fn : new CopyFn[]{Copy::nonTemporal, Copy::nativeTemporal, Copy::temporal}) {
                dst.fill((byte) 0);
                fn.copy(dst, 5, src, 3, n);
                assertEquals(-1, MemorySegment.mismatch(src, 3, 3 + n, dst, 5, 5 + n));
            }
        }
    }

    @Test
    void badArgumentsAreRejectedBeforeWriting() {
        MemorySegment buf = MemorySegment.ofArray(new byte[256]);
        MemorySegment other = MemorySegment.ofArray(new byte[256]);
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(buf, 0, buf, 64, 128), "overlap");
        assertThrows(IllegalArgumentException.class, () -> Copy.temporal(buf, 10, buf, 10, 16), "same range");
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(other, 200, buf, 0, 100), "dst range");
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(other, 0, buf, -1, 10), "src offset");
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(other, 0, buf, 0, -1), "bytes");
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(other.asReadOnly(), 0, buf, 0, 8), "read-only");
        assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(null, 0, buf, 0, 8), "null");
        assertFalse(other.asSlice(0, 8).toArray(ValueLayout.JAVA_BYTE)[0] != 0, "nothing written");
    }

    @Test
    void theYhcclRule() {
        long c = Copy.cacheCapacity(32 << 20, 1 << 20, false, 2);
        assertEquals((32 << 20) + (2 << 20), c, "non-inclusive LLC: C = LLC + p*L2");
        assertEquals(32 << 20, Copy.cacheCapacity(32 << 20, 1 << 20, true, 2), "inclusive: C = LLC");
        Copy engine = new Copy(c);
        assertTrue(engine.useNonTemporal(c + 1, false));
        assertFalse(engine.useNonTemporal(c + 1, true), "data re-read soon stays temporal");
        assertFalse(engine.useNonTemporal(c, false), "a working set that fits stays temporal");
    }
}
