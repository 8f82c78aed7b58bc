package io.coll4j.kernel.sync;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The detector's decisions from synthetic schedstat figures: parsing, the verdict of a window, the state and its hysteresis. */
class ContentionTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void parsesTheRunDelayField() {
        assertEquals(2020212, Contention.parseRunDelay("4385062 2020212 3\n"));
        assertEquals(-1, Contention.parseRunDelay("4385062"));
        assertEquals(-1, Contention.parseRunDelay("a b c"));
        assertEquals(-1, Contention.parseRunDelay(""));
    }

    @Test
    void readsThisThreadsSchedstatWhereLinuxHasIt() {
        if (Contention.available()) {
            assertTrue(Contention.ownRunDelay() >= 0);
        } else {
            assertEquals(-1, Contention.ownRunDelay());
        }
    }

    @Test
    void judgesAWindowByTheShareOfTimeSpentQueued() {
        assertEquals(Contention.Verdict.CONTENDED, Contention.judge(5 * MS, 10 * MS));   // a core shared with a busy loop: ~50%
        assertEquals(Contention.Verdict.CONTENDED, Contention.judge(25 * MS / 10, 10 * MS));
        assertEquals(Contention.Verdict.QUIET, Contention.judge(MS / 10, 10 * MS));     // a core of its own: a tick or two
        assertEquals(Contention.Verdict.UNSURE, Contention.judge(MS, 10 * MS));          // between: keep the state
        assertEquals(Contention.Verdict.UNSURE, Contention.judge(MS, MS));               // too short to say
    }

    /** A rank whose synthetic run delay grows by {@code share} of each sampled millisecond. */
    private static final class Fake {
        final AtomicLong delay = new AtomicLong();
        long now = 1_000 * MS;

        void advance(long wall, double share, Contention c) {
            now += wall;
            delay.addAndGet((long) (share * wall));
            c.sample(now);
        }
    }

    @Test
    void aContendedRankKeepsItsCoreUntilQuietLongEnoughAndReportsOnce() {
        List<String> events = new ArrayList<>();
        Contention c = new Contention((rank, fraction, wall) -> events.add(rank + ":" + Math.round(fraction * 100)));
        Fake f = new Fake();
        c.register(1, f.delay::get);
        assertFalse(c.keepCore());
        f.advance(0, 0, c);                 // opens the window
        f.advance(MS, 0.5, c);              // 1 ms: too short, the window stays open
        assertFalse(c.keepCore());
        f.advance(MS, 0.5, c);              // 2 ms at 50%: contended
        assertTrue(c.keepCore());
        assertEquals(List.of("1:50"), events);
        assertEquals(1, c.episodes());
        assertTrue(c.report().contains("rank 1 runnable but not running 50% of 2.0 ms"), c.report());
        for (int i = 0; i < 10; i++) {
            f.advance(5 * MS, 0.10, c);     // between the thresholds: the state holds
        }
        assertTrue(c.keepCore());
        for (int i = 0; i < 9; i++) {
            f.advance(10 * MS, 0.01, c);    // 90 ms quiet: not yet enough
        }
        assertTrue(c.keepCore());
        f.advance(10 * MS, 0.30, c);        // contended again: the quiet count starts over, no new episode
        for (int i = 0; i < 9; i++) {
            f.advance(10 * MS, 0.01, c);
        }
        assertTrue(c.keepCore());
        f.advance(10 * MS, 0.01, c);        // 100 ms quiet in a row: back to the plain back-off
        assertFalse(c.keepCore());
        assertEquals(1, c.episodes());
        assertTrue(c.report().endsWith("now no rank contended"), c.report());
        f.advance(3 * MS, 0.6, c);          // a second episode
        assertTrue(c.keepCore());
        assertEquals(2, c.episodes());
        assertEquals(2, events.size());
    }

    @Test
    void aStaleOrRestartedWindowIsNotJudged() {
        Contention c = new Contention((rank, fraction, wall) -> { });
        Fake f = new Fake();
        c.register(0, f.delay::get);
        f.advance(0, 0, c);
        f.advance(300 * MS, 0.9, c);        // longer than MAX_WINDOW_NANOS: another phase of the program, start afresh
        assertFalse(c.keepCore());
        f.delay.set(0);                     // a new thread: its run delay starts again from 0
        f.advance(5 * MS, 0, c);
        assertFalse(c.keepCore());
        f.advance(5 * MS, 0.5, c);          // judged from the restarted window
        assertTrue(c.keepCore());
    }

    @Test
    void keepsTheCoreOnlyWhileNoOtherRanksCoreIsContended() throws Exception {
        Contention c = new Contention((rank, fraction, wall) -> { });
        Fake mine = new Fake();
        c.register(0, mine.delay::get);
        mine.advance(0, 0, c);
        mine.advance(3 * MS, 0.5, c);
        assertTrue(c.keepCore());
        // rank 1, on another thread, finds its core contended too: the machine is loaded all over
        Thread other = Thread.ofPlatform().start(() -> {
            Fake f = new Fake();
            c.register(1, f.delay::get);
            f.advance(0, 0, c);
            f.advance(3 * MS, 0.5, c);
        });
        other.join();
        assertFalse(c.keepCore());
        assertEquals(2, c.episodes());
        assertTrue(c.report().endsWith("now 2 rank(s) contended"), c.report());
    }

    @Test
    void keepsTheCoreOnlyWithEvidenceThatThePeersAreQuiet() throws Exception {
        Contention c = new Contention((rank, fraction, wall) -> { });
        Fake mine = new Fake();
        c.register(0, mine.delay::get);
        java.util.concurrent.CountDownLatch registered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch judgeQuiet = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch judged = new java.util.concurrent.CountDownLatch(1);
        Thread peer = Thread.ofPlatform().start(() -> {
            Fake f = new Fake();
            c.register(1, f.delay::get);
            registered.countDown();
            try {
                judgeQuiet.await();
            } catch (InterruptedException e) {
                return;
            }
            f.advance(0, 0, c);
            f.advance(5 * MS, 0.01, c);     // the peer's core: quiet
            judged.countDown();
        });
        registered.await();
        mine.advance(0, 0, c);
        mine.advance(3 * MS, 0.5, c);
        assertFalse(c.keepCore());          // the peer never sampled: no evidence that it runs, so the plain back-off
        judgeQuiet.countDown();
        judged.await();
        assertTrue(c.keepCore());           // the case: this core shared with a busy loop, the peer's free
        peer.join();
    }

    @Test
    void unknownRunDelayAndUnregisteredThreadsDecideNothing() {
        Contention c = new Contention((rank, fraction, wall) -> { });
        c.sample(5 * MS);                   // no rank on this thread
        assertFalse(c.keepCore());
        c.register(0, () -> -1);            // no schedstat
        c.sample(10 * MS);
        c.sample(20 * MS);
        assertFalse(c.keepCore());
        assertEquals("", c.report());
        Fake f = new Fake();
        c.register(0, f.delay::get);
        f.advance(0, 0, c);
        f.advance(3 * MS, 0.5, c);
        assertTrue(c.keepCore());
        c.unregister();                     // the rank's thread lets go: its contended state goes with it
        assertFalse(c.keepCore());
        assertTrue(c.report().endsWith("now no rank contended"), c.report());
    }
}
