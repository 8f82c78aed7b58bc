package io.coll4j.bindings.copy;

import java.lang.foreign.MemorySegment;

/**
 * The copy engine: temporal copies ({@link MemorySegment#copy}) and non-temporal copies (native
 * {@code _mm512_stream_si512} / {@code _mm256_stream_si256} + {@code sfence}, from libcoll4j.so), and
 * the adaptive choice between them of [YHCCL §4, Alg. 1].
 *
 * <h2>When to stream</h2>
 * A temporal store to a line that is not cached first reads it (Read-For-Ownership), then writes
 * the dirty line back when it is evicted: 3 bytes of memory traffic per byte copied. A non-temporal
 * store writes the line straight to memory: 2 bytes. It pays off when the destination would not
 * have stayed in cache anyway and is not read again soon; when it will be re-read soon (the
 * copy-in of a reduction) or the whole working set fits in cache, caching it is the faster choice
 * [YHCCL §4.1]. The rule [YHCCL §4.2, Alg. 1]: stream iff the data is not reused soon and the
 * algorithm's working set W (send + receive + shared buffers) exceeds the available cache C, where
 * C is the LLC, or LLC + p·L2 when the LLC is not inclusive of the L2s (data in an L2 is then not
 * also in the LLC) — see {@link #cacheCapacity}. (The paper's listing of Alg. 1 has the two branches
 * swapped; its text, §4.2 and §5.4, states the rule used here.)
 *
 * <p>An algorithm decides once per collective ({@link #useNonTemporal}) and passes the decision to
 * {@link #copy} for every slice.
 *
 * <h2>Arguments (every method)</h2>
 * Validated before anything is written; each failure is an {@link IllegalArgumentException} naming
 * the argument: a null segment, negative {@code bytes} or offset, a range outside its segment, a
 * read-only {@code dst}, and <b>overlapping source and destination ranges</b> (detected with
 * {@link MemorySegment#asOverlappingSlice}, for heap and native segments alike). Overlap is refused
 * rather than handled as memmove does because no collective needs it — a slice is always copied
 * between distinct buffers — and because the non-temporal path copies forward in 256-byte bursts,
 * so an overlapping copy would silently corrupt data on one path and not the other.
 * Confined segments must be used from their owner thread, as for {@code MemorySegment.copy}.
 *
 * <h2>Memory effects</h2>
 * Both paths leave the bytes visible to the calling thread on return. The non-temporal path ends
 * with {@code sfence}, so its weakly-ordered streaming stores are ordered before every later store
 * of the calling thread: a release store (e.g. a flag's {@code setRelease}) after the copy publishes
 * the copied bytes to a thread that reads the flag with acquire semantics, on either path.
 *
 * <h2>Fallback</h2>
 * Without libcoll4j.so (not Linux x86-64, not built, {@code -Dcoll4j.native.disable=true}) or on a
 * CPU with neither AVX-512F nor AVX2, {@link #nonTemporal} is a temporal copy; it never fails for
 * that reason. {@link #nativeStatus()} says which case applies.
 */
public final class Copy {

    /**
     * Copies shorter than this many bytes are made temporal even when a non-temporal copy is
     * asked for, unless {@code -Dcoll4j.copy.ntMinBytes=N} sets another value.
     *
     * <p>Why a floor: a streaming copy of a few hundred bytes gains nothing — it touches a handful
     * of lines, half of them partial (copied temporally anyway), and its closing {@code sfence}
     * waits for the write-combining buffers to drain, while a temporal copy of that size is one
     * {@code MemorySegment.copy} intrinsic with no downcall at all.
     *
     * <p>How it was measured: slices of {@code bytes} copied one after another through a 256 MiB
     * source and destination (so every store misses the cache, the case where streaming is asked
     * for): {@code ./build bench CopyBench -p impl=nontemporal,segment -p footprint=256M
     * -p bytes=256,512,1K,2K,4K,8K,16K -jvmArgsAppend -Dcoll4j.copy.ntMinBytes=0} (the numbers: docs/measurements.md).
     * Streaming stopped losing between 2 and 4 KiB, where the fixed cost (the
     * downcall, the partial head and tail lines, the sfence drain, about 0.2 µs) is repaid by the
     * saved RFO reads; the floor is the first measured size at which it was not slower. Above it the
     * caller's decision stands; below it the copy is temporal, which at worst leaves a few lines in
     * cache that a streaming copy would not have.
     */
    public static final long DEFAULT_NT_MIN_BYTES = 4096;

    /** The floor in force: {@link #DEFAULT_NT_MIN_BYTES} or {@code -Dcoll4j.copy.ntMinBytes}. */
    public static final long NT_MIN_BYTES = Long.getLong("coll4j.copy.ntMinBytes", DEFAULT_NT_MIN_BYTES);

    private static final boolean LIBRARY = NativeLibrary.available();
    private static final int NT_ISA = LIBRARY ? NativeCopy.coll4j_nt_isa() : NativeCopy.ISA_NONE;
    private static final boolean NT = NT_ISA != NativeCopy.ISA_NONE;

    static {
        if (LIBRARY && !NT) {   // without the library NativeLibrary has said so already
            io.coll4j.topology.Fallbacks.note("nt copy", "the CPU has neither AVX-512F nor AVX2: non-temporal copies use MemorySegment.copy");
        }
    }

    private final long cacheCapacity;

    /**
     * A copy engine for one team, with the cache capacity C its adaptive decisions compare the
     * working set against (see {@link #cacheCapacity(long, long, boolean, int)}).
     *
     * A capacity of 0 (a machine whose cache sizes are unknown, e.g. a synthetic topology without
     * cache attributes) streams every copy that is not reused soon.
     *
     * @throws IllegalArgumentException if {@code cacheCapacity < 0}
     */
    public Copy(long cacheCapacity) {
        if (cacheCapacity < 0) {
            throw new IllegalArgumentException("cacheCapacity must be >= 0, got " + cacheCapacity);
        }
        this.cacheCapacity = cacheCapacity;
    }

    /** C, in bytes. */
    public long cacheCapacity() {
        return cacheCapacity;
    }

    /**
     * [YHCCL §4.2, Alg. 1]: stream iff the copied data is not re-read soon and the working set
     * exceeds the cache, {@code !reusedSoon && workingSet > C}.
     *
     * @param workingSet bytes the algorithm touches (send + receive + shared buffers), W
     * @param reusedSoon whether the destination is read again soon (e.g. a copy-in before a reduction)
     * @throws IllegalArgumentException if {@code workingSet < 0}
     */
    public boolean useNonTemporal(long workingSet, boolean reusedSoon) {
        if (workingSet < 0) {
            throw new IllegalArgumentException("workingSet must be >= 0, got " + workingSet);
        }
        return !reusedSoon && workingSet > cacheCapacity;
    }

    /**
     * The adaptive copy for data that is not re-read soon (a copy-out to a receive buffer): non-temporal
     * iff {@code workingSet > C}, else temporal. Equivalent to
     * {@code copy(…, useNonTemporal(workingSet, false))}.
     */
    public void adaptive(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes,
                         long workingSet) {
        copy(dst, dstOffset, src, srcOffset, bytes, useNonTemporal(workingSet, false));
    }

    /** {@link #nonTemporal} when {@code nonTemporal}, else {@link #temporal}. */
    public void copy(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes,
                     boolean nonTemporal) {
        if (nonTemporal) {
            nonTemporal(dst, dstOffset, src, srcOffset, bytes);
        } else {
            temporal(dst, dstOffset, src, srcOffset, bytes);
        }
    }

    /**
     * [YHCCL §4.2] available cache capacity C: the LLC when it is inclusive, otherwise LLC + p·L2
     * (a non-inclusive LLC, e.g. AMD Zen's victim L3 or Intel since Skylake-SP, does not duplicate
     * the private L2s, so p ranks' L2s add to it).
     *
     * @param llcBytes       size of the last-level cache the team shares
     * @param l2BytesPerCore size of one core's L2
     * @param llcInclusive   whether the LLC includes the L2s
     * @param ranks          number of ranks p (one per core)
     * @throws IllegalArgumentException for a negative size or {@code ranks < 1}
     */
    public static long cacheCapacity(long llcBytes, long l2BytesPerCore, boolean llcInclusive, int ranks) {
        if (llcBytes < 0) {
            throw new IllegalArgumentException("llcBytes must be >= 0, got " + llcBytes);
        }
        if (l2BytesPerCore < 0) {
            throw new IllegalArgumentException("l2BytesPerCore must be >= 0, got " + l2BytesPerCore);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
        }
        return llcInclusive ? llcBytes : Math.addExact(llcBytes, Math.multiplyExact(l2BytesPerCore, (long) ranks));
    }

    /** True when {@link #nonTemporal} really streams: libcoll4j.so is loaded and the CPU has AVX-512F or AVX2. */
    public static boolean nativeAvailable() {
        return NT;
    }

    /** The active non-temporal path: {@code "avx512"}, {@code "avx2"} or {@code "none"}. */
    public static String ntIsa() {
        return switch (NT_ISA) {
            case NativeCopy.ISA_AVX512 -> "avx512";
            case NativeCopy.ISA_AVX2 -> "avx2";
            default -> "none";
        };
    }

    /**
     * One line for {@code collbench topo} and {@code collbench copy} (which print it after
     * {@code "nt copy: "}), e.g. {@code "avx512 (_mm512_stream_si512 + sfence) via libcoll4j.so"} or
     * {@code "unavailable (libcoll4j.so: <reason>); copies use MemorySegment.copy"}.
     */
    public static String nativeStatus() {
        return switch (NT_ISA) {
            case NativeCopy.ISA_AVX512 -> "avx512 (_mm512_stream_si512 + sfence) via libcoll4j.so";
            case NativeCopy.ISA_AVX2 -> "avx2 (_mm256_stream_si256 + sfence) via libcoll4j.so";
            default -> LIBRARY
                    ? "unavailable (the CPU has neither AVX-512F nor AVX2); copies use MemorySegment.copy"
                    : "unavailable (libcoll4j.so: " + NativeLibrary.status() + "); copies use MemorySegment.copy";
        };
    }

    /**
     * Temporal copy of {@code bytes} bytes: {@link MemorySegment#copy}, which the JIT turns into the
     * fastest cached copy at every size (no downcall). Arguments as in the class javadoc.
     */
    public static void temporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
    }

    /**
     * Non-temporal copy of {@code bytes} bytes with the streaming stores of the active ISA, ending
     * with {@code sfence} (see the class javadoc for the memory effects). Temporal instead when the
     * native path is unavailable or {@code bytes < }{@link #NT_MIN_BYTES}. Heap and native segments,
     * any alignment. Never fails for lack of native support.
     */
    public static void nonTemporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        nonTemporal(NT, NT_MIN_BYTES, dst, dstOffset, src, srcOffset, bytes);
    }

    /**
     * The C temporal copy of libcoll4j.so: the same loop as the non-temporal one with ordinary
     * aligned vector stores, so that the two differ only in the store instruction. It is the
     * baseline of {@code collbench copy --impl temporal} and the JMH copy benchmark; collectives
     * use {@link #temporal}. {@link MemorySegment#copy} when the library is not loaded.
     */
    public static void nativeTemporal(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        if (LIBRARY) {
            NativeCopy.tCopy(dst, dstOffset, src, srcOffset, bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    /** {@link #nonTemporal} with the native switch and the floor as parameters: tests reach both paths. */
    static void nonTemporal(boolean useNative, long minBytes, MemorySegment dst, long dstOffset,
                            MemorySegment src, long srcOffset, long bytes) {
        check(dst, dstOffset, src, srcOffset, bytes);
        if (useNative && bytes >= minBytes) {
            NativeCopy.ntCopy(dst, dstOffset, src, srcOffset, bytes);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    /** The checks of the class javadoc; throws before anything is written. */
    static void check(MemorySegment dst, long dstOffset, MemorySegment src, long srcOffset, long bytes) {
        if (dst == null) {
            throw new IllegalArgumentException("dst must not be null");
        }
        if (src == null) {
            throw new IllegalArgumentException("src must not be null");
        }
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
        }
        checkRange("dst", dst, dstOffset, bytes);
        checkRange("src", src, srcOffset, bytes);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("dst is read-only");
        }
        if (bytes > 0 && dst.asSlice(dstOffset, bytes).asOverlappingSlice(src.asSlice(srcOffset, bytes)).isPresent()) {
            throw new IllegalArgumentException("src and dst overlap (" + bytes + " bytes at dstOffset " + dstOffset
                    + ", srcOffset " + srcOffset + "): overlapping copies are not supported");
        }
    }

    private static void checkRange(String name, MemorySegment segment, long offset, long bytes) {
        if (offset < 0) {
            throw new IllegalArgumentException(name + "Offset must be >= 0, got " + offset);
        }
        if (offset > segment.byteSize() - bytes) {
            throw new IllegalArgumentException(name + " range [" + offset + ", " + offset + " + " + bytes
                    + ") is outside " + name + " (" + segment.byteSize() + " bytes)");
        }
    }
}
