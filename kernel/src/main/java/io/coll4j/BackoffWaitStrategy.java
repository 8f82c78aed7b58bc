package io.coll4j;

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
     * Then no yields, straight to parking. A yield costs ~0.3 µs when nothing else is runnable, but a whole
     * time slice of another process when something is: on a machine other processes load (load average 25
     * on 2 CPUs), a rank that yielded 1000 times waited ~1000 foreign time slices, and a 4 MiB f32 allreduce
     * at p = 2 took 12.5 ms median against 0.27 ms with parking instead (min 0.22 ms either way, same run).
     * A parked waiter sleeps, so the scheduler wakes it promptly when its park ends, as it wakes a thread
     * blocked in {@code CyclicBarrier.await}; the cost is seeing a flag up to one park late (≤ 100 µs, a few %
     * of a bandwidth collective that waits that long).
     */
    static final int DEDICATED_MAX_YIELDS = 0;
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
