package io.coll4j.kernel.model;

import io.coll4j.topology.Topology;

/**
 * The machine parameters the algorithms' cost functions are written in (DESIGN §5, [HMPI §2.1]):
 * a read or write of m contiguous bytes costs {@code a + m/b}; {@code a} is a latency (one cache-line
 * transfer between cores), {@code b} a bandwidth. All times in seconds, bandwidths in bytes/second.
 *
 * @param lineLatencySameL3      a_α: one modified line moved between two cores sharing the LLC
 * @param lineLatencyCrossL3     between cores of one package in different LLC groups
 * @param lineLatencyCrossPackage a_β: between packages
 * @param copyBandwidthCached    one core copying in cache (read + write of m bytes takes m / this)
 * @param copyBandwidthStream    one core copying from/to DRAM with temporal stores
 * @param ntCopyBandwidth        one core copying to DRAM with non-temporal stores
 * @param memoryBandwidth        all cores of a package together, DRAM (1/B_α of HMPI's congestion term)
 * @param crossPackageBandwidth  all traffic between two packages together (1/B_β)
 * @param reduceBandwidthCached  one core, {@code dst = a op b} in cache, bytes of dst per second (f64 sum)
 * @param reduceBandwidthStream  the same from/to DRAM
 * @param cacheCapacity          C of [YHCCL §4.2]: LLC, or LLC + p·L2 for a non-inclusive LLC
 * @param l2Bytes                private L2 per core (sets the default slice size of the sliced algorithms)
 * @param source                 where the numbers come from: "defaults for <topology>" or a profile path
 */
public record MachineModel(
        double lineLatencySameL3,
        double lineLatencyCrossL3,
        double lineLatencyCrossPackage,
        double copyBandwidthCached,
        double copyBandwidthStream,
        double ntCopyBandwidth,
        double memoryBandwidth,
        double crossPackageBandwidth,
        double reduceBandwidthCached,
        double reduceBandwidthStream,
        long cacheCapacity,
        long l2Bytes,
        String source) {

    /**
     * Defaults for a topology, from typical 2020s x86 server numbers: ~80 ns to move a modified line
     * inside an LLC group, ~150 ns across LLC groups, ~250 ns across packages; ~25 GB/s single-core
     * copy in cache, ~10 GB/s to DRAM (~14 GB/s with NT stores); ~20 GB/s of DRAM per core up to
     * ~100 GB/s per package. `collbench tune` replaces them with measurements.
     */
    public static MachineModel defaults(Topology t) {
        int coresPerPackage = Math.max(1, t.cores().size() / Math.max(1, t.packages().size()));
        double mem = Math.min(100e9, 20e9 * coresPerPackage);
        long l2 = t.l2Bytes() > 0 ? t.l2Bytes() : 1L << 20;
        long llc = t.llcBytes() > 0 ? t.llcBytes() : 8L << 20;
        return new MachineModel(80e-9, 150e-9, 250e-9, 25e9, 10e9, 14e9, mem, 40e9, 20e9, 8e9,
                t.llcInclusive() ? llc : llc + l2 * t.cores().size(), l2, "defaults for " + t.source());
    }

    /**
     * Default I_max [YHCCL §5.1]: a quarter of the private L2, so a slice of every input plus the output
     * stay in L2 between copy-in and reduction (YHCCL used 256 KiB with 512 KiB L2s).
     */
    public long defaultMaxSliceBytes() {
        return Math.max(4096, l2Bytes / 4);
    }

    /** Time of the cheapest synchronisation between two ranks at a level: one line there and back is 2·a. */
    public double flagLatency(boolean samePackage) {
        return samePackage ? lineLatencySameL3 : lineLatencyCrossPackage;
    }

    /** Single-core copy time of {@code bytes}: in cache when the working set {@code ws} fits the cache capacity. */
    public double copyTime(long bytes, long ws) {
        return bytes / (ws <= cacheCapacity ? copyBandwidthCached : copyBandwidthStream);
    }

    /** Single-core {@code dst = a op b} time for {@code bytes} of dst. */
    public double reduceTime(long bytes, long ws) {
        return bytes / (ws <= cacheCapacity ? reduceBandwidthCached : reduceBandwidthStream);
    }
}
