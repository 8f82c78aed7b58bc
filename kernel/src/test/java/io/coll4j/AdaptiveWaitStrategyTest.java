package io.coll4j;

import io.coll4j.kernel.sync.Contention;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The adaptive default: chosen when every rank has a CPU, its own monitor per team, and none when a strategy is forced. */
class AdaptiveWaitStrategyTest {

    @Test
    void isTheDefaultWithACpuPerRankAndParses() {
        assertSame(WaitStrategy.backoff(), WaitStrategy.defaultFor(2, 2));
        assertSame(WaitStrategy.backoffOversubscribed(), WaitStrategy.defaultFor(3, 2));
        assertSame(WaitStrategy.adaptive(), WaitStrategy.parse("adaptive"));
        assertEquals("adaptive", WaitStrategy.adaptive().alias());
        assertSame(WaitStrategy.spin(), WaitStrategy.parse("spin"));
    }

    @Test
    void aTeamGetsItsOwnMonitorAndForcedStrategiesGetNone() {
        try (Team a = Team.builder().ranks(2).placement(io.coll4j.topology.Placement.NONE).build();
             Team b = Team.builder().ranks(2).placement(io.coll4j.topology.Placement.NONE).waitStrategy(WaitStrategy.adaptive()).build();
             Team spin = Team.builder().ranks(2).placement(io.coll4j.topology.Placement.NONE).waitStrategy(WaitStrategy.spin()).build()) {
            // the default is not adaptive (an opt-in): no monitor
            assertNull(a.contention());
            assertEquals("", a.contentionReport());
            assertEquals("adaptive", b.waitStrategy().alias());
            assertTrue(b.contention() != null);
            assertSame(WaitStrategy.spin(), spin.waitStrategy());   // forced: pure spin, taken as it is
            assertNull(spin.contention());                          // no monitor: no /proc reads, no adaptation
            assertEquals("", spin.contentionReport());
            // collectives still work with the per-team instance
            spin.run(r -> r.barrier());
            b.run(r -> r.barrier());
            // b's report depends on the machine's load (it may have found a contended core): no assertion on it
        }
    }

    @Test
    void spinsPastTheBackoffOnlyWhileItsCoreIsTheContendedOne() throws Exception {
        Contention c = new Contention((rank, fraction, wall) -> { });
        AdaptiveWaitStrategy s = AdaptiveWaitStrategy.forTeam(c);
        // without a contended core: the dedicated back-off's schedule (spins, then parks of at most 100 us)
        long t0 = System.nanoTime();
        s.idle(BackoffWaitStrategy.DEDICATED_MAX_SPINS + 7);      // parks (100 us cap): returns after >= ~1 us
        assertTrue(System.nanoTime() - t0 > 0);
        AtomicLong delay = new AtomicLong();
        c.register(0, delay::get);
        c.sample(1_000_000_000L);
        delay.set(2_000_000);
        c.sample(1_004_000_000L);                                 // 2 of 4 ms queued: contended
        assertTrue(c.keepCore());
        // past the back-off's spins and below the contended limit: one PAUSE, no park (a 100 ms budget is ample)
        long t1 = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            s.idle(BackoffWaitStrategy.DEDICATED_MAX_SPINS + 30);
        }
        long spun = System.nanoTime() - t1;
        assertTrue(spun < 100_000_000L, "1000 idles took " + spun + " ns: they parked");
        assertFalse(WaitStrategy.adaptive().toString().isEmpty());
        c.unregister();
    }
}
