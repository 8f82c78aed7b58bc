package io.coll4j.examples;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The median and the tail figures of the examples' iteration times, from synthetic durations. */
class IterationTimesTest {

    @Test
    void theTailSaysHowMuchOfTheTimeWentToSlowIterations() {
        IterationTimes t = new IterationTimes();
        assertEquals("", t.tail());
        for (int i = 0; i < 18; i++) {
            t.add(100_000);                 // 100 us: the loop's own cost
        }
        t.add(150_000);                     // slower, but not over twice the median
        t.add(3_000_000);                   // 3 ms: one time slice spent off the CPU
        assertEquals(100e-6, t.medianSeconds(), 1e-12);
        // 20 iterations: the 18th is the 90th percentile; 3 ms of the 4.95 ms in all (61%) went to the slow one
        assertEquals("p90 it 100.0 us, max it 3000.0 us, 61% of the time in its > 2x median", t.tail());
    }
}
