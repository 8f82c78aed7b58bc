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
 * The volumes favour ma-sliced from 2 processes on; its extra rounds (one more per call, and P/(P + 1) slices) decide
 * the smaller vectors: with the constants below, across 2 processes 1 MiB folds replicated, 4 MiB ma-sliced, and
 * every size from 6 MiB ma-sliced (1 MiB across 3 processes). Buffers in the
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
     * A hand-over (arrive, wait for every peer, done) in ns, as measured on the 2-vCPU development host under load 5–7
     * (docs/measurements.md, "Staged allreduce"): 64 MiB across 2 processes, whose ma-sliced call has 32 rounds more
     * than the replicated one and moves 1.5·64 MiB less, read 22.5 against 24.7 ms (best batches), so a round costs
     * ~90 µs there; a descheduled peer dominates it. A quiet host hands over in a few µs, which would move the
     * crossover from ~4 MiB down to ~100 KiB (not measured quietly yet: the loaded figure is the safer one, since it
     * keeps the 1 MiB vector replicated where the loaded runs measured it faster).
     */
    static final double ROUND_NANOS = 100_000;
    /** ns per byte moved: the replicated 64 MiB call moves 7·64 MiB per process in ~22 ms (best batches, same runs). */
    static final double BYTE_NANOS = 0.05;

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

    /**
     * The size (bytes, a multiple of 64) from which auto folds every vector up to 64 slots ma-sliced across
     * {@code processes}, or -1 when it folds the largest one replicated: the rounds' ceilings make the prices cross
     * more than once near the crossover.
     */
    static long autoFrom(int processes, long slotBytes) {
        long last = 64 * slotBytes;
        if (pick(AUTO, last, processes, slotBytes, false) != MA_SLICED) {
            return -1;
        }
        for (long b = last; b > Channel.INLINE; b -= 64) {
            if (pick(AUTO, b, processes, slotBytes, false) != MA_SLICED) {
                return b + 64;
            }
        }
        return 64;
    }

    /** For the span's description (collbench's header): what a staged allreduce folds with. */
    static String describe(int mode, int processes, long slotBytes) {
        if (mode != AUTO) {
            return "staged allreduce " + name(mode) + " (-D" + PROPERTY + ")";
        }
        long from = autoFrom(processes, slotBytes);
        return from < 0 ? "staged allreduce replicated (auto)"
                : "staged allreduce priced per call (auto): ma-sliced from " + from + " B on, replicated or ma-sliced below";
    }
}
