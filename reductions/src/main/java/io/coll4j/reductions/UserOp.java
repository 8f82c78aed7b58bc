package io.coll4j.reductions;

import io.coll4j.reductions.internal.UserReducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;

/**
 * A user-defined reduction operator (MPI's {@code MPI_Op_create}): a function over ranges of elements of one
 * {@link DType}, which must be associative, and a flag saying whether it is also commutative. Every reducing
 * collective accepts one ({@code rank.allreduce(send, recv, count, userOp)}, …).
 *
 * <p>Order: a non-commutative op is folded in ascending rank order, {@code ((s0 op s1) op s2) …} where
 * {@code s_r} is rank r's contribution, on every algorithm (they all fold that way under
 * {@code reproducible(true)}, which such a call implies); a commutative one may be folded in any
 * association and order the algorithm prefers. The element type fixes where algorithms may cut a vector:
 * they split only between elements, so an op over records wider than one number picks a dtype of the
 * record's size (a complex f64 is one 16-byte element, e.g. {@link DType#F64_I64} storage).
 *
 * <p>The function runs on the calling rank's thread — on a non-blocking, persistent or chained request, on
 * whichever thread progresses it (any rank's waiting thread or the team's progress thread) — on segments of the
 * team's arena and of the caller; it must not keep them. It runs through plain Java calls, not the vector
 * kernels.
 *
 * <p>On a team spanning processes ({@code Team.Builder.mpi()}) a commutative op is also run by MPI, which
 * combines the processes' partial results: MPI calls the function through an upcall stub with {@code dst} and
 * {@code b} the same native segment ({@code inout = in op inout}), on the thread that is inside MPI — one of
 * the team's rank threads, or the {@code coll4j-mpi} thread when MPI is funnelled. An exception it throws there
 * is caught, MPI completes the call, and the rank then fails with it as the cause (which ends the job). A
 * non-commutative op never runs inside MPI: the processes fold in ascending global rank order in Java.
 *
 * @param name        for messages and {@code explain()}
 * @param dtype       the element type (its size is what algorithms cut at)
 * @param commutative whether {@code a op b == b op a}
 * @param function    the range form of the op
 */
public record UserOp(String name, DType dtype, boolean commutative, RangeFunction function) {
    /*
     * Constants, not locals the lambdas capture: the JIT folds an access through a constant layout to one load or
     * store, and leaves one through a captured layout a generic VarHandle call: ofDoubles' sum over 1 MiB took
     * 2.2 ms with the captured layout and 43 µs with the constant (one JVM, native segments).
     */
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    /**
     * {@code dst[i] = a[i] op b[i]} for {@code count} elements at the byte offsets, left operand {@code a}.
     * {@code dst} may be exactly {@code a} or exactly {@code b} (same first byte); element i of both is read
     * before element i of dst is written, and nothing else.
     */
    @FunctionalInterface
    public interface RangeFunction {
        void apply(MemorySegment dst, long dstOffset, MemorySegment a, long aOffset, MemorySegment b, long bOffset,
                   long count);
    }

    public UserOp {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(function, "function");
    }

    /** An op on F64 elements given per element ({@code (a, b) -> a op b}). */
    public static UserOp ofDoubles(String name, boolean commutative, DoubleBinaryOperator f) {
        Objects.requireNonNull(f, "f");
        return new UserOp(name, DType.F64, commutative, (d, dOff, a, aOff, b, bOff, n) -> {
            for (long i = 0; i < n * 8; i += 8) {
                d.set(F64, dOff + i, f.applyAsDouble(a.get(F64, aOff + i), b.get(F64, bOff + i)));
            }
        });
    }

    /** An op on I64 (or, with {@code dtype} U64, unsigned) elements given per element. */
    public static UserOp ofLongs(String name, DType dtype, boolean commutative, LongBinaryOperator f) {
        Objects.requireNonNull(f, "f");
        if (dtype != DType.I64 && dtype != DType.U64) {
            throw new IllegalArgumentException("ofLongs needs dtype i64 or u64, got " + dtype);
        }
        return new UserOp(name, dtype, commutative, (d, dOff, a, aOff, b, bOff, n) -> {
            for (long i = 0; i < n * 8; i += 8) {
                d.set(I64, dOff + i, f.applyAsLong(a.get(I64, aOff + i), b.get(I64, bOff + i)));
            }
        });
    }

    /** The {@link Reducer} the collectives fold with: {@link Reducer#op()} is {@link Op#USER}. */
    public Reducer reducer() {
        return new UserReducer(this);
    }
}
