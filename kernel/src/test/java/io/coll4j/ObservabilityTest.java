package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JFR events, the last calls in error messages, and {@link Team#stats()}. */
class ObservabilityTest {
    static final Duration BOUND = Duration.ofSeconds(30);
    static final long LATE_MS = 80;

    /**
     * A recording with the call event on gets one event per rank and call, naming the rank that arrived last
     * (rank 1 sleeps before every third allreduce) and how late it came; the waiting rank's wait time shows it.
     */
    @Test
    void callEventsNameTheLateRank(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("io.coll4j.CollectiveCall");
            rec.enable("io.coll4j.Team");
            rec.start();
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                    team.run(rank -> {
                        MemorySegment buf = rank.allocate(64);
                        for (int i = 0; i < 6; i++) {
                            if (rank.id() == 1 && i % 3 == 2) {
                                Thread.sleep(LATE_MS);
                            }
                            rank.allreduce(buf, buf, 8, DType.F64, Op.SUM);
                        }
                        rank.barrier();
                    });
                }
            });
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> calls = events.stream().filter(e -> e.getEventType().getName().equals("io.coll4j.CollectiveCall")).toList();
        assertEquals(14, calls.size(), "6 allreduces and a barrier on 2 ranks: " + calls);
        List<RecordedEvent> late = calls.stream()
                .filter(e -> e.getString("collective").equals("allreduce") && e.getInt("rank") == 0
                        && e.getLong("seq") % 3 == 0)
                .toList();
        assertEquals(2, late.size(), calls.toString());
        for (RecordedEvent e : late) {
            assertEquals(1, e.getInt("lastRank"), e.toString());
            assertTrue(e.getDuration("lateBy").toMillis() >= LATE_MS / 2, e.toString());
            assertTrue(e.getDuration("waitTime").toMillis() >= LATE_MS / 2, e.toString());
            assertEquals(64L, e.getLong("bytes"));
            assertEquals("f64", e.getString("dtype"));
            assertEquals("sum", e.getString("op"));
            assertEquals(2, e.getInt("teamSize"));
            assertFalse(e.getString("algorithm").isEmpty());
        }
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.coll4j.Team")
                && e.getString("action").equals("created")), "a team-created event");
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals("io.coll4j.Team")
                && e.getString("action").equals("closed")), "a team-closed event");
    }

    /** Every request form is an event from post to completion: one-shot, each round of a persistent one, and a chain. */
    @Test
    void requestsAreEvents(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("requests.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("io.coll4j.Request");
            rec.start();
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                    team.run(rank -> {
                        MemorySegment buf = rank.allocate(64);
                        rank.iallreduce(buf, buf, 8, DType.F64, Op.SUM).await();
                        try (PersistentRequest p = rank.allreduceInit(buf, buf, 4, DType.F64, Op.SUM)) {
                            for (int i = 0; i < 2; i++) {
                                p.start();
                                p.await();
                            }
                        }
                        rank.chain().allreduce(buf, buf, 2, DType.F64, Op.SUM).then(() -> { }).start().await();
                    });
                }
            });
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.coll4j.Request")).toList();
        for (int rank = 0; rank < 2; rank++) {
            int r = rank;
            List<RecordedEvent> mine = events.stream().filter(e -> e.getInt("rank") == r).toList();
            assertEquals(1, mine.stream().filter(e -> e.getString("kind").equals("one-shot") && e.getLong("bytes") == 64).count(),
                    "one iallreduce of 64 B and the chain's stage (16 B): " + mine);
            assertEquals(2, mine.stream().filter(e -> e.getString("kind").equals("persistent") && e.getLong("bytes") == 32).count(),
                    "two rounds of the persistent request: " + mine);
            RecordedEvent chain = mine.stream().filter(e -> e.getString("kind").equals("chain")).findFirst().orElseThrow();
            assertEquals(16L, chain.getLong("bytes"), chain.toString());
            assertNull(chain.getString("failure"), chain.toString());
            assertTrue(mine.stream().allMatch(e -> e.getInt("teamSize") == 2), mine.toString());
        }
    }

    /** An aborted team is an event with the failing rank and the cause. */
    @Test
    void abortIsAnEvent(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("abort.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("io.coll4j.Team");
            rec.start();
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                    assertThrows(RuntimeException.class, () -> team.run(rank -> {
                        if (rank.id() == 1) {
                            throw new IllegalStateException("boom on purpose");
                        }
                        rank.barrier();
                    }));
                }
            });
            rec.stop();
            rec.dump(file);
        }
        RecordedEvent abort = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.coll4j.Team") && e.getString("action").equals("aborted"))
                .findFirst().orElseThrow();
        assertEquals(1, abort.getInt("rank"));
        assertTrue(abort.getString("cause").contains("boom on purpose"), abort.toString());
    }

    /** A timeout names, for every rank, its last calls and whether each finished. */
    @Test
    void timeoutMessageCarriesTheLastCallsOfEveryRank() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofMillis(300)).build()) {
                Rank r0 = team.attach(0);
                Thread t1 = Thread.ofPlatform().start(() -> {
                    Rank r1 = team.attach(1);
                    r1.barrier();
                    r1.allreduce(1.0, Op.SUM);
                    // rank 1 never enters the bcast
                });
                r0.barrier();
                r0.allreduce(1.0, Op.SUM);
                seen.set(assertThrows(CollectiveTimeoutException.class,
                        () -> r0.bcast(r0.allocate(8), 1, DType.F64, 1)));
                t1.join();
            }
        });
        String m = seen.get().getMessage();
        assertTrue(m.contains("last calls: rank 0: #1 barrier"), m);
        assertTrue(m.contains("#2 allreduce(count=1, dtype=f64, op=sum)"), m);
        assertTrue(m.contains("#3 bcast"), m);
        assertTrue(m.contains("in progress"), m);
        assertTrue(m.contains("rank 1: #1 barrier"), m);
        assertTrue(m.contains("done"), m);
    }

    /** A rank that throws: the others' TeamAbortedException carries the last calls. */
    @Test
    void abortMessageCarriesTheLastCalls() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(10)).build()) {
                RuntimeException e = assertThrows(RuntimeException.class, () -> team.run(rank -> {
                    rank.allreduce(1L, Op.MAX);
                    if (rank.id() == 1) {
                        Thread.sleep(100);
                        throw new IllegalStateException("boom");
                    }
                    try {
                        rank.barrier();
                    } catch (TeamAbortedException t) {
                        seen.set(t);
                        throw t;
                    }
                }));
                assertNotNull(e);
            }
        });
        assertInstanceOf(TeamAbortedException.class, seen.get());
        String m = seen.get().getMessage();
        assertTrue(m.contains("last calls: rank 0: #1 allreduce"), m);
        assertTrue(m.contains("#2 barrier"), m);
    }

    /** Team.stats(): calls and bytes always, time only with statistics(true). */
    @Test
    void statsCountCallsBytesAndTime() {
        assertTimeoutPreemptively(BOUND, () -> {
            for (boolean timed : new boolean[]{false, true}) {
                try (Team team = Team.builder().ranks(3).statistics(timed).algorithm(Collective.ALLREDUCE, "direct").build()) {
                    team.run(rank -> {
                        MemorySegment buf = rank.allocate(80);
                        for (int i = 0; i < 5; i++) {
                            rank.allreduce(buf, buf, 10, DType.F64, Op.SUM);
                        }
                        rank.barrier();
                    });
                    TeamStats s = team.stats();
                    TeamStats.Row a = s.row(Collective.ALLREDUCE, "direct");
                    assertNotNull(a, s.toString());
                    assertEquals(15, a.calls());
                    assertEquals(15 * 80, a.bytes());
                    assertEquals(timed ? 15 : 0, a.timedCalls());
                    if (timed) {
                        assertTrue(a.time().toNanos() > 0);
                        assertNotNull(a.mean());
                    } else {
                        assertNull(a.mean());
                    }
                    assertEquals(3, s.rows().stream().filter(r -> r.collective() == Collective.BARRIER).mapToLong(TeamStats.Row::calls).sum());
                    assertTrue(s.toString().contains("allreduce"), s.toString());
                }
            }
        });
    }

    /**
     * With a recording running that leaves the call event off (JFR's default settings, as a continuous recording
     * in production), a loop of blocking bcasts allocates nothing per call, before C2 has compiled the path too:
     * the call path asks one probe event whether the call event is on and makes none (it made one per call, which
     * only C2's escape analysis removed).
     */
    @Test
    void blockingCallsAllocateNoEventWhileItIsOff() throws Exception {
        int calls = 4_000;
        long[] allocated = new long[2];
        try (Recording rec = new Recording()) {
            rec.start();
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = Team.builder().ranks(2).build()) {
                    team.run(rank -> {
                        MemorySegment buf = rank.allocate(8);
                        for (int round = 0; round < 2; round++) {
                            // the first round loads and links what the path uses; the second is measured
                            long before = threadAllocatedBytes();
                            for (int i = 0; i < calls; i++) {
                                rank.bcast(buf, 1, DType.F64, 0);
                            }
                            allocated[rank.id()] = threadAllocatedBytes() - before;
                        }
                    });
                }
            });
        }
        for (int r = 0; r < 2; r++) {
            // an object per call is at least 16 bytes: 4 000 calls would be 64 000 or more
            assertTrue(allocated[r] < calls * 4L, "rank " + r + " allocated " + allocated[r] + " bytes in " + calls + " bcasts");
        }
    }

    /**
     * {@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()}, reflectively: the module does not
     * read java.management (core reflection assumes readability; the test JVM resolves both modules).
     */
    static long threadAllocatedBytes() throws ReflectiveOperationException {
        Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        return (Long) Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes").invoke(bean);
    }

    static MemorySegment seg(long bytes) {
        return Arena.ofAuto().allocate(bytes, 64);
    }
}
