package io.coll4j;

import io.coll4j.kernel.sync.Contention;
import io.coll4j.topology.Fallbacks;

import java.util.Locale;

/**
 * Makes a contention episode visible: the adaptive strategy reacts by itself (it reads the rank's state), and
 * this records the first episode of the process in {@link Fallbacks} (logged once through System.Logger, listed
 * by {@code collbench topo}); every episode counts in the team's {@link Team#contentionReport()}, which
 * {@code collbench} and the examples print after their tables.
 */
final class ContentionResponse implements Contention.Listener {

    @Override
    public void contended(int rank, double fraction, long windowNanos) {
        Fallbacks.note("waiting", String.format(Locale.ROOT,
                "contention: rank %d was runnable but not running %.0f%% of %.1f ms (another process shares its core): "
                        + "while no other rank's core is contended its waits spin up to ~%d PAUSEs (~1 ms) before parking instead of ~%d, "
                        + "so it keeps the core, "
                        + "until %d ms in a row look quiet (--wait spin / WaitStrategy.spin(): no detection)",
                rank, 100 * fraction, windowNanos / 1e6, AdaptiveWaitStrategy.CONTENDED_MAX_SPINS,
                BackoffWaitStrategy.DEDICATED_MAX_SPINS, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(Contention.RECOVER_NANOS)));
    }
}
