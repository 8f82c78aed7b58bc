package io.coll4j.jmh;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

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

import io.coll4j.bindings.copy.NativeLibrary;
import io.coll4j.bindings.copy.NativeReduce;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.internal.Reducers;

/**
 * The one-pass k-ary reduction (HMPI's tiled-reduce fold [HMPI §2.4], fewer bytes moved [YHCCL §2.1]): {@code dst = s0 + s1 + … + s(k-1)} over
 * F64, 64 MiB per source (far beyond any cache), as one k-ary pass ({@code kary}:
 * {@link Reducer#reduceMany}, k reads and one write per element) against k − 1 chained pairwise passes
 * ({@code pairwise}: {@code dst = s0 + s1}, then {@code dst += s2}, …: 3(k − 1) streams). With k = 4 that
 * is 5 streams against 9, so the goal (issue 5) is kary ≥ 1.5x pairwise. Both use the vector reducer.
 * {@code native} is the C one-pass kernel ({@code NativeReduce.reduceManySumF64}) for comparison, and
 * {@code stream} the same one pass through the streaming fold ({@link StreamingFold}: folded 1 KiB at a
 * time in L1, written with non-temporal stores), as the collectives fold beyond the cache: the write of
 * dst then costs no read for ownership, k + 1 streams instead of k + 2.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class ReduceManyBench {

    /** Bytes per source: 64 MiB. */
    private static final long BYTES = 64L << 20;

    @Param({"2", "4", "8"})
    public int k;

    @Param({"kary", "pairwise", "native", "stream"})
    public String impl;

    private Arena arena;
    private MemorySegment dst;
    private MemorySegment[] srcs;
    private long[] offsets;
    private long count;
    private Reducer reducer;
    private StreamingFold fold;

    @Setup(Level.Trial)
    public void setUp() {
        if (!impl.equals("kary") && !impl.equals("pairwise") && !impl.equals("native") && !impl.equals("stream")) {
            throw new IllegalArgumentException("impl must be kary, pairwise, native or stream: " + impl);
        }
        if (impl.equals("native") && !NativeReduce.available()) {
            throw new IllegalStateException("impl native: libcoll4j.so is not loaded (" + NativeLibrary.status() + ")");
        }
        if (impl.equals("stream") && !StreamingFold.available()) {
            throw new IllegalStateException("impl stream: no streaming fold on this machine (" + NativeLibrary.status() + ")");
        }
        arena = Arena.ofShared();
        count = BYTES / Double.BYTES;
        dst = arena.allocate(BYTES, 64);
        srcs = new MemorySegment[k];
        offsets = new long[k];
        for (int j = 0; j < k; j++) {
            srcs[j] = arena.allocate(BYTES, 64);
            for (long i = 0; i < count; i++) {
                srcs[j].setAtIndex(ValueLayout.JAVA_DOUBLE, i, j + i * 1e-9);
            }
        }
        reducer = Reducers.vector(DType.F64, Op.SUM);
        fold = new StreamingFold(1, k);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public void reduce() {
        if (impl.equals("kary")) {
            reducer.reduceMany(dst, 0, srcs, offsets, k, count);
        } else if (impl.equals("native")) {
            NativeReduce.reduceManySumF64(dst, srcs, k, count);
        } else if (impl.equals("stream")) {
            fold.destination(dst, 0);
            for (int j = 0; j < k; j++) {
                fold.source(srcs[j], 0);
            }
            fold.run(io.coll4j.bindings.copy.NativeType.F64, io.coll4j.bindings.copy.NativeOp.SUM, count);
        } else {
            reducer.reduce(dst, 0, srcs[0], 0, srcs[1], 0, count);
            for (int j = 2; j < k; j++) {
                reducer.reduceInto(dst, 0, srcs[j], 0, count);
            }
        }
    }
}
