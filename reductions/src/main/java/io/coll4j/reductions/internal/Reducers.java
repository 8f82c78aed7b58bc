package io.coll4j.reductions.internal;

import io.coll4j.reductions.Averages;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Where {@link Reducer}s come from. Every reducer is created once per (dtype, op) and cached, so
 * {@code Reducers.of(dtype, op)} may be called per collective without cost beyond an array read.
 *
 * <p>{@link #of} gives the Vector API implementation when it can run here, else the scalar one. The
 * vector implementation is used when the {@code jdk.incubator.vector} module is in the boot layer
 * ({@code --add-modules jdk.incubator.vector}), C2 is enabled, the CPU's vectors are at least 128 bits
 * wide and {@value #DISABLE_PROPERTY} is not {@code true}. Otherwise {@link #of} prints one line on
 * stderr, once per process, naming the reason, and returns the scalar reducers. As in Lucene's
 * {@code VectorizationProvider}, the vector classes are loaded by name only after those checks, so
 * this class and the scalar path work on a JVM without the module.
 *
 * <p>Both implementations give bitwise identical results (the NaN-payload caveat is on {@link Op}),
 * so switching between them never changes an answer.
 *
 * <p>Performance note: a vector reducer runs SIMD loops when every operand is a native segment (a
 * team's shared arena, {@code Arena.allocate}); a call with any heap operand ({@code MemorySegment.ofArray})
 * runs the scalar loops, 1.5–5x slower. On JDK 25 the Vector API cannot load from most heap segments
 * as SIMD, and code that sees both kinds loses its SIMD compilation — see {@code VectorReducer}.
 */
public final class Reducers {

    /** System property forcing the vector size: {@code 128}, {@code 256} or {@code 512} (at most the CPU's). */
    public static final String BITS_PROPERTY = "coll4j.vector.bits";

    /** System property that, when {@code true}, makes {@link #of} use the scalar reducers. */
    public static final String DISABLE_PROPERTY = "coll4j.vector.disable";

    private static final String VECTOR_MODULE = "jdk.incubator.vector";
    private static final String VECTOR_FAMILY = "io.coll4j.reductions.internal.VectorReducers";
    private static final int OPS = Op.values().length;

    private static final Reducer[] SCALAR = scalarReducers();
    private static final AtomicReferenceArray<Reducer> VECTOR = new AtomicReferenceArray<>(DType.values().length * OPS);
    private static final AtomicReferenceArray<ArrayPass> ARRAY_PASS = new AtomicReferenceArray<>(DType.values().length * OPS);
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /** Resolved on first use, so merely loading {@code Reducers} decides nothing. */
    private static final class Vectorization {
        static final ReducerFactory FACTORY;
        static final String REASON;

        static {
            ReducerFactory factory = null;
            String reason;
            try {
                factory = lookup();
                reason = null;
            } catch (UnsupportedOperationException e) {
                reason = e.getMessage();
            }
            FACTORY = factory;
            REASON = reason;
        }
    }

    private Reducers() {
    }

    /**
     * The reducer for (dtype, op): vector when available (see the class comment), else scalar. For
     * {@link Op#AVG} it is the SUM reducer (its {@code op()} says SUM): AVG folds as SUM and divides once at
     * the end ({@link Averages}). Pair types (MINLOC/MAXLOC) always get the scalar loops.
     *
     * @throws IllegalArgumentException when an argument is null or {@code op} is bitwise and
     *         {@code dtype} floating (naming both)
     */
    public static Reducer of(DType dtype, Op op) {
        checkPair(dtype, op);
        op = op.foldOp();
        if (Vectorization.FACTORY != null) {
            return vectorReducer(dtype, op);
        }
        if (WARNED.compareAndSet(false, true)) {
            // the io.coll4j logger, as io.coll4j.topology.Fallbacks logs the other fallbacks (no dependency on it here)
            System.getLogger("io.coll4j").log(System.Logger.Level.WARNING,
                    "coll4j: reductions use the scalar implementation: " + Vectorization.REASON);
        }
        return SCALAR[index(dtype, op)];
    }

    /** The scalar reference reducer for (dtype, op): plain loops, always available. */
    public static Reducer scalar(DType dtype, Op op) {
        checkPair(dtype, op);
        op = op.foldOp();
        return SCALAR[index(dtype, op)];
    }

    /**
     * The Vector API reducer for (dtype, op).
     *
     * @throws IllegalStateException naming the reason when the vector implementation cannot run here
     */
    public static Reducer vector(DType dtype, Op op) {
        checkPair(dtype, op);
        op = op.foldOp();
        if (Vectorization.FACTORY == null) {
            throw new IllegalStateException("vector reductions are not available: " + Vectorization.REASON);
        }
        return vectorReducer(dtype, op);
    }

    /**
     * What {@link #of} returns, in one line: {@code vector (Vector API, 512-bit species)} or
     * {@code scalar (<reason>)}.
     */
    public static String implementation() {
        return Vectorization.FACTORY != null ? Vectorization.FACTORY.describe() : "scalar (" + Vectorization.REASON + ")";
    }

    /** The vector family, or empty with {@link #implementation()} giving the reason. */
    static Optional<ReducerFactory> vectorFactory() {
        return Optional.ofNullable(Vectorization.FACTORY);
    }

    private static Reducer vectorReducer(DType dtype, Op op) {
        int i = index(dtype, op);
        Reducer r = VECTOR.get(i);   // the per-call path: one array read, nothing allocated
        return r != null ? r : keepFirst(VECTOR, i, Vectorization.FACTORY.create(dtype, op));
    }

    /**
     * The vector pass over Java arrays for (dtype, op) ({@link HeapArrayFold}), or null when the vector
     * family cannot run here or the dtype has no lanes. {@code op} must be its own fold op (not AVG, not USER).
     */
    static ArrayPass arrayPass(DType dtype, Op op) {
        if (Vectorization.FACTORY == null || dtype.isHalf() || dtype.isPair() || !ownKernel(dtype, op)) {
            return null;
        }
        int i = index(dtype, op);
        ArrayPass a = ARRAY_PASS.get(i);
        return a != null ? a : keepFirst(ARRAY_PASS, i, Vectorization.FACTORY.arrayPass(dtype, op));
    }

    /** Stores {@code created} at {@code i} unless a racing thread stored one first (both hidden classes are correct); returns the one kept. */
    private static <T> T keepFirst(AtomicReferenceArray<T> cache, int i, T created) {
        T witness = cache.compareAndExchange(i, null, created);
        return witness != null ? witness : created;
    }

    private static void checkPair(DType dtype, Op op) {
        if (dtype == null) {
            throw new IllegalArgumentException("dtype is null");
        }
        if (op == null) {
            throw new IllegalArgumentException("op is null");
        }
        op.checkSupports(dtype);
        if (op == Op.USER) {
            throw new IllegalArgumentException("op user has no built-in reducer (a UserOp brings its own: UserOp.reducer())");
        }
    }

    /** True when (dtype, op) has a reducer of its own: supported, not AVG (SUM's) and not USER (the UserOp's). */
    static boolean ownKernel(DType dtype, Op op) {
        return op.supports(dtype) && op.foldOp() == op && op != Op.USER;
    }

    private static int index(DType dtype, Op op) {
        return dtype.ordinal() * OPS + op.ordinal();
    }

    private static Reducer[] scalarReducers() {
        Reducer[] all = new Reducer[DType.values().length * OPS];
        for (DType t : DType.values()) {
            for (Op o : Op.values()) {
                if (ownKernel(t, o)) {
                    all[index(t, o)] = new ScalarReducer(t, o);
                }
            }
        }
        return all;
    }

    /**
     * Decides whether the vector family can run, and loads it by name if so.
     *
     * @throws UnsupportedOperationException with the reason otherwise
     */
    private static ReducerFactory lookup() {
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            throw new UnsupportedOperationException("disabled by -D" + DISABLE_PROPERTY + "=true");
        }
        Module vector = ModuleLayer.boot().findModule(VECTOR_MODULE).orElseThrow(() ->
                new UnsupportedOperationException(VECTOR_MODULE + " not present (run java with --add-modules "
                        + VECTOR_MODULE + ")"));
        // a no-op while coll4j is on the class path; needed if it is ever a named module
        Reducers.class.getModule().addReads(vector);
        String vmInfo = System.getProperty("java.vm.info", "");
        if (vmInfo.contains("interpreted mode") || vmInfo.contains("emulated-client")) {
            // without C2 the Vector API is not intrinsified and runs far slower than scalar loops
            throw new UnsupportedOperationException("the C2 compiler is disabled (java.vm.info: " + vmInfo + ")");
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Class<?> family = lookup.findClass(VECTOR_FAMILY);
            return (ReducerFactory) lookup.findConstructor(family, MethodType.methodType(void.class)).invoke();
        } catch (UnsupportedOperationException e) {
            throw e;
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException | LinkageError e) {
            throw new UnsupportedOperationException("cannot load " + VECTOR_FAMILY + ": " + e, e);
        } catch (Throwable e) {
            throw new UnsupportedOperationException("cannot start the vector reductions: " + e, e);
        }
    }
}
