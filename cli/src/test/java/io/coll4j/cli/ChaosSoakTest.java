package io.coll4j.cli;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bounded misuse soak of the test suite ({@link Chaos}, {@code collbench soak --chaos}): random blocking calls,
 * requests, persistent requests, chains and user ops on teams of 2..5 ranks with every kind of injected fault, held to
 * the error contract — no hang, no wrong result, no undocumented exception, no failed request that later looks
 * complete, no fault the contract says is reported going unreported. A fixed seed and a fresh one, ~12 s each (~100 faults each) (the
 * cap only shortens the run); a failure prints the summary with the team seed that reproduces it
 * ({@code collbench soak --chaos --replay TEAMSEED}).
 */
class ChaosSoakTest {
    static final Duration CAP = Duration.ofSeconds(12);

    static void chaos(long seed) {
        ChaosStats s = Chaos.run(Long.MAX_VALUE, seed, CAP, EnumSet.allOf(ChaosPlan.Fault.class), l -> {
        });
        String report = "collbench soak --chaos --seed " + seed + ":\n"
                + String.join("\n", ChaosStats.summary(s.toArray(), s.failures, s.notes));
        System.out.println(report);
        assertEquals(0, s.get(ChaosStats.HANGS), report);
        assertEquals(0, s.get(ChaosStats.WRONG), report);
        assertEquals(0, s.get(ChaosStats.UNDOCUMENTED), report);
        assertEquals(0, s.get(ChaosStats.REVIVED), report);
        assertEquals(0, s.missed(), report);
        assertTrue(s.get(ChaosStats.EPISODES) >= 5, report);
    }

    @Test
    void fixedSeed() {
        chaos(30);
    }

    @Test
    void freshSeed() {
        chaos(System.nanoTime());
    }
}
