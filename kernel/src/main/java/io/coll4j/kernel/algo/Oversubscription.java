package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.TeamShape;

import java.util.List;
import java.util.Locale;

/**
 * What waiting costs on an oversubscribed team, whose ranks take turns on shared PUs ({@link TeamShape#ranksPerPu}
 * k &gt; 1). A rank that waits for a peer which is not running cannot be served by a line transfer: its wait
 * strategy yields or parks until the scheduler has run the peer. Each dependent round of a synchronisation —
 * a step that cannot start before a given peer has finished the step before — then costs about k − 1 such
 * hand-overs, whatever the line latency. A step in which every rank waits for all (a central counter, one
 * round) pays it once; a dissemination barrier pays it per round, ⌈log2 p⌉ times.
 *
 * <p>Measured ({@code collbench barrier -a all --alternate}, 4 and 8 ranks on 2 PUs): central was fastest and
 * tree slowest, where the line-latency model (central (p + 1)·a_α against dissemination ⌈log2 p⌉·a_α) ranks
 * them the other way round. {@value #HAND_OVER_US} µs per hand-over fits the absolute times of {@code collbench
 * explain barrier --measure} at 3, 4 and 8 ranks (the numbers: docs/measurements.md).
 */
public final class Oversubscription {
    private Oversubscription() {
    }

    /** One scheduler hand-over to a rank sharing the waiter's PU, µs (fitted on a 2-vCPU KVM guest, Linux CFS). */
    static final double HAND_OVER_US = 1.7;

    /** The hand-overs of {@code rounds} dependent rounds on {@code shape}, seconds: 0 unless ranks share PUs. */
    public static double rounds(TeamShape shape, int rounds) {
        int k = shape.ranksPerPu();
        return k <= 1 ? 0 : rounds * (k - 1) * HAND_OVER_US * 1e-6;
    }

    /** The {@code collbench explain} term of {@link #rounds}, none unless ranks share PUs. */
    public static List<String> terms(TeamShape shape, int rounds) {
        int k = shape.ranksPerPu();
        if (k <= 1 || rounds <= 0) {
            return List.of();
        }
        return List.of(String.format(Locale.ROOT, "oversubscribed (%d ranks per PU): %d dependent round%s x %d scheduler hand-over%s = %.3f us",
                k, rounds, rounds == 1 ? "" : "s", k - 1, k == 2 ? "" : "s", rounds(shape, rounds) * 1e6));
    }
}
