package io.coll4j.kernel.span.shm;

/**
 * Which fold an allreduce of a {@link SharedMemorySpan} runs on staged streams (buffers outside the mapping): the
 * replicated fold of {@link Ops.Fold} or the movement-avoiding one of {@link MaSlicedFold}, priced per call from its
 * size and the process count only, so every process picks the same (the pick is in the descriptor's root byte: a
 * process that picked otherwise is a mismatch on the first round, not a wrong result). {@code
 * -Dcoll4j.shm.allreduce=auto|replicated|ma-sliced} forces one (collbench's contenders).
 *
 * <p>The price is YHCCL's data-access volume [YHCCL §2.1, §3.4] per process, in bytes moved per byte of the vector
 * (a copy moves 2: a load and a store), plus a hand-over per round:
 * <ul>
 *   <li>replicated: copy-in 2, fold P loads + 1 store, and 2 for the copy of the fold's result out of the native
 *   scratch into a heap receive buffer (a heap array is what a staged buffer usually is; the reducers write native
 *   memory only, {@link Mapping#foldScratch}): P + 5; one round per slot-sized slice.</li>
 *   <li>ma-sliced: copy-in 2, fold 1 load + 1/P store, copy-out 2: 5 + 1/P; slices of P/(P + 1) of a slot and one
 *   round more (the last slice's copy-out).</li>
 * </ul>
 * The volumes favour ma-sliced from 2 processes on; the extra round decides the small vectors. Buffers in the
 * mapping of every process never reach either fold: the allreduce pushes ({@link Ops.Fold#push}).
 */
final class StagedAllreduce {
    private StagedAllreduce() {
    }

    static final String PROPERTY = "coll4j.shm.allreduce";
    /** Picks per call (the price); never in a descriptor. */
    static final int AUTO = -1;
    static final int REPLICATED = 0;
    static final int MA_SLICED = 1;
    private static final String[] NAMES = {"replicated", "ma-sliced"};

    /**
     * A hand-over (arrive, wait for every peer, done) in ns: a few µs between two busy processes of this host's class;
     * a descheduled peer costs far more, for both folds alike.
     */
    static final double ROUND_NANOS = 5_000;
    /** ns per byte moved: ~8 GB/s of loads and stores for one core out of the L2. */
    static final double BYTE_NANOS = 0.125;

    /** The mode the property asks for ({@link #AUTO} when unset). */
    static int fromProperty() {
        return parse(System.getProperty(PROPERTY, "auto"));
    }

    static int parse(String v) {
        return switch (v) {
            case "auto" -> AUTO;
            case "replicated" -> REPLICATED;
            case "ma-sliced" -> MA_SLICED;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + ": auto, replicated or ma-sliced, got '" + v + "'");
        };
    }

    static String name(int fold) {
        return fold >= 0 && fold < NAMES.length ? NAMES[fold] : "fold " + fold;
    }

    /**
     * The fold of a {@code bytes} allreduce across {@code processes} under {@code mode}: a vector that fits one arrive
     * line always travels inline (no slots, so no fold to choose), and a user op always folds replicated
     * ({@link MaSlicedFold}'s blocks would stay unwritten if it threw in one process).
     */
    static int pick(int mode, long bytes, int processes, long slotBytes, boolean userOp) {
        if (userOp || bytes <= Channel.INLINE) {
            return REPLICATED;
        }
        if (mode != AUTO) {
            return mode;
        }
        return maSlicedNanos(bytes, processes, slotBytes) < replicatedNanos(bytes, processes, slotBytes) ? MA_SLICED : REPLICATED;
    }

    static double replicatedNanos(long bytes, int processes, long slotBytes) {
        long slice = (slotBytes - Mapping.SLOT_HEADER) & ~63L;
        long rounds = (bytes + slice - 1) / slice;
        return rounds * ROUND_NANOS + (double) bytes * (processes + 5) * BYTE_NANOS;
    }

    static double maSlicedNanos(long bytes, int processes, long slotBytes) {
        long slice = MaSlicedFold.sliceBytes(slotBytes, processes);
        long rounds = (bytes + slice - 1) / slice + 1;
        return rounds * ROUND_NANOS + (double) bytes * (5 + 1.0 / processes) * BYTE_NANOS;
    }

    /** The smallest vector (bytes, a multiple of 64) auto folds ma-sliced across {@code processes}, or -1: never. */
    static long autoFrom(int processes, long slotBytes) {
        for (long b = 64; b <= (1L << 32); b += 64) {
            if (pick(AUTO, b, processes, slotBytes, false) == MA_SLICED) {
                return b;
            }
            if (b >= 4 * slotBytes) {
                return -1;
            }
        }
        return -1;
    }

    /** For the span's description (collbench's header): what a staged allreduce folds with. */
    static String describe(int mode, int processes, long slotBytes) {
        if (mode != AUTO) {
            return "staged allreduce " + name(mode) + " (-D" + PROPERTY + ")";
        }
        long from = autoFrom(processes, slotBytes);
        return from < 0 ? "staged allreduce replicated (auto)"
                : "staged allreduce ma-sliced from " + from + " B, replicated below (auto)";
    }
}
