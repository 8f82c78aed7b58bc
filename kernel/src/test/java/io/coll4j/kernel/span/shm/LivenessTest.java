package io.coll4j.kernel.span.shm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The wait's liveness check through a held /proc/PID/stat ({@link Liveness}): a live process reads alive at every
 * check, the same held file reads it dead once it is killed and reaped, and a pid changed in the mapping (as the
 * fault tests write a dead one) is looked up afresh.
 */
class LivenessTest {
    @Test
    void aHeldProcFileSeesItsProcessDieAndAChangedPidIsLookedUpAfresh() throws Exception {
        Liveness l = new Liveness(2);
        Process p = new ProcessBuilder("sleep", "600").start();
        Process q = new ProcessBuilder("sleep", "600").start();
        try {
            assertTrue(l.alive(1, p.pid()));
            assertTrue(l.alive(1, p.pid()), "the second check reads the held file");
            p.destroyForcibly().waitFor();
            assertFalse(l.alive(1, p.pid()), "killed and reaped: the held file's read fails");
            assertTrue(l.alive(1, q.pid()), "another pid in the same process's line");
            q.destroyForcibly().waitFor();
            assertFalse(l.alive(1, q.pid()));
            assertTrue(l.alive(0, ProcessHandle.current().pid()));
            l.close();
            assertTrue(l.alive(0, ProcessHandle.current().pid()), "after close: the check without a held file");
            assertFalse(l.alive(1, q.pid()));
        } finally {
            p.destroyForcibly();
            q.destroyForcibly();
            l.close();
        }
    }
}
