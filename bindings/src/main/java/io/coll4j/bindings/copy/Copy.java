package io.coll4j.bindings.copy;

import java.lang.foreign.MemorySegment;

/**
 * The copy engine (DESIGN §6): temporal copies ({@link MemorySegment#copy}) and non-temporal copies
 * (native AVX-512 {@code _mm512_stream_si512} or AVX2 {@code _mm256_stream_si256} + {@code sfence}),
 * chosen by the YHCCL rule [YHCCL §4.2, Alg. 1]: non-temporal iff the copied data will not be re-read
 * soon AND the working set W of the collective exceeds the cache capacity C, where C is the LLC, or
 * LLC + p·L2 when the LLC is not inclusive (its lines are not duplicated in the L2s).
 *
 * <p>Never fails for want of the native library or of AVX2: every non-temporal copy then falls back to
 * {@link MemorySegment#copy}. Arguments are checked before anything is written: negative sizes or
 * offsets, ranges outside a segment, a read-only destination, and overlapping source and destination
 * (copies are memcpy, not memmove) are {@link IllegalArgumentException}s naming the argument.
 */
public final class Copy {
    /**
     * Below this many bytes a "non-temporal" copy is done with temporal stores: streaming stores of a
     * few cache lines buy nothing (the head/tail alignment work and the sfence dominate) and they would
     * evict data the next collective may want. 16 KiB: at and above it the NT path has no measurable
     * per-call overhead relative to MemorySegment.copy of the same bytes (collbench copy, this machine).
     */
    public static final long NT_MIN_BYTES = 16 * 1024;

    private static final int ISA = NativeLibrary.lookup().isPresent() ? NativeCopy.coll4j_nt_isa() : 0;

    private final long cacheCapacity;

    /** An engine for one team, deciding with cache capacity {@code cacheCapacity} (bytes). */
    public Copy(long cacheCapacity) {
        if (cacheCapacity < 0) {
            throw new IllegalArgumentException("cacheCapacity must be >= 0, got " + cacheCapacity);
        }
        this.cacheCapacity = cacheCapacity;
    }

    /** [YHCCL §4.2] C = LLC for an inclusive LLC, LLC + p·L2 otherwise. */
    public static long cacheCapacity(long llcBytes, long l2BytesPerCore, boolean llcInclusive, int ranks) {
        return llcInclusive ? llcBytes : llcBytes + (long) Math.max(ranks, 1) * l2BytesPerCore;
    }

    public long cacheCapacity() {
        return cacheCapacity;
    }

    /** [YHCCL Alg. 1] non-temporal iff the stored data is not re-read soon and W > C. */
    public boolean useNonTemporal(long workingSet, boolean reusedSoon) {
        return !reusedSoon && workingSet > cacheCapacity;
    }

    /** Copies with NT stores iff {@link #useNonTemporal useNonTemporal(workingSet, false)}: for data not re-read soon. */
    public void adaptive(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes, long workingSet) {
        copy(dst, dstOffset, src, srcOffset, bytes, useNonTemporal(workingSet, false));
    }

    /** Copies with NT stores or not, as decided once per collective by the caller. */
    public void copy(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes, boolean nonTemporal) {
        if (nonTemporal) {
            nonTemporal(dst, dstOffset, src, srcOffset, bytes);
        } else {
            temporal(dst, dstOffset, src, srcOffset, bytes);
        }
    }

    /** True when libcoll4j.so is loaded and the CPU has AVX2 or AVX-512. */
    public static boolean nativeAvailable() {
        return ISA > 0;
    }

    /** "avx512", "avx2" or "none". */
    public static String ntIsa() {
        return switch (ISA) {
            case 2 -> "avx512";
            case 1 -> "avx2";
            default -> "none";
        };
    }

    /** One line for {@code collbench topo}. */
    public static String nativeStatus() {
        if (NativeLibrary.lookup().isEmpty()) {
            return "unavailable (" + NativeLibrary.status() + "); copies use MemorySegment.copy";
        }
        return switch (ISA) {
            case 2 -> "avx512 (_mm512_stream_si512 + sfence) via libcoll4j.so";
            case 1 -> "avx2 (_mm256_stream_si256 + sfence) via libcoll4j.so";
            default -> "unavailable (the CPU has neither AVX2 nor AVX-512); copies use MemorySegment.copy";
        };
    }

    /** Temporal copy: {@link MemorySegment#copy} (fast at every size). */
    public static void temporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
    }

    /** Non-temporal copy (native streaming stores); temporal below {@link #NT_MIN_BYTES} or without the library. */
    public static void nonTemporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        if (ISA > 0 && bytes >= NT_MIN_BYTES) {
            NativeCopy.coll4j_nt_copy(dst.asSlice(dstOffset, bytes), src.asSlice(srcOffset, bytes), bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    /** Non-temporal at every size (no threshold): for tests and {@code collbench copy}. Temporal without the library. */
    public static void nonTemporalAlways(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        if (ISA > 0) {
            NativeCopy.coll4j_nt_copy(dst.asSlice(dstOffset, bytes), src.asSlice(srcOffset, bytes), bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    /** Native temporal copy: the NT loop with ordinary stores (glibc memcpy streams at large sizes, so it is no temporal baseline); {@link MemorySegment#copy} without the library. */
    public static void nativeTemporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        if (NativeLibrary.lookup().isPresent()) {
            NativeCopy.coll4j_copy(dst.asSlice(dstOffset, bytes), src.asSlice(srcOffset, bytes), bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    private static void check(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        if (dst == null || src == null) {
            throw new IllegalArgumentException((dst == null ? "dst" : "src") + " must not be null");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        if (dstOffset < 0 || dstOffset > dst.byteSize() - bytes) {
            throw new IllegalArgumentException("dst range [" + dstOffset + ", +" + bytes + ") is outside its " + dst.byteSize() + " bytes");
        }
        if (srcOffset < 0 || srcOffset > src.byteSize() - bytes) {
            throw new IllegalArgumentException("src range [" + srcOffset + ", +" + bytes + ") is outside its " + src.byteSize() + " bytes");
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        if (bytes > 0 && overlap(dst, dstOffset, src, srcOffset, bytes)) {
            throw new IllegalArgumentException("src and dst overlap: Copy is memcpy, not memmove");
        }
    }

    private static boolean overlap(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        if (dst.isNative() != src.isNative()) {
            return false;
        }
        if (!dst.isNative() && dst.heapBase().orElse(null) != src.heapBase().orElse(null)) {
            return false;
        }
        long d = dst.address() + dstOffset;
        long s = src.address() + srcOffset;
        return d < s + bytes && s < d + bytes;
    }
}
