package io.coll4j.kernel.span;

import io.coll4j.CollectiveMismatchException;
import io.coll4j.kernel.algo.Signature;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The mismatch check between processes. Inside a process every collective compares check words as always;
 * across processes the leaders compare what their process called with one MPI_Allreduce(MAX) of
 * {descriptor, count, −descriptor, −count} (32 bytes): the same maximum and minimum everywhere means every
 * process called the same collective, so every process sees the same verdict and each one's leader throws
 * {@link CollectiveMismatchException} naming both extremes — the job then ends through the usual failure
 * path (the message, then MPI_Abort), not with a hang or a wrong result.
 *
 * <p>The check is one more inter-process latency (≈ α), so it runs only where that costs nothing
 * measurable (docs/design.md, "Across processes"): on every call of at least {@link #MIN_BYTES}, on the
 * first call of every plan, and on every one-shot request. A smaller blocking call carries its word inside its
 * payload instead ({@link ProcessSpan#carry}). {@code -Dcoll4j.mpi.check=always|never} overrides (the test suite uses always).
 * The decision depends only on the call itself, so processes that called the same thing decide alike; a
 * mismatched pair of which only one side checks meets MPI with different calls, which MPI reports as an
 * error or the watchdog as a timeout — both end the job naming the process.
 */
public final class SpanCheck {
    /**
     * From here the separate check (one 32-byte allreduce, ~0.6 µs) costs less than carrying the word inside the
     * payload, which copies the payload through the shim's scratch and lengthens the MPI message: across 2 processes
     * (alternated, docs/measurements.md, 2026-11-29) carried 1 and 4 KiB allreduces read 0.85–1.49 µs against
     * 0.99–1.79 µs checked separately, while at 8 KiB carried read 11.3–13.1 µs against 9.6 µs before, and at 64 KiB
     * 23.2–24.5 against 19.6–20.4 µs.
     */
    public static final long MIN_BYTES = 8 * 1024;

    private static final String MODE = System.getProperty("coll4j.mpi.check", "auto");
    /** Decided once: the latency path pays a compare of a constant, not a string switch. */
    private static final long THRESHOLD = switch (MODE) {
        case "always" -> 0;
        case "never" -> Long.MAX_VALUE;
        case "auto" -> MIN_BYTES;
        default -> throw new IllegalArgumentException("coll4j.mpi.check: auto, always or never, got '" + MODE + "'");
    };

    private SpanCheck() {
    }

    /**
     * A carried check word differed ({@link ProcessSpan#carry}): this process called {@code descriptor, count} after
     * the history {@code chain}; the other side's words are {@code other*} ({@code otherCount} Long.MIN_VALUE: another
     * process's message was larger than this call takes).
     */
    public static CollectiveMismatchException carriedMismatch(int process, long descriptor, long count, long chain,
                                                              long otherDescriptor, long otherCount, long otherChain) {
        String other = otherCount == Long.MIN_VALUE ? "a larger call (its message did not fit this one's)"
                : Signature.describe(otherDescriptor, otherCount);
        String history = otherCount != Long.MIN_VALUE && otherDescriptor == descriptor && otherCount == count
                && otherChain != chain ? " (the same call, after a different sequence of earlier collectives)" : "";
        return new CollectiveMismatchException("processes called different collectives: process " + process + " called "
                + Signature.describe(descriptor, count) + ", while another process called " + other + history);
    }

    /**
     * The check word carried inside a small call's payload differed ({@link ProcessSpan#carry}): another process
     * called a different collective, count, dtype, op or root, or the same after different earlier calls. The word
     * is a hash, so the other side's call cannot be named; every process that sees the difference says so.
     */
    public static CollectiveMismatchException carriedDiffers(int process, long descriptor, long count) {
        return new CollectiveMismatchException("processes called different collectives: process " + process + " called "
                + Signature.describe(descriptor, count) + ", while another process called a different collective, count,"
                + " dtype, op or root, or the same after different earlier calls (the check word carried with the payload"
                + " differed)");
    }

    /** The history word after one more call (every process folds the same calls in the same order). */
    public static long chain(long chain, long descriptor, long count) {
        long h = (chain ^ descriptor) * 0x9E3779B97F4A7C15L;
        h = (h ^ count) * 0xC2B2AE3D27D4EB4FL;
        return h ^ (h >>> 29);
    }

    /**
     * False under {@code -Dcoll4j.mpi.check=never}: no call checks, separately or with a word carried in its payload
     * (the carried word lengthens a small call's MPI message; never leaves MPI's call exactly the user's).
     */
    public static boolean enabled() {
        return THRESHOLD != Long.MAX_VALUE;
    }

    /** True when a call moving {@code bytes} per rank checks (never for a team inside one process). */
    public static boolean due(long bytes) {
        return bytes >= THRESHOLD;
    }

    /**
     * True when a one-shot request checks (unless {@code -Dcoll4j.mpi.check=never}): at every size, because a request's
     * MPI calls are posted from whichever rank drives it, where the word carried by the blocking calls cannot travel;
     * a request is posted to overlap work, so the ~1 µs of the separate check is not its latency path.
     */
    public static boolean dueForRequest() {
        return THRESHOLD != Long.MAX_VALUE;
    }

    /** True when the first call of a plan checks (unless {@code -Dcoll4j.mpi.check=never}). */
    public static boolean dueForPlan() {
        return THRESHOLD != Long.MAX_VALUE;
    }

    /**
     * Local rank 0 compares this process's call with every other process's; the other local ranks go on
     * (their own local steps compare them with their leader). Throws on the leader when the processes differ.
     */
    public static void verify(SpanGroup g, LocalOps local, long descriptor, long count) {
        verify(g, local, descriptor, count, g.span().world());
    }

    /** {@link #verify(SpanGroup, LocalOps, long, long)} over communicator {@code comm}. */
    public static void verify(SpanGroup g, LocalOps local, long descriptor, long count, int comm) {
        if (local.localId() != 0) {
            return;
        }
        g.span().uncarry();
        MemorySegment w = g.checkCell();
        fill(w, descriptor, count);
        g.span().allreduce(comm, null, w, 4, DType.I64, Op.MAX);
        compare(g, w, descriptor, count);
    }

    /**
     * The check of a request's call, posted without waiting: a non-blocking allreduce of the word on the requests'
     * communicator {@code comm}, which the caller posts right before the request's own MPI call, in the same order in
     * every process. Its {@link ProcessSpan.Pending#test} throws {@link CollectiveMismatchException} once the words
     * are in and differ. A blocking check here made a request's progress wait for the other processes: a process
     * that moved an un-awaited request at its team's close then sat in MPI_Allreduce while the others, whose
     * request had not reached that stage, went on to MPI_Finalize (MpiJobTest's un-awaited requests). Null on the
     * ranks other than local rank 0, which call no MPI.
     */
    public static ProcessSpan.Pending post(SpanGroup g, LocalOps local, long descriptor, long count, int comm) {
        if (local.localId() != 0) {
            return null;
        }
        // its own cell: requests overlap; MPI works on its staged copy, so a cell only the Pending holds is enough
        MemorySegment w = java.lang.foreign.Arena.ofAuto().allocate(32, 8);
        fill(w, descriptor, count);
        ProcessSpan.Pending p = g.span().iallreduce(comm, null, w, 4, DType.I64, Op.MAX);
        return new ProcessSpan.Pending() {
            private boolean compared;

            @Override
            public boolean test() {
                if (!compared && p.test()) {
                    compared = true;
                    compare(g, w, descriptor, count);
                }
                return compared;
            }
        };
    }

    private static void fill(MemorySegment w, long descriptor, long count) {
        w.setAtIndex(ValueLayout.JAVA_LONG, 0, descriptor);
        w.setAtIndex(ValueLayout.JAVA_LONG, 1, count);
        w.setAtIndex(ValueLayout.JAVA_LONG, 2, -descriptor);
        w.setAtIndex(ValueLayout.JAVA_LONG, 3, -count);
    }

    private static void compare(SpanGroup g, MemorySegment w, long descriptor, long count) {
        long maxD = w.getAtIndex(ValueLayout.JAVA_LONG, 0);
        long maxC = w.getAtIndex(ValueLayout.JAVA_LONG, 1);
        long minD = -w.getAtIndex(ValueLayout.JAVA_LONG, 2);
        long minC = -w.getAtIndex(ValueLayout.JAVA_LONG, 3);
        if (maxD != minD || maxC != minC) {
            throw new CollectiveMismatchException("processes called different collectives: process " + g.process()
                    + " called " + Signature.describe(descriptor, count) + ", while the job's calls range from "
                    + Signature.describe(minD, minC) + " to " + Signature.describe(maxD, maxC)
                    + "");
        }
    }
}
