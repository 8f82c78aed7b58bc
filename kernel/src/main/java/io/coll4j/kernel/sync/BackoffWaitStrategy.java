package io.coll4j.kernel.sync;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Spin → yield → park with exponential back-off, as Agrona's {@code BackoffIdleStrategy}: the first
 * {@code maxSpins} idle calls spin with {@link Thread#onSpinWait()}, the next {@code maxYields} call
 * {@link Thread#yield()}, after that each call parks for {@code minPark}, doubling up to {@code maxPark}.
 */
final class BackoffWaitStrategy implements WaitStrategy {
    static final String ALIAS = "backoff";
    static final String ALIAS_OVERSUBSCRIBED = "backoff-oversubscribed";

    /**
     * Dedicated core: spin for about 100 µs (a PAUSE is ~10–60 ns depending on the core) so the flag of a
     * collective that is just slower on a peer is caught without a context switch, then yield, then park.
     */
    static final int DEDICATED_MAX_SPINS = 4_000;
    /**
     * Then ~1000 yields (~0.3 µs each when nothing else is runnable, a time slice for whoever is when
     * something is): bandwidth-sized waits of a millisecond or so stay awake and see the flag at once.
     */
    static final int DEDICATED_MAX_YIELDS = 1_000;
    /**
     * Oversubscribed (more ranks than CPUs): the rank we wait for is probably not running, so spinning only
     * delays it; yield early so the scheduler runs it, and park when yielding found nothing else to run.
     */
    static final int OVERSUBSCRIBED_MAX_SPINS = 32;
    static final int OVERSUBSCRIBED_MAX_YIELDS = 400;
    /** Parking starts at 1 µs (in practice the kernel's timer slack, ~50 µs) ... */
    static final long MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    /**
     * ... and backs off to 100 µs: a parked waiter is not woken by the publisher, so this bounds how late it
     * sees a flag (a few % of a millisecond-long bandwidth collective), and how stale a deadline check can be.
     */
    static final long MAX_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    static final BackoffWaitStrategy DEDICATED = new BackoffWaitStrategy(
            DEDICATED_MAX_SPINS, DEDICATED_MAX_YIELDS, MIN_PARK_NANOS, MAX_PARK_NANOS, ALIAS);
    static final BackoffWaitStrategy OVERSUBSCRIBED = new BackoffWaitStrategy(
            OVERSUBSCRIBED_MAX_SPINS, OVERSUBSCRIBED_MAX_YIELDS, MIN_PARK_NANOS, MAX_PARK_NANOS, ALIAS_OVERSUBSCRIBED);

    private final int maxSpins;
    private final int spinsAndYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private final String alias;

    BackoffWaitStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        this(maxSpins, maxYields, minParkNanos, maxParkNanos, ALIAS);
    }

    private BackoffWaitStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos, String alias) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("backoff limits: maxSpins, maxYields >= 0 and 0 < minPark <= maxPark required");
        }
        this.maxSpins = maxSpins;
        this.spinsAndYields = maxSpins + maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.alias = alias;
    }

    @Override
    public void idle(int idleCount) {
        if (idleCount < maxSpins) {
            Thread.onSpinWait();
        } else if (idleCount < spinsAndYields) {
            Thread.yield();
        } else {
            int doublings = Math.min(idleCount - spinsAndYields, 30);
            LockSupport.parkNanos(Math.min(minParkNanos << doublings, maxParkNanos));
        }
    }

    @Override
    public String alias() {
        return alias;
    }

    @Override
    public String toString() {
        return alias + "(spins=" + maxSpins + ", yields=" + (spinsAndYields - maxSpins)
                + ", park=" + minParkNanos + ".." + maxParkNanos + "ns)";
    }
}
