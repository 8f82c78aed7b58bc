package io.coll4j;

import io.coll4j.kernel.sync.Contention;

/**
 * An opt-in ({@link WaitStrategy#adaptive()}, {@code --wait adaptive}) for a team with a CPU per rank: {@link BackoffWaitStrategy#DEDICATED} (spin ~100 µs, then park),
 * except that a rank whose own core the team's {@link Contention} monitor found shared with other work, while
 * its peers' cores were not, spins up to ~1 ms ({@link #CONTENDED_MAX_SPINS}) before it parks. Parking hands a contended core to the other
 * process for the rest of its time slice (milliseconds), while the flag the rank waits for usually comes from
 * a peer that runs on another core within microseconds; spinning keeps the core the rank has been given.
 * {@link Contention} says why this direction and what was measured against it.
 *
 * <p>{@link WaitStrategy#adaptive()} is a template without a monitor (it behaves as the dedicated back-off);
 * a team makes its own instance with its monitor ({@link #forTeam}), which the kernel's wait loop feeds with
 * samples. The monitor is consulted only once the dedicated back-off would park: every idle before that is
 * exactly {@link BackoffWaitStrategy#DEDICATED}'s, so a quiet machine sees no difference.
 */
final class AdaptiveWaitStrategy implements WaitStrategy {
    static final String ALIAS = "adaptive";
    /**
     * A rank on a contended core spins this many PAUSEs (~1 ms at ~25 ns each) before parking: long enough for a
     * peer that was parked in 100 µs steps to see the flag and answer, short against a CFS slice (~3 ms here).
     */
    static final int CONTENDED_MAX_SPINS = 40_000;
    static final AdaptiveWaitStrategy TEMPLATE = new AdaptiveWaitStrategy(null);

    private final Contention contention;

    private AdaptiveWaitStrategy(Contention contention) {
        this.contention = contention;
    }

    /** The instance of a team whose monitor is {@code contention}. */
    static AdaptiveWaitStrategy forTeam(Contention contention) {
        return new AdaptiveWaitStrategy(java.util.Objects.requireNonNull(contention, "contention"));
    }

    @Override
    public void idle(int idleCount) {
        if (idleCount >= BackoffWaitStrategy.DEDICATED_MAX_SPINS && idleCount < CONTENDED_MAX_SPINS
                && contention != null && contention.keepCore()) {
            Thread.onSpinWait();     // keep the contended core rather than hand it over for a whole slice
        } else {
            BackoffWaitStrategy.DEDICATED.idle(idleCount);
        }
    }

    @Override
    public String alias() {
        return ALIAS;
    }

    @Override
    public String toString() {
        return ALIAS + "(" + BackoffWaitStrategy.DEDICATED + "; on a contended core: spins=" + CONTENDED_MAX_SPINS + ")";
    }
}
