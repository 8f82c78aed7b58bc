package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every algorithm of every collective (the baselines included) against the scalar reference: team sizes
 * 1, 2, 3, 4, 5, 8 (oversubscribed on small machines), counts 0, 1, odd, not divisible by p, above the
 * inline size, a few thousand; every dtype × valid op; in place and out of place; heap and native
 * buffers. Inputs are order-insensitive ({@link Values#exact}), so every algorithm must match exactly.
 */
class CollectiveCorrectnessTest {
    static final int[] TEAM_SIZES = {1, 2, 3, 4, 5, 8};
    static final long[] COUNTS = {0, 1, 2, 7, 13, 37, 1000, 4099};

    static Stream<Arguments> algorithms() {
        return AlgorithmCatalog.all().stream().filter(a -> !VocabularyCorrectnessTest.COVERED.contains(a.collective()))
                .map(a -> Arguments.of(a.collective(), a.name()));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("algorithms")
    void matchesReference(Collective collective, String algorithm) {
        for (int p : TEAM_SIZES) {
            check(collective, algorithm, p, COUNTS, false);
        }
    }

    /** Runs every case on a team of p ranks; returns nothing, fails with the list of wrong elements. */
    static void check(Collective collective, String algorithm, int p, long[] counts, boolean reproducible) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).reproducible(reproducible)
                .algorithm(collective, algorithm).build()) {
            long max = 0;
            for (long c : counts) {
                max = Math.max(max, c);
            }
            long maxBytes = max * 8 * p + 64;
            team.run(rank -> {
                Buffers buffers = new Buffers(rank, maxBytes);
                long salt = 1;
                for (long count : counts) {
                    for (DType t : Values.CORE_TYPES) {
                        for (Op op : collective.reduces() ? validOps(t) : java.util.Collections.<Op>singletonList(null)) {
                            for (Variant v : Variant.values()) {
                                if (!v.appliesTo(collective)) {
                                    continue;
                                }
                                salt++;
                                runCase(rank, buffers, collective, count, t, op, v, salt % p, salt, failures);
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> collective.cliName() + "/" + algorithm + " p=" + p + ": "
                + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    static List<Op> validOps(DType t) {
        // the ops with kernels of their own: AVG is SUM plus a division (OpsAndTypesCollectivesTest)
        return Stream.of(Op.values()).filter(o -> o.supports(t) && o.foldOp() == o && o != Op.USER).toList();
    }

    /** Where the buffers live and whether the call is in place. */
    enum Variant {
        HEAP, NATIVE, HEAP_IN_PLACE, NATIVE_IN_PLACE;

        boolean inPlace() {
            return this == HEAP_IN_PLACE || this == NATIVE_IN_PLACE;
        }

        boolean heap() {
            return this == HEAP || this == HEAP_IN_PLACE;
        }

        boolean appliesTo(Collective c) {
            return !inPlace() || c == Collective.ALLREDUCE || c == Collective.REDUCE || c == Collective.ALLGATHER;
        }
    }

    /** Per-rank buffers: heap arrays and NUMA-local native memory, sliced per case. */
    static final class Buffers {
        final MemorySegment heapA;
        final MemorySegment heapB;
        final MemorySegment nativeA;
        final MemorySegment nativeB;

        Buffers(Rank rank, long bytes) {
            heapA = MemorySegment.ofArray(new long[(int) (bytes / 8 + 1)]);
            heapB = MemorySegment.ofArray(new long[(int) (bytes / 8 + 1)]);
            nativeA = rank.allocate(bytes);
            nativeB = rank.allocate(bytes);
        }

        /** Native buffers the caller allocated (e.g. in an arena confined to the rank's thread). */
        Buffers(MemorySegment nativeA, MemorySegment nativeB, long bytes) {
            heapA = MemorySegment.ofArray(new long[(int) (bytes / 8 + 1)]);
            heapB = MemorySegment.ofArray(new long[(int) (bytes / 8 + 1)]);
            this.nativeA = nativeA;
            this.nativeB = nativeB;
        }
    }

    static void runCase(Rank rank, Buffers b, Collective c, long count, DType t, Op op, Variant v, long rootSalt,
                        long salt, Queue<String> failures) {
        int p = rank.size();
        int r = rank.id();
        int root = (int) rootSalt;
        int es = t.size();
        long bytes = count * es;
        MemorySegment a = v.heap() ? b.heapA : b.nativeA;
        MemorySegment z = v.heap() ? b.heapB : b.nativeB;
        String tag = c.cliName() + " count=" + count + " " + t.cliName() + (op == null ? "" : " " + op.cliName()) + " "
                + v + " rank " + r;
        switch (c) {
            case BARRIER -> rank.barrier();
            case BCAST -> {
                MemorySegment buf = a.asSlice(0, bytes);
                if (r == root) {
                    Values.fill(buf, 0, t, null, root, count, salt, true);
                } else {
                    buf.fill((byte) 0x5A);
                }
                rank.bcast(buf, count, t, root);
                for (long i = 0; i < count; i++) {
                    expect(failures, tag, t, i, Values.inputBits(t, null, root, i, salt, true), Values.read(buf, 0, t, i));
                }
            }
            case ALLREDUCE, REDUCE -> {
                MemorySegment send = a.asSlice(0, bytes);
                Values.fill(send, 0, t, op, r, count, salt, true);
                MemorySegment recv = v.inPlace() ? send : z.asSlice(0, bytes);
                if (!v.inPlace()) {
                    recv.fill((byte) 0x5A);
                }
                boolean gets = c == Collective.ALLREDUCE || r == root;
                if (c == Collective.ALLREDUCE) {
                    rank.allreduce(send, recv, count, t, op);
                } else {
                    rank.reduce(send, r == root ? recv : null, count, t, op, root);
                }
                if (gets) {
                    for (long i = 0; i < count; i++) {
                        expect(failures, tag, t, i, Values.foldBits(t, op, p, i, salt, true), Values.read(recv, 0, t, i));
                    }
                }
            }
            case REDUCE_SCATTER -> {
                MemorySegment send = a.asSlice(0, bytes * p);
                Values.fill(send, 0, t, op, r, count * p, salt, true);
                MemorySegment recv = z.asSlice(0, bytes);
                recv.fill((byte) 0x5A);
                rank.reduceScatter(send, recv, count, t, op);
                for (long i = 0; i < count; i++) {
                    expect(failures, tag, t, i, Values.foldBits(t, op, p, r * count + i, salt, true), Values.read(recv, 0, t, i));
                }
            }
            case ALLGATHER -> {
                MemorySegment recv = z.asSlice(0, bytes * p);
                recv.fill((byte) 0x5A);
                MemorySegment send = v.inPlace() ? recv.asSlice(r * bytes, bytes) : a.asSlice(0, bytes);
                Values.fill(send, 0, t, null, r, count, salt, true);
                rank.allgather(send, recv, count, t);
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < count; i++) {
                        expect(failures, tag + " block " + q, t, i, Values.inputBits(t, null, q, i, salt, true),
                                Values.read(recv, q * bytes, t, i));
                    }
                }
            }
        }
    }

    static void expect(Queue<String> failures, String tag, DType t, long i, long expected, long actual) {
        if (!Values.same(t, expected, actual) && failures.size() < 50) {
            failures.add(tag + " [" + i + "] expected " + Values.show(t, expected) + " got " + Values.show(t, actual));
        }
    }

    /** All algorithm names, for tests that iterate over them. */
    static List<String> names(Collective c) {
        List<String> out = new ArrayList<>();
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            out.add(a.name());
        }
        return out;
    }
}
