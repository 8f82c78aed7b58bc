package io.coll4j.jmh;

import io.coll4j.bindings.copy.Copy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One copy of {@code bytes} bytes per operation, by each copy implementation [YHCCL §4.1, Table 4]:
 * <ul>
 *   <li>{@code temporal}: the C temporal copy of libcoll4j.so (AVX loads, ordinary aligned stores),
 *       {@link Copy#nativeTemporal};</li>
 *   <li>{@code nontemporal}: the C non-temporal copy ({@code _mm512_stream_si512} /
 *       {@code _mm256_stream_si256} + sfence), {@link Copy#nonTemporal} — the same loop, only the store
 *       differs;</li>
 *   <li>{@code segment}: {@link MemorySegment#copy} between native segments;</li>
 *   <li>{@code arraycopy}: {@link System#arraycopy} between {@code byte[]}.</li>
 * </ul>
 * With the default {@code footprint=0} every operation copies the same source to the same destination
 * (at 256K both stay in cache, at 256M neither does). With {@code footprint=SIZE} the source and
 * destination are SIZE-byte rings and each operation copies the next {@code bytes}-byte slice, as a
 * pipelined collective copies slice after slice of a large message: every slice is cold. That is how
 * {@link Copy#DEFAULT_NT_MIN_BYTES} was measured.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class CopyBench {

    @Param({"temporal", "nontemporal", "segment", "arraycopy"})
    public String impl;

    /** Bytes per copy: K/M/G suffixes (powers of 1024). */
    @Param({"256K", "4M", "256M"})
    public String bytes;

    /** Size of the source and destination rings the slices walk through; 0: one buffer of {@code bytes}. */
    @Param({"0"})
    public String footprint;

    private static final int TEMPORAL = 0;
    private static final int NONTEMPORAL = 1;
    private static final int SEGMENT = 2;
    private static final int ARRAYCOPY = 3;

    private int kind;
    private long n;
    private long ring;
    private long position;
    private Arena arena;
    private MemorySegment src;
    private MemorySegment dst;
    private byte[] srcArray;
    private byte[] dstArray;

    @Setup(Level.Trial)
    public void allocate() {
        kind = switch (impl) {
            case "temporal" -> TEMPORAL;
            case "nontemporal" -> NONTEMPORAL;
            case "segment" -> SEGMENT;
            case "arraycopy" -> ARRAYCOPY;
            default -> throw new IllegalArgumentException("impl must be temporal, nontemporal, segment or arraycopy, got " + impl);
        };
        n = parseSize(bytes);
        long f = parseSize(footprint);
        ring = f == 0 ? n : f - f % Math.max(n, 1);
        if (ring < n || n == 0) {
            throw new IllegalArgumentException("need 0 < bytes <= footprint, got bytes " + bytes + ", footprint " + footprint);
        }
        if (kind == ARRAYCOPY) {
            if (ring > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("arraycopy: a byte[] holds < 2 GiB, footprint is " + ring);
            }
            srcArray = new byte[(int) ring];   // zeroed, i.e. touched, by this thread
            dstArray = new byte[(int) ring];
            java.util.Arrays.fill(srcArray, (byte) 1);
        } else {
            arena = Arena.ofShared();
            src = arena.allocate(ring, 64);
            dst = arena.allocate(ring, 64);
            src.fill((byte) 1);   // touch every page from this thread before measuring
            dst.fill((byte) 2);
        }
        position = 0;
    }

    @TearDown(Level.Trial)
    public void free() {
        if (arena != null) {
            arena.close();
        }
        srcArray = null;
        dstArray = null;
    }

    @Benchmark
    public void copy() {
        long off = position;
        switch (kind) {
            case TEMPORAL -> Copy.nativeTemporal(dst, off, src, off, n);
            case NONTEMPORAL -> Copy.nonTemporal(dst, off, src, off, n);
            case SEGMENT -> MemorySegment.copy(src, off, dst, off, n);
            default -> System.arraycopy(srcArray, (int) off, dstArray, (int) off, (int) n);
        }
        long next = off + n;
        position = next + n > ring ? 0 : next;
    }

    static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long mult = switch (t.isEmpty() ? ' ' : t.charAt(t.length() - 1)) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        return Long.parseLong(mult == 1 ? t : t.substring(0, t.length() - 1)) * mult;
    }
}
