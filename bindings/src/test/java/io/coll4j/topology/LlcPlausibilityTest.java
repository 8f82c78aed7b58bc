package io.coll4j.topology;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reported LLC larger than 64 MiB per core it serves (a KVM guest reports a 508 MB L3 per core) is not
 * believed: {@link Topology#llcBytes} falls back to {@link Topology#DEFAULT_LLC_BYTES} and
 * {@link Topology#llcNote} says why, while {@link Topology#caches} keeps what was reported.
 */
class LlcPlausibilityTest {
    @Test
    void aKvmStyleL3PerCoreIsReplacedByTheDefault() {
        Topology t = Topology.load("synthetic:pack:1 numa:1 l3:2(size=508MB) l2:1(size=1MB) core:1 pu:1");
        assertEquals(Topology.DEFAULT_LLC_BYTES, t.llcBytes());
        assertTrue(t.llcNote().contains("implausible"), t.llcNote());
        assertEquals(508_000_000L, t.caches().getLast().sizeBytes(), "caches() keeps the reported size");
    }

    @Test
    void realServerSizesAreBelieved() {
        Topology big = Topology.load("synthetic:pack:2 numa:1 l3:1(size=32MB) core:8 pu:2");
        assertEquals(32_000_000L, big.llcBytes(), "synthetic MB are 10^6 bytes");
        assertEquals("", big.llcNote());
        // stacked-cache parts: 96 MB shared by 8 cores
        Topology vcache = Topology.load("synthetic:pack:1 numa:1 l3:1(size=96MB) core:8 pu:1");
        assertEquals(96_000_000L, vcache.llcBytes());
        assertEquals("", vcache.llcNote());
    }

    @Test
    void theRuleItself() {
        assertEquals("", Topology.implausibleLlc(0, 1, 0), "no cache: nothing to judge");
        assertEquals("", Topology.implausibleLlc(64L << 20, 1, 0), "64 MiB for one core is the limit");
        assertTrue(!Topology.implausibleLlc((64L << 20) + 1, 1, 0).isEmpty());
        assertTrue(!Topology.implausibleLlc(256L << 20, 8, 128L << 20).isEmpty(), "larger than the memory");
    }
}
