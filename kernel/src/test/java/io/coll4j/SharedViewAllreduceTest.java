package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.Schedule;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Rank#allreduceShared}: one shared reduction per team, returned as a read-only view [MPI+MPI §4.1].
 * Checked: every dtype × op against the scalar left fold in rank order, bitwise (random floats, so any
 * other order would show), counts 0, 1, odd, not divisible by p or the vector length, and tiles of several
 * fold strips (heap sources fold through a heap strip into the native result), p = 1, 2, 3, 5, 8,
 * heap and native send buffers, the send buffer untouched; the view is read-only and holds until the
 * rank's own next collective while the others already fold the next one; {@code allreduce} against
 * {@code allreduceShared} is a mismatch, not a hang; bad arguments name the argument.
 */
class SharedViewAllreduceTest {
    static final Duration BOUND = Duration.ofSeconds(60);

    static Team team(int p) {
        return Team.builder().ranks(p).timeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void everyRankSeesTheRankOrderFold() {
        for (int p : new int[]{1, 2, 3, 5, 8}) {
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            Schedule schedule = new Schedule();
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(20)).recordSchedule(schedule).build()) {
                team.run(rank -> {
                    long salt = 1;
                    for (long count : new long[]{0, 1, 7, 301, 1001, 20_011}) {
                        for (DType t : DType.values()) {
                            for (Op op : Op.values()) {
                                if (!op.supports(t)) {
                                    continue;
                                }
                                boolean heap = (salt & 1) == 0;
                                salt++;
                                MemorySegment send = heap
                                        ? MemorySegment.ofArray(new long[(int) count + 1]).asSlice(0, count * t.size())
                                        : rank.allocate(count * t.size());
                                Values.fill(send, 0, t, op, rank.id(), count, salt, false);
                                MemorySegment view = rank.allreduceShared(send, count, t, op);
                                if (view.byteSize() != count * t.size() || !view.isReadOnly()) {
                                    failures.add("size " + view.byteSize() + " readOnly " + view.isReadOnly());
                                    continue;
                                }
                                for (long i = 0; i < count; i++) {
                                    long e = Values.foldBits(t, op, p, i, salt, false);
                                    if (!Values.same(t, e, Values.read(view, 0, t, i)) && failures.size() < 20) {
                                        failures.add(t + " " + op + " count " + count + " rank " + rank.id() + " [" + i + "]");
                                    }
                                    if (Values.inputBits(t, op, rank.id(), i, salt, false) != Values.read(send, 0, t, i)
                                            && failures.size() < 20) {
                                        failures.add(t + " " + op + " send changed at [" + i + "]");
                                    }
                                }
                                if (count > 0) {
                                    try {
                                        view.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
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
            assertTrue(schedule.events().stream().allMatch(e -> e.action().equals("fold")
                            || e.action().equals("write-shared") && e.peer() == 0),
                    "ranks read send buffers and write the holder's result only: " + schedule.events());
        }
    }

    /**
     * The slow rank checks its view of collective s after the others have entered s + 1 (another
     * allreduceShared, whose tiles they fold into the next shared result at once) and before it enters
     * s + 1 itself; each rank in turn is the slow one.
     */
    @Test
    void theViewHoldsUntilTheRanksNextCollective() {
        int p = 3;
        long count = 1027;
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = team(p)) {
            team.run(rank -> {
                for (int slow = 0; slow < p; slow++) {
                    for (int round = 0; round < 4; round++) {
                        long salt = 100L * slow + round;
                        MemorySegment send = rank.allocate(count * 8);
                        Values.fill(send, 0, DType.F64, Op.SUM, rank.id(), count, salt, false);
                        MemorySegment view = rank.allreduceShared(send, count, DType.F64, Op.SUM);
                        if (rank.id() == slow) {
                            LockSupport.parkNanos(20_000_000);            // the others enter the next call meanwhile
                            for (long i = 0; i < count; i++) {
                                if (Values.foldBits(DType.F64, Op.SUM, p, i, salt, false) != Values.read(view, 0, DType.F64, i)
                                        && failures.size() < 20) {
                                    failures.add("slow rank " + slow + " round " + round + " [" + i + "]");
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
    void allreduceAgainstAllreduceSharedIsAMismatch() {
        Throwable thrown = assertTimeoutPreemptively(BOUND, () -> assertThrows(RuntimeException.class, () -> {
            try (Team team = team(2)) {
                team.run(rank -> {
                    MemorySegment send = rank.allocate(64);
                    if (rank.id() == 0) {
                        rank.allreduceShared(send, 8, DType.F64, Op.SUM);
                    } else {
                        rank.allreduce(send, rank.allocate(64), 8, DType.F64, Op.SUM);
                    }
                });
            }
        }));
        SharedViewAllgatherTest.assertMismatch(thrown);
    }

    @Test
    void badArgumentsNameTheArgument() {
        try (Team team = team(1)) {
            team.run(rank -> {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> rank.allreduceShared(rank.allocate(8), -1, DType.F64, Op.SUM));
                assertTrue(e.getMessage().contains("count"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduceShared(null, 1, DType.F64, Op.SUM));
                assertTrue(e.getMessage().contains("send"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduceShared(rank.allocate(8), 2, DType.F64, Op.SUM));
                assertTrue(e.getMessage().contains("send"), e.getMessage());
                assertThrows(IllegalArgumentException.class, () -> rank.allreduceShared(rank.allocate(8), 1, DType.F64, Op.BXOR));
            });
        }
    }

    @Test
    void neverPickedForAnAllreduceIntoReceiveBuffers() {
        assertFalse(AlgorithmCatalog.of(Collective.ALLREDUCE).stream().anyMatch(a -> a.name().equals("shared-view")),
                "not a catalogue algorithm: allreduce must fill recv");
    }
}
