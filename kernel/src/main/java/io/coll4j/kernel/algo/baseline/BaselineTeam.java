package io.coll4j.kernel.algo.baseline;

import io.coll4j.CollectiveTimeoutException;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What Java code does today, shared by the {@code cyclicbarrier} baselines: one
 * {@link CyclicBarrier} for the team, a Java array per rank ({@code double[]}, {@code float[]},
 * {@code int[]}, {@code long[]}) and one shared result array.
 *
 * <p>When a call's buffers are heap segments over an array of the call's dtype (what
 * {@code rank.allreduce(double[] …)} passes), the baseline works on those arrays directly, as
 * hand-written code would; otherwise it first copies the segment into a per-rank array and back at
 * the end (documented cost of not having arrays). The team's abort breaks the barrier, so a failed
 * rank never leaves the others blocked in {@link CyclicBarrier#await}.
 */
final class BaselineTeam {
    final CyclicBarrier barrier;
    /** The array each rank works on in the current call, published to the others by barrier.await. */
    final Object[] inputs;
    /** Per-rank private arrays for segments that are not arrays of the dtype. */
    final Object[] privates;
    /** Per-rank private output arrays (reduce-scatter into a segment that is not an array). */
    final Object[] outputs;
    /** The shared result array, grown by rank 0 before the first barrier of a call. */
    Object result;

    private BaselineTeam(int ranks) {
        this.barrier = new CyclicBarrier(ranks);
        this.inputs = new Object[ranks];
        this.privates = new Object[ranks];
        this.outputs = new Object[ranks];
    }

    static BaselineTeam of(CollectiveCall call) {
        TeamContext team = call.team();
        return team.attachment(BaselineTeam.class, () -> {
            BaselineTeam b = new BaselineTeam(team.size());
            team.onAbort(b.barrier::reset);
            return b;
        });
    }

    /** barrier.await with the team's timeout; a broken barrier or timeout becomes the team's exception. */
    void await(CollectiveCall call) {
        TeamContext team = call.team();
        try {
            long t = team.timeoutNanos();
            if (t == Long.MAX_VALUE) {
                barrier.await();
            } else {
                barrier.await(t, TimeUnit.NANOSECONDS);
            }
        } catch (BrokenBarrierException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            } else {
                awaitAbortCause(team);
            }
            if (!team.isAborted()) {
                team.abort(e, call.rank());
            }
            throw team.abortedException(call.rank());
        } catch (TimeoutException e) {
            team.abort(new CollectiveTimeoutException(call.collective().cliName() + " (cyclicbarrier) timed out on rank "
                    + call.rank() + " after " + TimeUnit.NANOSECONDS.toMillis(team.timeoutNanos())
                    + " ms in CyclicBarrier.await (" + barrier.getNumberWaiting() + " of " + team.size() + " ranks waiting)",
                    List.of()), call.rank());
            throw team.abortedException(call.rank());
        }
    }

    /**
     * A barrier broken by another rank's timeout or failure: that rank records the team's abort cause right
     * after breaking it; wait for it briefly, so every rank reports the real cause, not "broken barrier".
     */
    private static void awaitAbortCause(TeamContext team) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (!team.isAborted() && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(50_000);
        }
    }

    /** The Java array of {@code seg} when it is exactly an array of {@code dtype} from index 0, else null. */
    static Object arrayOf(MemorySegment seg, DType dtype, long count) {
        if (seg == null || seg.isNative() || seg.address() != 0 || seg.heapBase().isEmpty()) {
            return null;
        }
        Object a = seg.heapBase().get();
        boolean match = a.getClass() == dtype.arrayType() && !dtype.isPair();
        return match && java.lang.reflect.Array.getLength(a) >= count ? a : null;
    }

    /** A new array of {@code dtype} with {@code length} elements. */
    static Object newArray(DType dtype, long length) {
        if (dtype.isPair()) {
            // a pair is two numbers: one array slot per element would not hold it
            throw new IllegalArgumentException("the cyclicbarrier baselines carry one-number elements; pair dtype "
                    + dtype.cliName() + " runs on coll4j's algorithms");
        }
        return java.lang.reflect.Array.newInstance(dtype.arrayType().componentType(), Math.toIntExact(length));
    }

    /** {@code a} if it is an array of {@code dtype} with room for {@code length}, else a new one. */
    static Object ensure(Object a, DType dtype, long length) {
        if (a != null && java.lang.reflect.Array.getLength(a) >= length && newArray(dtype, 0).getClass() == a.getClass()) {
            return a;
        }
        return newArray(dtype, Math.max(length, 1));
    }

    /**
     * The array rank {@code r} works on for {@code seg}: the segment's own array, or the rank's private
     * array filled from the segment ({@code copyIn}).
     */
    Object input(int r, MemorySegment seg, DType dtype, long count, boolean copyIn) {
        Object a = arrayOf(seg, dtype, count);
        if (a != null) {
            return a;
        }
        privates[r] = ensure(privates[r], dtype, count);
        if (copyIn && count > 0) {
            MemorySegment.copy(seg, layout(dtype), 0, privates[r], 0, Math.toIntExact(count));
        }
        return privates[r];
    }

    /** Copies {@code count} elements of array {@code from} (from index {@code fromIndex}) into {@code seg}, unless they are the same storage. */
    static void copyOut(Object from, int fromIndex, MemorySegment seg, long segIndex, DType dtype, long count) {
        if (count == 0) {
            return;
        }
        Object target = arrayOf(seg, dtype, segIndex + count);
        if (target != null) {
            if (target != from || fromIndex != segIndex) {
                System.arraycopy(from, fromIndex, target, Math.toIntExact(segIndex), Math.toIntExact(count));
            }
        } else {
            MemorySegment.copy(from, fromIndex, seg, layout(dtype), segIndex * dtype.size(), Math.toIntExact(count));
        }
    }

    static ValueLayout layout(DType dtype) {
        return dtype.layout();
    }
}
