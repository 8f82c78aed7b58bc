package io.coll4j.kernel.sync;

import io.coll4j.WaitStrategy;

/**
 * The slow path of waiting for a flag: the loop a rank runs when the stamp it needs is not there on
 * the first acquire-load. The team's {@link WaitStrategy} passes the time; between idles the loop
 * re-reads the stamp (acquire: pairs with {@link ControlBlock#publish}'s release, so a returned stamp
 * makes every write its publisher made before it visible), and asks its {@link Watcher} whether the wait
 * must end for another reason:
 * <ol>
 *   <li>the team was aborted ({@link Watcher#checkAborted}, every idle: a volatile read);</li>
 *   <li>the waiting thread was interrupted ({@link Watcher#interrupted}; the interrupt status is left
 *       set, and the loop never idles with it set, so a parking strategy cannot turn into a busy spin);</li>
 *   <li>every {@link #SCAN_INTERVAL_NANOS}, a mismatch scan ({@link Watcher#scan});</li>
 *   <li>the deadline ({@link Watcher#timedOut}).</li>
 * </ol>
 * The clock is read only every {@link #CLOCK_EVERY} idles while spinning (nanoTime costs ~20 ns), the first
 * time after {@link #CLOCK_EVERY} idles (a wait that ends sooner reads it never), and at every idle once the
 * strategy has had time to start parking.
 *
 * <p>With a {@link Contention} monitor (the adaptive strategy's), a wait that has lasted longer than
 * {@link Contention#SAMPLE_AFTER_NANOS} samples the waiting rank's own scheduler run delay, at most once per
 * {@link Contention#SAMPLE_NANOS}: the detection runs only here, never on the fast path.
 *
 * <p>One instance per rank (not thread-safe), reused for every wait: it allocates nothing.
 */
public final class FlagWait {
    /** How often a waiting rank runs {@link Watcher#scan}. */
    public static final long SCAN_INTERVAL_NANOS = 200_000;
    /** In the spinning phase, read the clock only every this many idles. */
    static final int CLOCK_EVERY = 64;
    /** Beyond this many idles the strategy yields or parks: read the clock at every idle. */
    static final int CLOCK_ALWAYS_AFTER = 4096;

    /** What a waiting rank checks between idles; every method may throw to end the wait. */
    public interface Watcher {
        /** Throws when the team was aborted. */
        void checkAborted();

        /** A periodic look for a rank that entered the collective with another call; throws on a mismatch. */
        void scan();

        /** The exception for a wait that ended because the thread was interrupted. */
        RuntimeException interrupted(int peer, int line, long target);

        /** The exception for a wait that took longer than the timeout. */
        RuntimeException timedOut(int peer, int line, long target, long waitedNanos);
    }

    private final ControlBlock ctrl;
    private final WaitStrategy strategy;
    private final long timeoutNanos;
    private final Watcher watcher;
    /** The team's contention monitor when its strategy adapts, else null (no sampling at all). */
    private final Contention contention;
    /** No sample before this time (per rank: a /proc read costs microseconds). */
    private long nextSample;
    /** Add up the time spent in waits (only while a recording wants it: two clock reads a wait). */
    private boolean timing;
    private long waited;

    /** @param timeoutNanos the deadline of one wait; {@code Long.MAX_VALUE} for none */
    public FlagWait(ControlBlock ctrl, WaitStrategy strategy, long timeoutNanos, Watcher watcher) {
        this(ctrl, strategy, timeoutNanos, watcher, null);
    }

    /**
     * @param contention the team's monitor, sampled in waits that overran (null: no detection, e.g. a forced
     *                   {@code spin} strategy)
     */
    public FlagWait(ControlBlock ctrl, WaitStrategy strategy, long timeoutNanos, Watcher watcher,
                    Contention contention) {
        this.ctrl = ctrl;
        this.strategy = strategy;
        this.timeoutNanos = timeoutNanos;
        this.watcher = watcher;
        this.contention = contention;
    }

    /** Starts or stops adding up the time spent waiting. */
    public void timing(boolean on) {
        timing = on;
    }

    /** The time spent waiting since the last call, and starts again from zero. */
    public long takeWaited() {
        long w = waited;
        waited = 0;
        return w;
    }

    /**
     * Waits until the stamp at {@code off} reaches {@code target} ({@link Stamp#reached}) and returns the
     * stamp read. {@code peer} and {@code line} only describe the wait to the watcher (peer -1: a team-wide
     * counter).
     */
    public long await(long off, long target, int peer, int line) {
        // no clock read before the first clock check (CLOCK_EVERY idles in): most waits of a small call end a
        // hand-over after they start, and a read there (~20 ns under KVM) delayed seeing the flag that landed during
        // it; the deadline and the scans count from that first check, a few µs late against a timeout of seconds
        long start = timing ? System.nanoTime() : 0;
        boolean clocked = timing;
        long nextScan = start + SCAN_INTERVAL_NANOS;
        Thread self = Thread.currentThread();
        for (int idle = 0; ; idle++) {
            if (self.isInterrupted()) {
                // checked before idling: with the flag set, parkNanos returns at once and the loop would spin
                watcher.checkAborted();        // an abort (which interrupts stragglers) is reported as the abort
                throw watcher.interrupted(peer, line, target);
            }
            strategy.idle(idle);
            // acquire: pairs with the release in ControlBlock.publish of the awaited stamp
            long v = ctrl.stampAcquire(off);
            if (Stamp.reached(v, target)) {
                if (timing) {
                    waited += System.nanoTime() - start;
                }
                return v;
            }
            watcher.checkAborted();
            if (idle % CLOCK_EVERY == CLOCK_EVERY - 1 || idle > CLOCK_ALWAYS_AFTER) {
                long now = System.nanoTime();
                if (!clocked) {
                    clocked = true;
                    start = now;
                    nextScan = now + SCAN_INTERVAL_NANOS;
                }
                if (contention != null && now - start > Contention.SAMPLE_AFTER_NANOS && now - nextSample >= 0) {
                    contention.sample(now);
                    nextSample = now + Contention.SAMPLE_NANOS;
                }
                if (now - nextScan >= 0) {
                    watcher.scan();
                    nextScan = now + SCAN_INTERVAL_NANOS;
                }
                if (now - start > timeoutNanos) {
                    throw watcher.timedOut(peer, line, target, now - start);
                }
            }
        }
    }
}
