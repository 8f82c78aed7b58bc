package io.coll4j;

import java.time.Duration;
import java.util.Locale;

/**
 * What a rank does while the flag it waits for has not been published yet (cf. Agrona's
 * {@code IdleStrategy}). The kernel's wait loop calls {@link #idle(int)} after every failed check and,
 * between calls, checks the team's abort flag and the collective's deadline; so a strategy only
 * decides how to pass the time. A team aborts parked ranks by unparking them, so a strategy that parks
 * must use {@link java.util.concurrent.locks.LockSupport#parkNanos(long)} (which returns on unpark).
 *
 * <p>Implementations must be stateless or thread-safe: one instance serves every rank of a team.
 */
public interface WaitStrategy {

    /**
     * Called when the awaited condition is still false.
     *
     * @param idleCount how many times {@code idle} was already called in this wait (0 on the first call)
     */
    void idle(int idleCount);

    /** Short name accepted by {@link #parse(String)} and the CLI. */
    String alias();

    /** Busy spin with {@link Thread#onSpinWait()} only: lowest latency, one core per rank required. */
    static WaitStrategy spin() {
        return SpinWaitStrategy.INSTANCE;
    }

    /** Spin briefly, then {@link Thread#yield()} forever: for oversubscribed teams that must stay responsive. */
    static WaitStrategy yielding() {
        return YieldingWaitStrategy.INSTANCE;
    }

    /** The default back-off for a rank with a core of its own: spin ~100 µs, then park (no yield phase: see BackoffWaitStrategy). */
    static WaitStrategy backoff() {
        return BackoffWaitStrategy.DEDICATED;
    }

    /**
     * An opt-in for a team with a CPU per rank (not the default: under other users' load it did not measure better
     * than {@link #backoff()}, docs/measurements.md): {@link #backoff()} while the ranks have their cores to
     * themselves; a rank found sharing its core with other work (its scheduler run delay, sampled only in waits
     * that overran), while its peers' cores are free, spins up to ~1 ms instead of ~100 µs before it parks, so it
     * does not hand the core to the other process for a whole time slice; the team logs it once and reports it
     * ({@link Team#contentionReport()}). Outside a team (no monitor) it is {@link #backoff()}.
     * {@link #spin()} and the other strategies never adapt: choosing one turns the detection off.
     */
    static WaitStrategy adaptive() {
        return AdaptiveWaitStrategy.TEMPLATE;
    }

    /** The back-off tuned for more ranks than cores: little spinning, early yield, then park. */
    static WaitStrategy backoffOversubscribed() {
        return BackoffWaitStrategy.OVERSUBSCRIBED;
    }

    /** A spin → yield → park back-off with explicit limits. */
    static WaitStrategy backoff(int maxSpins, int maxYields, Duration minPark, Duration maxPark) {
        return new BackoffWaitStrategy(maxSpins, maxYields, minPark.toNanos(), maxPark.toNanos());
    }

    /**
     * The default for a team of {@code ranks} ranks on {@code cpus} usable CPUs: {@link #backoff()} when every
     * rank has a CPU, {@link #backoffOversubscribed()} otherwise (spinning then only steals time from the rank
     * being waited for, so there is nothing to adapt).
     */
    static WaitStrategy defaultFor(int ranks, int cpus) {
        return ranks <= cpus ? backoff() : backoffOversubscribed();
    }

    /** Parses an alias: {@code adaptive}, {@code spin}, {@code yield}, {@code backoff}, {@code backoff-oversubscribed}. */
    static WaitStrategy parse(String alias) {
        return switch (alias.toLowerCase(Locale.ROOT)) {
            case AdaptiveWaitStrategy.ALIAS -> adaptive();
            case SpinWaitStrategy.ALIAS -> spin();
            case YieldingWaitStrategy.ALIAS -> yielding();
            case BackoffWaitStrategy.ALIAS -> backoff();
            case BackoffWaitStrategy.ALIAS_OVERSUBSCRIBED -> backoffOversubscribed();
            default -> throw new IllegalArgumentException("unknown wait strategy '" + alias
                    + "' (expected adaptive, spin, yield, backoff or backoff-oversubscribed)");
        };
    }
}
