package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;

/**
 * The terms the copy-only collectives (bcast, allgather) build their {@code cost} from, in the
 * {@link MachineModel}'s parameters. A copy of m bytes by one core costs m/b [HMPI §2.1]; which b
 * depends on where the copy's working set W lives and on the store kind the algorithm uses, exactly as
 * the adaptive-copy rule decides it [YHCCL §4.2, Alg. 1]:
 * <ul>
 *   <li>{@link #copyOut} — into a buffer not re-read soon (a receive buffer): temporal in cache when
 *       W ≤ C, non-temporal stores to DRAM when W &gt; C;</li>
 *   <li>{@link #copyIn} — into a staging buffer re-read at once (temporal whatever W is): the source
 *       streams from DRAM when W &gt; C;</li>
 *   <li>{@link #dram} — HMPI's congestion term {@code B·d·m} [HMPI §2.1]: when W &gt; C every byte that
 *       reaches DRAM shares the package's total bandwidth; in cache it is 0 (caches are fast enough to
 *       serve a large fan-out [HMPI §2.2]).</li>
 * </ul>
 * An algorithm's time is its synchronisation latencies plus the larger of its critical path of copies
 * (per core) and its DRAM traffic (all cores together).
 */
public final class CopyCost {
    private CopyCost() {
    }

    /** One core copying {@code bytes} into a buffer not re-read soon, in a collective of working set {@code ws}. */
    public static double copyOut(MachineModel m, long bytes, long ws) {
        return bytes / (ws > m.cacheCapacity() ? m.ntCopyBandwidth() : m.copyBandwidthCached());
    }

    /** One core copying {@code bytes} into a staging buffer that stays in cache (temporal stores). */
    public static double copyIn(MachineModel m, long bytes, long ws) {
        return bytes / (ws > m.cacheCapacity() ? m.copyBandwidthStream() : m.copyBandwidthCached());
    }

    /** All cores together moving {@code bytes} to or from DRAM: 0 while the working set fits the cache. */
    public static double dram(MachineModel m, long bytes, long ws) {
        return ws > m.cacheCapacity() ? bytes / m.memoryBandwidth() : 0;
    }

    /** One flag hand-over inside an LLC group (a_α): a modified line moved to the waiting core. */
    public static double flag(MachineModel m) {
        return m.lineLatencySameL3();
    }

    /**
     * Polling {@code n} peers' flags that are (mostly) already set: the lines arrive with overlapping
     * misses, about a quarter of a hand-over each.
     */
    public static double poll(MachineModel m, int n) {
        return n * m.lineLatencySameL3() / 4;
    }
}
