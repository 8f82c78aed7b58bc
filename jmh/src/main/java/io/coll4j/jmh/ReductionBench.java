package io.coll4j.jmh;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Array;
import java.util.SplittableRandom;
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
import io.coll4j.reductions.DType;
import io.coll4j.reductions.internal.HeapArrayFold;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.internal.Reducers;

/**
 * {@code dst = a op b} over {@code bytes} bytes per operand (issue 5): the Vector API reducer against
 * the scalar segment loop, the plain Java array loop C2 auto-vectorises, and the native C kernel.
 *
 * <ul>
 *   <li>{@code vector}: {@link Reducers#vector}, native segments (64-byte aligned).</li>
 *   <li>{@code scalar}: {@link Reducers#scalar}, the same segments: one plain loop per (dtype, op).</li>
 *   <li>{@code array}: {@code d[i] = a[i] op b[i]} over {@code double[]}/{@code float[]}/{@code long[]}/{@code int[]}.</li>
 *   <li>{@code heap}: {@link HeapArrayFold#reduce} on heap segments over such arrays — what the collectives
 *       run for {@code rank.allreduce(float[] …)}: Vector API loads from the backing arrays.</li>
 *   <li>{@code native}: {@code NativeReduce.reduce}, the C kernel of {@code bindings} (gcc -O3, AVX-512 or
 *       AVX2 chosen by CPU check), through a critical downcall, on the same segments.</li>
 * </ul>
 * {@code op} is limited to SUM, PROD, MIN, MAX: every op F64 has, and valid for every dtype listed (AVG folds
 * as SUM; the bitwise ops run at SUM's speed). F16/BF16 fold in f32 with a rounding per step; U32/U64 differ
 * from I32/I64 only in MIN/MAX. {@code native} has no kernel for the four newer dtypes, and {@code array}
 * has loops for F16 SUM/PROD only among them: those combinations fail at setup, by name.
 * Sizes: 4 KiB (L1), 256 KiB (L2), 4 MiB (L3), 64 MiB (DRAM) per operand. Inputs are near 1 so PROD
 * never reaches subnormals, whose slow path would measure the FPU instead of the kernel.
 *
 * <p>Goals (issue 5): vector ≥ 1.3x scalar at 4 KiB and 256 KiB; vector within 10% of native everywhere.
 * One op per fork; the benchmark returns nothing, the stores to {@code dst} are its side effect.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class ReductionBench {

    @Param({"F32", "F64", "I32", "I64", "F16", "BF16", "U32", "U64"})
    public DType dtype;

    @Param({"SUM", "PROD", "MIN", "MAX"})
    public Op op;

    @Param({"4096", "262144", "4194304", "67108864"})
    public int bytes;

    @Param({"vector", "scalar", "array", "heap", "native"})
    public String impl;

    private Arena arena;
    private Runnable kernel;

    @Setup(Level.Trial)
    public void setUp() {
        long count = bytes / dtype.size();
        SplittableRandom rnd = new SplittableRandom(7);
        switch (impl) {
            case "vector", "scalar", "native" -> {
                arena = Arena.ofShared();
                MemorySegment d = arena.allocate(bytes, 64);
                MemorySegment a = arena.allocate(bytes, 64);
                MemorySegment b = arena.allocate(bytes, 64);
                fill(a, count, rnd);
                fill(b, count, rnd);
                if (impl.equals("native")) {
                    if (!NativeReduce.available()) {
                        throw new IllegalStateException("impl native: libcoll4j.so is not loaded (" + NativeLibrary.status() + ")");
                    }
                    if (dtype.ordinal() > DType.I64.ordinal()) {
                        throw new IllegalArgumentException("impl native: the C kernel has no " + dtype.cliName());
                    }
                    int t = dtype.ordinal();
                    int o = op.ordinal();
                    kernel = () -> NativeReduce.reduce(t, o, d, a, b, count);
                } else {
                    Reducer r = impl.equals("vector") ? Reducers.vector(dtype, op) : Reducers.scalar(dtype, op);
                    kernel = () -> r.reduce(d, 0, a, 0, b, 0, count);
                }
            }
            case "heap" -> {
                Object[] arrays = new Object[3];
                for (int i = 0; i < 3; i++) {
                    arrays[i] = Array.newInstance(dtype.javaType(), (int) count);
                }
                MemorySegment d = segmentOf(arrays[0]);
                MemorySegment a = segmentOf(arrays[1]);
                MemorySegment b = segmentOf(arrays[2]);
                fill(a, count, rnd);
                fill(b, count, rnd);
                if (!HeapArrayFold.reduce(dtype, op, d, 0, a, 0, b, 0, count)) {
                    throw new IllegalArgumentException("impl heap: no array fold for " + dtype.cliName() + " " + op.cliName());
                }
                kernel = () -> HeapArrayFold.reduce(dtype, op, d, 0, a, 0, b, 0, count);
            }
            case "array" -> {
                Object d = Array.newInstance(dtype.javaType(), (int) count);
                Object a = Array.newInstance(dtype.javaType(), (int) count);
                Object b = Array.newInstance(dtype.javaType(), (int) count);
                fill(segmentOf(a), count, rnd);
                fill(segmentOf(b), count, rnd);
                kernel = ArrayReductions.loop(dtype, op, d, a, b);
            }
            default -> throw new IllegalArgumentException("impl must be vector, scalar, array, heap or native: " + impl);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (arena != null) {
            arena.close();
        }
    }

    @Benchmark
    public void reduce() {
        kernel.run();
    }

    private static MemorySegment segmentOf(Object array) {
        return switch (array) {
            case double[] x -> MemorySegment.ofArray(x);
            case float[] x -> MemorySegment.ofArray(x);
            case long[] x -> MemorySegment.ofArray(x);
            case int[] x -> MemorySegment.ofArray(x);
            case short[] x -> MemorySegment.ofArray(x);
            default -> throw new IllegalArgumentException("not a primitive array of a dtype: " + array);
        };
    }

    /** Values near 1 (floats in [0.5, 2), integers odd and small-ish): no NaN, no subnormal products. */
    private void fill(MemorySegment s, long count, SplittableRandom rnd) {
        for (long i = 0; i < count; i++) {
            switch (dtype) {
                case F64 -> s.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, rnd.nextDouble(0.5, 2.0));
                case F32 -> s.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) rnd.nextDouble(0.5, 2.0));
                case I64 -> s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong() | 1);
                case I32, U32 -> s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, rnd.nextInt() | 1);
                case U64 -> s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong() | 1);
                case F16 -> s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16((float) rnd.nextDouble(0.5, 2.0)));
                case BF16 -> s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i,
                        (short) (Float.floatToRawIntBits((float) rnd.nextDouble(0.5, 2.0)) >>> 16));
                default -> throw new IllegalArgumentException("ReductionBench has no inputs for " + dtype);
            }
        }
    }
}
