package io.coll4j;

import io.coll4j.bindings.libc.CpuAffinity;
import io.coll4j.kernel.sync.Contention;
import io.coll4j.topology.Fallbacks;

import java.util.List;
import java.util.Locale;

/**
 * Makes a contention episode visible and moves the contended rank off its core: the adaptive strategy reacts by
 * itself (it reads the rank's state); this records the first episode of the process in {@link Fallbacks} (logged
 * once through System.Logger, listed by {@code collbench topo}), and every episode counts in the team's
 * {@link Team#contentionReport()}, which {@code collbench} and the examples print after their tables.
 *
 * <p><b>Leaving the core.</b> A rank bound to a core that another CPU-bound process shares gets half of it, in
 * slices of milliseconds, however it waits: its slab of a statically split computation then takes as long as the
 * whole computation on one free core, so the team can at best tie with one thread. Bound, it cannot use the core
 * its peer leaves idle while it waits for it. So the contended rank's thread, once every peer's core was found
 * quiet ({@link Contention}: a machine loaded all over keeps its ranks bound), widens its affinity to the CPUs the
 * team's creating thread may use (never beyond what the process was given: under {@code mpirun --bind-to core}
 * that is one core, and nothing moves), and the scheduler may run it wherever a core is idle.
 */
final class ContentionResponse implements Contention.Listener {
    /** The CPUs a moved rank may run on: the team creator's affinity; empty when ranks are not bound or it is unknown. */
    private final int[] allowed;

    private ContentionResponse(int[] allowed) {
        this.allowed = allowed;
    }

    /** The response of a team whose ranks are bound to PUs when {@code binds}; read on the creating thread. */
    static ContentionResponse forTeam(boolean binds) {
        int[] cpus = new int[0];
        if (binds && CpuAffinity.isAvailable()) {
            try {
                cpus = CpuAffinity.currentThread().stream().mapToInt(Integer::intValue).toArray();
            } catch (RuntimeException e) {
                cpus = new int[0];   // affinity unreadable: ranks stay where they are bound
            }
        }
        return new ContentionResponse(cpus);
    }

    @Override
    public void contended(int rank, double fraction, long windowNanos) {
        Fallbacks.note("waiting", String.format(Locale.ROOT,
                "contention: rank %d was runnable but not running %.0f%% of %.1f ms (another process shares its core): "
                        + "once every other rank's core is found quiet its thread leaves the core it was bound to (%s); "
                        + "while it stays bound and the others' cores are quiet its waits spin up to ~%d PAUSEs (~1 ms) "
                        + "before parking instead of ~%d, until %d ms in a row look quiet (--wait spin / WaitStrategy.spin(): no detection)",
                rank, 100 * fraction, windowNanos / 1e6, allowed.length > 1 ? "it may then run on CPUs " + join(allowed) : "here it cannot: one CPU or ranks not bound",
                AdaptiveWaitStrategy.CONTENDED_MAX_SPINS, BackoffWaitStrategy.DEDICATED_MAX_SPINS,
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(Contention.RECOVER_NANOS)));
    }

    @Override
    public boolean leaveCore(int rank) {
        return widen(allowed);
    }

    /**
     * Widens the calling thread's affinity to {@code cpus} when that is more than it may use now; true when it did.
     * Package-private for tests.
     */
    static boolean widen(int[] cpus) {
        if (cpus.length < 2) {
            return false;
        }
        try {
            List<Integer> now = CpuAffinity.currentThread();
            if (now.size() >= cpus.length) {
                return false;   // not narrower than what it could be given: nothing to leave
            }
            CpuAffinity.setCurrentThread(cpus);
            return true;
        } catch (RuntimeException e) {
            return false;       // a failed widening leaves the rank bound, and the adaptive spinning applies
        }
    }

    private static String join(int[] cpus) {
        StringBuilder b = new StringBuilder();
        for (int c : cpus) {
            b.append(b.isEmpty() ? "" : ",").append(c);
        }
        return b.toString();
    }
}
