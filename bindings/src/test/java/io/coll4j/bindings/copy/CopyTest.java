package io.coll4j.bindings.copy;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Correctness of every copy path against the source bytes, at every size 0..4100 and every
 * src/dst position within a cache line, on heap and native segments, with guard bytes around the
 * destination range; and the argument checks.
 */
class CopyTest {

    private static final int MAX_SIZE = 4100;
    private static final int LINE = 64;
    /** Bytes of dst on each side of the largest range: a stray store anywhere there is caught. */
    private static final int GUARD = 256;

    @FunctionalInterface
    interface CopyPath {
        void copy(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes);
    }

    private static final CopyPath NT_NATIVE = (d, dOff, s, sOff, n) -> Copy.nonTemporal(true, 0, d, dOff, s, sOff, n);
    private static final CopyPath FALLBACK = (d, dOff, s, sOff, n) -> Copy.nonTemporal(false, 0, d, dOff, s, sOff, n);

    private static void assumeNative() {
        assumeTrue(NativeLibrary.available(), () -> "libcoll4j.so not loaded: " + NativeLibrary.unavailableReason().orElse(""));
    }

    private static void assumeNt() {
        assumeNative();
        assumeTrue(Copy.nativeAvailable(), Copy::nativeStatus);
    }

    /** A copy path through one ISA of copy.c, skipped when the CPU lacks it. */
    private static CopyPath isaPath(int isa, boolean nontemporal) {
        assumeNative();
        MemorySegment probeDst = MemorySegment.ofArray(new byte[1]);
        MemorySegment probeSrc = MemorySegment.ofArray(new byte[1]);
        assumeTrue(NativeCopy.copyWithIsa(isa, nontemporal, probeDst, probeSrc, 1), "CPU lacks ISA " + isa);
        return (d, dOff, s, sOff, n) -> {
            Copy.check(d, dOff, s, sOff, n);
            assertTrue(NativeCopy.copyWithIsa(isa, nontemporal, d.asSlice(dOff, n), s.asSlice(sOff, n), n));
        };
    }

    // ---- correctness ------------------------------------------------------------------------------

    /** Every size 0..4100 × every dst position in a line, src position varied with both. */
    private static void everySize(CopyPath path, boolean heap, int dstPositions) {
        try (Arena arena = Arena.ofConfined()) {
            Buffers b = new Buffers(arena, heap, MAX_SIZE + 2 * LINE);
            for (int size = 0; size <= MAX_SIZE; size++) {
                for (int dm = 0; dm < LINE; dm += LINE / dstPositions) {
                    int sm = (dm * 37 + size * 11) & (LINE - 1);
                    b.copyAndCheck(path, GUARD + dm, sm, size);
                }
            }
        }
    }

    /** Every (src, dst) position pair within a line, at sizes around the head/body/tail boundaries. */
    private static void everyMisalignmentPair(CopyPath path, boolean heap) {
        int[] sizes = {1, 63, 64, 65, 127, 128, 255, 256, 257, 320, 511, 1000, MAX_SIZE};
        try (Arena arena = Arena.ofConfined()) {
            Buffers b = new Buffers(arena, heap, MAX_SIZE + 2 * LINE);
            for (int size : sizes) {
                for (int dm = 0; dm < LINE; dm++) {
                    for (int sm = 0; sm < LINE; sm++) {
                        b.copyAndCheck(path, GUARD + dm, sm, size);
                    }
                }
            }
        }
    }

    @Test
    void nonTemporalNativeEverySizeAndAlignment() {
        assumeNt();
        everySize(NT_NATIVE, false, LINE);
        everyMisalignmentPair(NT_NATIVE, false);
    }

    @Test
    void nonTemporalHeapEverySizeAndAlignment() {
        assumeNt();
        everySize(NT_NATIVE, true, 16);
        everyMisalignmentPair(NT_NATIVE, true);
    }

    @Test
    void fallbackEverySizeAndAlignment() {
        everySize(FALLBACK, false, 8);
        everySize(FALLBACK, true, 8);
    }

    @Test
    void nativeTemporalEverySizeAndAlignment() {
        assumeNative();
        everySize(Copy::nativeTemporal, false, 16);
        everySize(Copy::nativeTemporal, true, 4);
        everyMisalignmentPair(Copy::nativeTemporal, false);
    }

    @Test
    void avx512PathsEverySize() {
        CopyPath nt = isaPath(NativeCopy.ISA_AVX512, true);
        CopyPath t = isaPath(NativeCopy.ISA_AVX512, false);
        everySize(nt, false, 16);
        everySize(t, false, 8);
    }

    @Test
    void avx2PathsEverySize() {
        CopyPath nt = isaPath(NativeCopy.ISA_AVX2, true);
        CopyPath t = isaPath(NativeCopy.ISA_AVX2, false);
        everySize(nt, false, 16);
        everySize(t, false, 8);
        everyMisalignmentPair(nt, false);
    }

    @Test
    void publicApiAroundTheFloor() {
        long floor = Copy.NT_MIN_BYTES;
        try (Arena arena = Arena.ofConfined()) {
            int size = (int) Math.min(floor + 3 * LINE, 1 << 20);
            for (boolean heap : new boolean[]{false, true}) {
                Buffers b = new Buffers(arena, heap, size + 2 * LINE);
                for (long n : new long[]{0, 1, floor - 1, floor, floor + 1, floor + 65, size}) {
                    if (n >= 0 && n <= size) {
                        b.copyAndCheck(Copy::nonTemporal, GUARD + 5, 3, (int) n);
                        b.copyAndCheck(Copy::temporal, GUARD + 7, 60, (int) n);
                        b.copyAndCheck((d, dOff, s, sOff, len) -> new Copy(1 << 20).adaptive(d, dOff, s, sOff, len, 1L << 40),
                                GUARD + 1, 2, (int) n);
                        b.copyAndCheck((d, dOff, s, sOff, len) -> new Copy(1 << 20).adaptive(d, dOff, s, sOff, len, 0),
                                GUARD + 1, 2, (int) n);
                    }
                }
            }
        }
    }

    /** 64 MiB + 13 at odd offsets: the long body loop, the normal downcall (native) and the chunked critical one (heap). */
    @Test
    void largeCopies() {
        long size = (64L << 20) + 13;
        CopyPath[] paths = Copy.nativeAvailable()
                ? new CopyPath[]{NT_NATIVE, Copy::nativeTemporal, FALLBACK}
                : new CopyPath[]{FALLBACK};
        try (Arena arena = Arena.ofConfined()) {
            Buffers nat = new Buffers(arena, false, size + LINE);
            for (CopyPath p : paths) {
                nat.copyAndCheck(p, GUARD + 7, 50, size);
            }
            nat.copyAndCheck(paths[0], GUARD + 64, 0, size);
            Buffers heap = new Buffers(arena, true, size + LINE);
            heap.copyAndCheck(paths[0], GUARD + 7, 50, size);
        }
    }

    /** src, dst (with guards) and dst's expected image; one instance per test, reused across copies. */
    private static final class Buffers {
        final MemorySegment src;
        final MemorySegment dst;
        final MemorySegment image;

        Buffers(Arena arena, boolean heap, long capacity) {
            src = allocate(arena, heap, capacity);
            dst = allocate(arena, heap, capacity + 2 * GUARD);
            image = arena.allocate(dst.byteSize());
            fill(src, 1);
            fill(image, 2);
            dst.copyFrom(image);
        }

        private static MemorySegment allocate(Arena arena, boolean heap, long bytes) {
            return heap ? MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]).asSlice(0, bytes)
                    : arena.allocate(bytes, LINE);
        }

        /** Pseudo-random bytes (an LCG with its high bits mixed down): no two nearby positions alike. */
        private static void fill(MemorySegment s, long seed) {
            long x = seed;
            long n = s.byteSize();
            for (long i = 0; i < n; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                s.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (x >>> 56 ^ x >>> 29));
            }
        }

        /** Copies, checks the range equals the source and every other byte of dst is unchanged, then restores dst. */
        void copyAndCheck(CopyPath path, long dstOffset, long srcOffset, long size) {
            path.copy(dst, dstOffset, src, srcOffset, size);
            long bad = dst.asSlice(dstOffset, size).mismatch(src.asSlice(srcOffset, size));
            if (bad >= 0) {
                throw new AssertionError("byte " + bad + " of " + size + " wrong (dstOffset " + dstOffset
                        + ", srcOffset " + srcOffset + ", " + (dst.isNative() ? "native" : "heap") + ")");
            }
            long before = dst.asSlice(0, dstOffset).mismatch(image.asSlice(0, dstOffset));
            long afterStart = dstOffset + size;
            long after = dst.asSlice(afterStart).mismatch(image.asSlice(afterStart));
            if (before >= 0 || after >= 0) {
                throw new AssertionError("guard byte overwritten at " + (before >= 0 ? before : afterStart + after)
                        + " (copy of " + size + " at dstOffset " + dstOffset + ", srcOffset " + srcOffset + ")");
            }
            MemorySegment.copy(image, dstOffset, dst, dstOffset, size);
        }
    }

    // ---- argument checks -------------------------------------------------------------------------

    private static final CopyPath[] PUBLIC_PATHS = {
            Copy::temporal, Copy::nonTemporal, Copy::nativeTemporal, FALLBACK,
            (d, dOff, s, sOff, n) -> new Copy(1).copy(d, dOff, s, sOff, n, true),
            (d, dOff, s, sOff, n) -> new Copy(1).adaptive(d, dOff, s, sOff, n, 1L << 40),
    };

    /** The call throws an IAE whose message contains {@code word}, and dst is unchanged. */
    private static void rejects(String word, MemorySegment dst, long dOff, MemorySegment src, long sOff, long n) {
        for (CopyPath p : PUBLIC_PATHS) {
            byte[] before = dst.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.copy(dst, dOff, src, sOff, n));
            assertTrue(e.getMessage().contains(word), () -> "'" + e.getMessage() + "' should name " + word);
            assertEquals(-1, dst.mismatch(MemorySegment.ofArray(before)), "dst written before the IAE");
        }
    }

    @Test
    void overlapIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nat = arena.allocate(8192);
            MemorySegment heap = MemorySegment.ofArray(new byte[8192]);
            for (MemorySegment s : new MemorySegment[]{nat, heap}) {
                s.fill((byte) 9);
                rejects("overlap", s, 0, s, 10, 5000);
                rejects("overlap", s, 100, s, 0, 101);
                rejects("overlap", s, 0, s, 0, 1);
                // the same memory seen through two different segments
                rejects("overlap", s.asSlice(64), 0, s.asSlice(0, 4096), 100, 1000);
                // adjacent ranges do not overlap
                Copy.nonTemporal(s, 0, s, 4096, 4096);
                Copy.temporal(s, 4096, s, 0, 4096);
                Copy.nonTemporal(s, 0, s, 0, 0);
            }
        }
    }

    @Test
    void readOnlyDstIsRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(4096).asReadOnly();
            MemorySegment src = arena.allocate(4096);
            for (CopyPath p : PUBLIC_PATHS) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.copy(dst, 0, src, 0, 4096));
                assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            }
            // a read-only source is fine
            Copy.nonTemporal(arena.allocate(4096), 0, src.asReadOnly(), 0, 4096);
        }
    }

    @Test
    void badRangesAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dst = arena.allocate(1000);
            MemorySegment src = arena.allocate(1000);
            dst.fill((byte) 3);
            rejects("bytes", dst, 0, src, 0, -1);
            rejects("dstOffset", dst, -1, src, 0, 10);
            rejects("srcOffset", dst, 0, src, -8, 10);
            rejects("dst range", dst, 991, src, 0, 10);
            rejects("src range", dst, 0, src, 1, 1000);
            rejects("dst range", dst, Long.MAX_VALUE, src, 0, 10);
            rejects("dst range", dst, 0, src, 0, 1001);
            assertThrows(IllegalArgumentException.class, () -> Copy.nonTemporal(null, 0, src, 0, 1));
            assertThrows(IllegalArgumentException.class, () -> Copy.temporal(dst, 0, null, 0, 1));
            // ranges that end exactly at the end are fine
            Copy.nonTemporal(dst, 990, src, 0, 10);
            Copy.temporal(dst, 1000, src, 1000, 0);
        }
    }

    // ---- adaptive rule and status -----------------------------------------------------------------

    @Test
    void cacheCapacityFollowsYhccl() {
        assertEquals(32L << 20, Copy.cacheCapacity(32L << 20, 1L << 20, true, 8));
        assertEquals((32L << 20) + 8 * (1L << 20), Copy.cacheCapacity(32L << 20, 1L << 20, false, 8));
        // [YHCCL §5.2.1, §5.4] NodeA: 256 MB non-inclusive L3, 512 KB L2, 64 ranks -> 294912 KB
        assertEquals(294912L << 10, Copy.cacheCapacity(256L << 20, 512L << 10, false, 64));
        assertThrows(IllegalArgumentException.class, () -> Copy.cacheCapacity(-1, 0, true, 1));
        assertThrows(IllegalArgumentException.class, () -> Copy.cacheCapacity(1, -1, true, 1));
        assertThrows(IllegalArgumentException.class, () -> Copy.cacheCapacity(1, 1, false, 0));
    }

    @Test
    void useNonTemporalIffNotReusedAndWorkingSetExceedsCache() {
        Copy c = new Copy(1000);
        assertEquals(1000, c.cacheCapacity());
        assertTrue(c.useNonTemporal(1001, false));
        assertFalse(c.useNonTemporal(1000, false));
        assertFalse(c.useNonTemporal(1001, true));
        assertFalse(c.useNonTemporal(0, false));
        assertThrows(IllegalArgumentException.class, () -> c.useNonTemporal(-1, false));
        assertThrows(IllegalArgumentException.class, () -> new Copy(-1));
        assertTrue(new Copy(0).useNonTemporal(1, false));
        assertFalse(new Copy(0).useNonTemporal(0, false));
    }

    @Test
    void statusNamesThePath() {
        String status = Copy.nativeStatus();
        if (Copy.nativeAvailable()) {
            assertTrue(status.contains(Copy.ntIsa()) && status.contains("libcoll4j.so"), status);
            assertTrue(Copy.ntIsa().equals("avx512") || Copy.ntIsa().equals("avx2"), Copy.ntIsa());
        } else {
            assertEquals("none", Copy.ntIsa());
            assertTrue(status.contains("unavailable") && status.contains("MemorySegment.copy"), status);
        }
    }

    @Test
    void libraryIsLoadedOnLinuxX8664() {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").startsWith("Linux") && (arch.equals("amd64") || arch.equals("x86_64")));
        assumeTrue(NativeLibrary.class.getClassLoader().getResource(NativeLibrary.RESOURCE) != null,
                "libcoll4j.so was not built (no gcc?)");
        assertTrue(NativeLibrary.available(), () -> NativeLibrary.unavailableReason().orElse(""));
    }

    @Test
    void everyLoadFailureHasAReason() {
        ClassLoader loader = NativeLibrary.class.getClassLoader();
        assertEquals(new NativeLibrary.Unavailable("disabled by -Dcoll4j.native.disable=true"),
                NativeLibrary.load(true, "Linux", "amd64", loader, NativeLibrary.RESOURCE));
        assertTrue(reason(NativeLibrary.load(false, "Mac OS X", "aarch64", loader, NativeLibrary.RESOURCE)).contains("linux-x86_64 only"));
        assertTrue(reason(NativeLibrary.load(false, "Linux", "aarch64", loader, NativeLibrary.RESOURCE)).contains("aarch64"));
        assertTrue(reason(NativeLibrary.load(false, "Linux", "amd64", loader, "native/none/libnothing.so")).contains("not on the class path"));
    }

    /**
     * dlopen's error becomes the reason. The rejected library is the real one with its ELF
     * {@code e_machine} patched to AArch64: the loader refuses it from the header, before mapping
     * anything (a truncated file would be mapped and fault; a non-ELF file makes HotSpot warn about
     * the stack guard).
     */
    @Test
    void aLibraryDlopenRejectsHasAReason(@TempDir Path dir) throws IOException {
        URL real = NativeLibrary.class.getClassLoader().getResource(NativeLibrary.RESOURCE);
        assumeTrue(real != null, "libcoll4j.so was not built (no gcc?)");
        byte[] elf;
        try (InputStream in = real.openStream()) {
            elf = in.readAllBytes();
        }
        elf[18] = (byte) 183;   // e_machine = EM_AARCH64 (little endian u16 at offset 18)
        elf[19] = 0;
        Files.createDirectories(dir.resolve("native"));
        Files.write(dir.resolve("native/libforeign.so"), elf);
        try (URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, null)) {
            String r = reason(NativeLibrary.load(false, "Linux", "amd64", loader, "native/libforeign.so"));
            assertTrue(r.startsWith("cannot load"), r);
        }
    }

    private static String reason(NativeLibrary.Load load) {
        return switch (load) {
            case NativeLibrary.Unavailable(String r) -> r;
            case NativeLibrary.Loaded l -> throw new AssertionError("expected a failure, loaded " + l);
        };
    }
}
