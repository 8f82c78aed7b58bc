package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.Schedule;
import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Rank#allgatherShared}: one shared result per team, returned as a read-only view [MPI+MPI §4.1].
 * Checked: the contents for every dtype, counts 0, 1, odd, p = 1, 2, 3, 5, heap and native send buffers;
 * the view is read-only; it stays intact until the rank's own next collective even while the other
 * ranks are already writing the next shared result; a rank calling {@code allgather} while another calls
 * {@code allgatherShared} is a mismatch, not a hang; bad arguments; nobody reads a peer's buffers.
 */
class SharedViewAllgatherTest {
    static final Duration BOUND = Duration.ofSeconds(60);

    static Team team(int p) {
        return Team.builder().ranks(p).timeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void everyRankSeesEveryBlockReadOnly() {
        for (int p : new int[]{1, 2, 3, 5}) {
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            Schedule schedule = new Schedule();
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(20)).recordSchedule(schedule).build()) {
                team.run(rank -> {
                    long salt = 1;
                    for (long count : new long[]{0, 1, 7, 1001}) {
                        for (DType t : DType.values()) {
                            for (boolean heap : new boolean[]{true, false}) {
                                salt++;
                                MemorySegment send = heap ? MemorySegment.ofArray(new long[(int) count + 1]).asSlice(0, count * t.size())
                                        : rank.allocate(count * t.size());
                                Values.fill(send, 0, t, null, rank.id(), count, salt, true);
                                MemorySegment view = rank.allgatherShared(send, count, t);
                                if (view.byteSize() != count * t.size() * p || !view.isReadOnly()) {
                                    failures.add("size " + view.byteSize() + " readOnly " + view.isReadOnly());
                                    continue;
                                }
                                for (int q = 0; q < p; q++) {
                                    for (long i = 0; i < count; i++) {
                                        long e = Values.inputBits(t, null, q, i, salt, true);
                                        long a = Values.read(view, q * count * t.size(), t, i);
                                        if (e != a && failures.size() < 20) {
                                            failures.add(t + " count " + count + " rank " + rank.id() + " block " + q + " [" + i + "]");
                                        }
                                    }
                                }
                                if (count > 0) {
                                    try {
                                        view.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) 1);
                                        failures.add("a write to the view succeeded");
                                    } catch (UnsupportedOperationException | IllegalArgumentException expected) {
                                        // read-only
                                    }
                                }
                            }
                        }
                    }
                });
            }
            assertTrue(failures.isEmpty(), () -> "p=" + p + ": " + failures.stream().limit(5).toList());
            assertTrue(schedule.events().stream().allMatch(e -> e.action().equals("write-shared") && e.peer() == 0),
                    "ranks meet only in the shared result: " + schedule.events());
        }
    }

    /**
     * The slow rank checks its view of collective s after the others have entered s + 1 — another
     * allgatherShared, whose blocks they write into the next shared result at once — and before it enters
     * s + 1 itself. Each rank in turn is the slow one (rank 0 holds the shared result).
     */
    @Test
    void theViewHoldsUntilTheRanksNextCollective() {
        int p = 3;
        long count = 513;
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = team(p)) {
            team.run(rank -> {
                for (int slow = 0; slow < p; slow++) {
                    for (int round = 0; round < 4; round++) {
                        long salt = 100L * slow + round;
                        MemorySegment send = rank.allocate(count * 8);
                        Values.fill(send, 0, DType.F64, null, rank.id(), count, salt, true);
                        MemorySegment view = rank.allgatherShared(send, count, DType.F64);
                        if (rank.id() == slow) {
                            LockSupport.parkNanos(20_000_000);            // the others enter the next call meanwhile
                            for (int q = 0; q < p; q++) {
                                for (long i = 0; i < count; i++) {
                                    if (Values.inputBits(DType.F64, null, q, i, salt, true)
                                            != Values.read(view, q * count * 8, DType.F64, i) && failures.size() < 20) {
                                        failures.add("slow rank " + slow + " round " + round + " block " + q + " [" + i + "]");
                                    }
                                }
                            }
                        }
                    }
                    rank.barrier();
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> failures.stream().limit(5).toList().toString());
    }

    @Test
    void allgatherAgainstAllgatherSharedIsAMismatch() {
        Throwable thrown = assertTimeoutPreemptively(BOUND, () -> assertThrows(RuntimeException.class, () -> {
            try (Team team = team(2)) {
                team.run(rank -> {
                    MemorySegment send = rank.allocate(64);
                    if (rank.id() == 0) {
                        rank.allgatherShared(send, 8, DType.F64);
                    } else {
                        rank.allgather(send, rank.allocate(128), 8, DType.F64);
                    }
                });
            }
        }));
        assertMismatch(thrown);
    }

    /** {@code thrown}, its causes or their suppressed exceptions include a {@link CollectiveMismatchException}. */
    static void assertMismatch(Throwable thrown) {
        boolean mismatch = false;
        for (Throwable t = thrown; t != null && !mismatch; t = t.getCause()) {
            mismatch = t instanceof CollectiveMismatchException;
            for (Throwable s : t.getSuppressed()) {
                mismatch |= s instanceof CollectiveMismatchException;
            }
        }
        assertTrue(mismatch, "expected a CollectiveMismatchException, got " + thrown);
    }

    @Test
    void badArgumentsNameTheArgument() {
        try (Team team = team(1)) {
            team.run(rank -> {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> rank.allgatherShared(rank.allocate(8), -1, DType.F64));
                assertTrue(e.getMessage().contains("sendCount"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allgatherShared(null, 1, DType.F64));
                assertTrue(e.getMessage().contains("send"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allgatherShared(rank.allocate(8), 2, DType.F64));
                assertTrue(e.getMessage().contains("send"), e.getMessage());
            });
        }
    }

    @Test
    void neverPickedForAnAllgatherIntoReceiveBuffers() {
        assertFalse(AlgorithmCatalog.of(Collective.ALLGATHER).stream().anyMatch(a -> a.name().equals("shared-view")),
                "not a catalogue algorithm: allgather must fill recv");
    }
}
