package io.coll4j.kernel.sync;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether the core a rank runs on is shared with other work, judged from the rank's own scheduler statistics,
 * for the adaptive wait strategy: a rank on a contended core, whose peers' cores were found quiet, keeps spinning
 * where it would park.
 *
 * <p><b>Why that way round.</b> A rank that parks gives its CPU away. On a core of its own that costs the
 * wake-up; on a core that another runnable process shares, the CFS runs that process next and the rank
 * gets the core back only after the other one's time slice — milliseconds, for a flag that its peer publishes
 * microseconds later. On the 2-core machine this was built on, with a busy loop pinned to one core, a CG
 * iteration's two 8-byte allreduces then cost a whole slice whenever the rank sharing the busy core waited
 * more than the back-off's ~100 µs of spinning (its peer parks in steps of up to 100 µs while it waits
 * for the descheduled rank, so it sees the flag that late and the next wait of the other rank overruns). The
 * opposite responses were measured too and lost, beside other users' load of ~10 on 2 CPUs: parking after a
 * few spins instead of ~100 µs (median CG iteration 420–2100 µs against 260–350 µs), and unbinding the ranks
 * from their PUs so the scheduler could move the displaced one (slower against {@code single} than staying
 * bound in most alternated rounds). Spinning longer whatever the peers do lost as well under that load, where
 * every core was contended, and when peers were merely not known to be contended: hence the condition of
 * {@link #keepCore}.
 *
 * <p><b>What is measured.</b> Linux's {@code /proc/self/task/<tid>/schedstat} gives, per thread, the time it
 * spent runnable on a run queue without running ("run delay", the second field). A rank sharing its core with
 * one CPU-bound process accumulates run delay at up to half the wall clock; a rank with a core of its own next
 * to none (a timer tick, a kworker). Machine-wide figures (procs_running of /proc/stat, the load average,
 * steal time) cannot say whose core is busy, so the verdict is the rank's own.
 *
 * <p><b>When.</b> Only in the slow path of a wait ({@link FlagWait}), once the wait has lasted
 * {@link #SAMPLE_AFTER_NANOS} (longer than a flag hand-over should, and before the back-off would park), at
 * most once per {@link #SAMPLE_NANOS} per rank. Two samples at least {@link #MIN_WINDOW_NANOS} apart give a
 * fraction {@link #judge judged} contended, quiet or neither; quiet windows adding up to
 * {@link #RECOVER_NANOS} end a rank's contended state (hysteresis: a JIT burst or a build ends).
 *
 * <p>Threads: a rank's state is written and read only by the thread running that rank (it samples its own
 * schedstat and its wait strategy reads the result through a thread-local), so it needs no ordering. The
 * team-wide report (episodes, the first one's figures) changes under this object's lock, a few times a
 * second at most.
 */
public final class Contention {

    /** A wait that has lasted this long samples the waiting rank's run delay: before the back-off's ~100 µs of spinning end. */
    public static final long SAMPLE_AFTER_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** At most one sample per rank this often: reading a /proc file costs ~5–15 µs. */
    public static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** A window shorter than this says little (one timer tick of run delay is 1–4 ms of a CFS slice's granularity)... */
    static final long MIN_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** ... and one longer than this is stale: it started in another phase of the program. */
    static final long MAX_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /**
     * Contended when the rank was runnable but not running for a quarter of the window: a core shared with one
     * CPU-bound process gives ~40–50%; a core of its own < 2% (timer ticks, kworkers, a GC thread).
     */
    static final double CONTENDED_FRACTION = 0.25;
    /** Quiet when below this; between the two a rank's state stays as it was (hysteresis). */
    static final double QUIET_FRACTION = 0.05;
    /** Quiet windows adding up to this long in a row end a rank's contended state. */
    public static final long RECOVER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** The verdict of one window. */
    public enum Verdict { CONTENDED, QUIET, UNSURE }

    /** What the team does when one of its ranks turns contended; called under the monitor's lock, from that rank. */
    public interface Listener {
        /** Rank {@code rank} was runnable but not running for {@code fraction} of the last {@code windowNanos}. */
        void contended(int rank, double fraction, long windowNanos);
    }

    /** A rank's sampling state: touched only by the thread running the rank. */
    private static final class RankState {
        final int rank;
        final LongSupplier runDelay;
        long windowDelay = -1;
        long windowStart;
        long quietNanos;
        boolean contended;
        /** The last judged window was quiet and the rank is not contended: counted in {@link #quietRanks}. */
        boolean quiet;

        RankState(int rank, LongSupplier runDelay) {
            this.rank = rank;
            this.runDelay = runDelay;
        }
    }

    private final Listener listener;
    /** The calling rank's state; set by {@link #register}, null on threads that run no rank of this team. */
    private final ThreadLocal<RankState> current = new ThreadLocal<>();
    // Under the lock:
    private int episodes;
    private String firstEpisode = "";
    private int contendedRanks;
    /**
     * How many registered ranks' last judged window was quiet (and are not contended), and how many ranks are
     * registered: written under the lock, read by {@link #keepCore} without it. volatile: a write under the lock
     * pairs with the read in keepCore; the counts are hints that carry no data, so a stale read only makes one
     * wait spin or park as the previous state said.
     */
    private volatile int quietRanks;
    private volatile int registered;

    public Contention(Listener listener) {
        this.listener = listener;
    }

    /**
     * Makes the calling thread rank {@code rank} for this monitor, its run delay read by {@code runDelay}
     * (ns, -1: unknown; {@link #ownRunDelay} on Linux, synthetic in tests). Called by the rank's thread when it
     * starts running the rank.
     */
    public void register(int rank, LongSupplier runDelay) {
        unregister();   // a thread that held another rank of this team lets it go first
        current.set(new RankState(rank, runDelay));
        synchronized (this) {
            registered++;
        }
    }

    /** The calling thread runs no rank of this team any more (its state would belong to a thread that ended). */
    public void unregister() {
        RankState s = current.get();
        if (s != null) {
            synchronized (this) {
                if (s.contended) {
                    s.contended = false;
                    contendedRanks--;
                }
                setQuiet(s, false);
                registered--;
            }
            current.remove();
        }
    }

    /**
     * Whether the calling rank should keep its core rather than park: its own core was last found contended and
     * every other rank's last window was found quiet (evidence, not the absence of it: a rank that never waited
     * long enough to sample counts as not quiet). Then the flag it waits for comes from peers that run, soon,
     * and parking would cost a whole time slice of the other process. When other ranks' cores are busy too (a
     * machine loaded all over), a peer may itself be off its CPU for a slice, spinning would only use up this
     * rank's share, and the plain back-off measured best: false. Read by the wait strategy only after its ~100 µs of
     * spinning: a thread-local lookup and one volatile read, a few ns.
     */
    public boolean keepCore() {
        RankState s = current.get();
        return s != null && s.contended && quietRanks == registered - 1;
    }

    /**
     * One sample by the calling rank at time {@code now}: reads its run delay and judges the window since its
     * last sample when that is long enough.
     */
    public void sample(long now) {
        RankState s = current.get();
        if (s == null) {
            return;
        }
        long delay = s.runDelay.getAsLong();
        if (delay < 0) {
            s.windowDelay = -1;           // no schedstat: nothing to judge
            return;
        }
        long wall = now - s.windowStart;
        if (s.windowDelay < 0 || wall > MAX_WINDOW_NANOS || delay < s.windowDelay) {
            s.windowDelay = delay;        // the first sample, a stale window, or another thread: start afresh
            s.windowStart = now;
            return;
        }
        if (wall < MIN_WINDOW_NANOS) {
            return;                       // keep the window open until it says something
        }
        Verdict v = judge(delay - s.windowDelay, wall);
        boolean quiet = v == Verdict.QUIET && !s.contended;
        if (quiet != s.quiet) {
            synchronized (this) {
                setQuiet(s, quiet);
            }
        }
        if (v == Verdict.CONTENDED) {
            s.quietNanos = 0;
            if (!s.contended) {
                enter(s, (double) (delay - s.windowDelay) / wall, wall);
            }
        } else if (v == Verdict.QUIET && s.contended) {
            s.quietNanos += wall;
            if (s.quietNanos >= RECOVER_NANOS) {
                s.quietNanos = 0;
                leave(s);
            }
        }
        s.windowDelay = delay;
        s.windowStart = now;
    }

    /** The verdict on a window of {@code wallNanos} in which the rank was kept off its CPU {@code delayNanos}. */
    public static Verdict judge(long delayNanos, long wallNanos) {
        if (wallNanos < MIN_WINDOW_NANOS) {
            return Verdict.UNSURE;
        }
        double f = (double) delayNanos / wallNanos;
        return f >= CONTENDED_FRACTION ? Verdict.CONTENDED : f < QUIET_FRACTION ? Verdict.QUIET : Verdict.UNSURE;
    }

    /** Under the lock: counts a rank in or out of {@link #quietRanks}. */
    private void setQuiet(RankState s, boolean quiet) {
        if (quiet != s.quiet) {
            s.quiet = quiet;
            quietRanks += quiet ? 1 : -1;
        }
    }

    private synchronized void enter(RankState s, double fraction, long wall) {
        setQuiet(s, false);
        s.contended = true;
        contendedRanks++;
        episodes++;
        if (episodes == 1) {
            firstEpisode = String.format(Locale.ROOT, "rank %d runnable but not running %.0f%% of %.1f ms",
                    s.rank, 100 * fraction, wall / 1e6);
        }
        listener.contended(s.rank, fraction, wall);
    }

    private synchronized void leave(RankState s) {
        s.contended = false;
        contendedRanks--;
        setQuiet(s, true);   // it ends on quiet windows
    }

    /** Episodes so far: how often a rank of this team turned contended (0: never). */
    public synchronized int episodes() {
        return episodes;
    }

    /** One line for reports: empty when no contention was detected, else the episodes, the first one's figures, and now. */
    public synchronized String report() {
        if (episodes == 0) {
            return "";
        }
        return episodes + (episodes == 1 ? " episode" : " episodes") + " (first: " + firstEpisode + "); now "
                + (contendedRanks == 0 ? "no rank contended" : contendedRanks + " rank(s) contended");
    }

    /** Whether this kernel exposes per-thread scheduler statistics (CONFIG_SCHED_INFO): the detection needs them. */
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/thread-self/schedstat"));
    }

    /** The calling thread's run delay in ns, or -1 when it cannot be read. */
    public static long ownRunDelay() {
        try {
            return parseRunDelay(new String(Files.readAllBytes(Path.of("/proc/thread-self/schedstat")), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;   // no schedstat here: no sample
        }
    }

    /** The second field of a schedstat line ("on-cpu ns, run-queue ns, timeslices"), or -1 when malformed. */
    public static long parseRunDelay(String schedstat) {
        String[] f = schedstat.trim().split("\\s+");
        if (f.length < 2) {
            return -1;
        }
        try {
            long v = Long.parseLong(f[1]);
            return v >= 0 ? v : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
