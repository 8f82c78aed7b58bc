package io.coll4j.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bounded soak of the test suite: random collective × algorithm × dtype × op × size × root × in
 * place × heap/native/unaligned on teams of 2..5 ranks, reproducible and not, against the scalar
 * reference — a fixed seed (reproducible: a failure names its seed and call) and a fresh one.
 * Bounded to ~25 s each on a loaded machine (the time cap only shortens the run; correctness is
 * checked on whatever ran).
 */
class SoakTest {
    static final Duration CAP = Duration.ofSeconds(25);

    static void soak(long seed) {
        Soak.Result r = Soak.run(12_000, seed, CAP);
        assertEquals(0, r.wrong, "seed " + seed + ": " + String.join("\n", r.failures));
        assertTrue(r.calls >= Soak.CALLS_PER_TEAM, "calls made: " + r.calls);
    }

    @Test
    void fixedSeed() {
        soak(19);
    }

    @Test
    void freshSeed() {
        soak(System.nanoTime());
    }
}
