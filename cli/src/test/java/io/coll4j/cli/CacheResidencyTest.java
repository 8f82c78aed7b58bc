package io.coll4j.cli;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The pieces of {@code explain --measure}'s pricing that are arithmetic on measurements: the effective cache
 * capacity from a read sweep, where a consumed result is read from, the best of two re-measurements, and the
 * percentile of the error report.
 */
class CacheResidencyTest {
    static final long MIB = 1L << 20;

    @Test
    void capacityIsTheLargestWorkingSetStillReadAtLlcSpeed() {
        // LLC 48 GB/s, DRAM 12: the bar is half the lines hitting, 2 / (1/48 + 1/12) = 19.2 GB/s
        List<long[]> sweep = List.of(new long[]{2 * MIB, 48_000_000_000L}, new long[]{4 * MIB, 47_000_000_000L},
                new long[]{8 * MIB, 20_000_000_000L}, new long[]{16 * MIB, 19_000_000_000L}, new long[]{32 * MIB, 45_000_000_000L});
        // 16 MiB fell below the bar: 32 MiB reading fast again afterwards (another tenant went quiet) does not count
        assertEquals(8 * MIB, CacheResidency.capacity(sweep, 48e9, 12e9, MIB));
        // even the first below the bar: two L2s
        assertEquals(2 * MIB, CacheResidency.capacity(List.of(new long[]{2 * MIB, 19_000_000_000L}), 48e9, 12e9, MIB));
        assertEquals(2 * MIB, CacheResidency.capacity(List.of(), 48e9, 12e9, MIB));
    }

    @Test
    void aResultIsReadFromL2ThenTheLlcThenDram() {
        CacheResidency r = new CacheResidency(80e9, 40e9, 10e9, 16 * MIB, 10e-9);
        assertEquals(10e-9 + 64e3 / 80e9, r.readTime(64_000, 128 * 1024, 256 * 1024, MIB), 1e-15);
        assertEquals(10e-9 + 2e6 / 40e9, r.readTime(2_000_000, 4 * MIB, 8 * MIB, MIB), 1e-15);
        assertEquals(10e-9 + 8e6 / 10e9, r.readTime(8_000_000, 16 * MIB, 32 * MIB, MIB), 1e-15);
        assertEquals(10e-9 + 64e3 / 20e9, r.withL2(20e9).readTime(64_000, 128 * 1024, 256 * 1024, MIB), 1e-15);
        // a result of 8 bytes costs the read's fixed part; nothing read, nothing paid
        assertEquals(10e-9 + 8 / 80e9, r.readTime(8, 64, 128, MIB), 1e-15);
        assertEquals(0.0, r.readTime(0, 0, 0, MIB));
    }

    @Test
    void theBestOfTwoRemeasurementsTakesEachParametersUndisturbedValue() {
        MachineModel fast = new MachineModel(35e-9, 150e-9, 250e-9, 46e9, 19e9, 20e9, 45e9, 40e9, 28e9, 9e9, 8 * MIB, MIB,
                "a", null, null, 300e-9);
        MachineModel slow = new MachineModel(170e-9, 150e-9, 250e-9, 22e9, 15e9, 12e9, 70e9, 40e9, 27e9, 10e9, 8 * MIB, MIB,
                "b", null, null, 140e-9);
        MachineModel b = ModelProbe.best(fast, slow);
        assertEquals(35e-9, b.lineLatencySameL3());
        assertEquals(140e-9, b.callOverhead());
        assertEquals(46e9, b.copyBandwidthCached());
        assertEquals(19e9, b.copyBandwidthStream());
        assertEquals(20e9, b.ntCopyBandwidth());
        assertEquals(70e9, b.memoryBandwidth());
        assertEquals(28e9, b.reduceCachedByDtype().get(DType.F32));
        assertEquals(10e9, b.reduceStreamByDtype().get(DType.F64));
        assertEquals(8 * MIB, b.cacheCapacity());
        assertEquals("a", b.source());
    }

    @Test
    void percentileIsTheNearestRank() {
        List<Double> ten = List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0);
        assertEquals(9.0, ExplainCommand.percentile(ten, 0.9));
        assertEquals(5.0, ExplainCommand.percentile(ten, 0.5));
        assertEquals(3.0, ExplainCommand.percentile(List.of(1.0, 2.0, 3.0), 0.9));
    }
}
