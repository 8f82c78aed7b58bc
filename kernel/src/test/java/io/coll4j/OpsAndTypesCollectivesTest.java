package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.ScalarReference;
import io.coll4j.reductions.UserOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The types and ops beyond the core four and seven, end to end through every algorithm of every reducing
 * collective (the baselines included where they apply): F16, BF16, U32, U64 and AVG through the harness of
 * {@link CollectiveCorrectnessTest} and {@link VocabularyCorrectnessTest}; MINLOC/MAXLOC on the pair types
 * and a non-commutative user op through their own reference (a pair or a user's record is not one number).
 * p = 1, 2, 3, 5, 8; counts 0, 1, odd; heap and native, in place where the collective has it.
 */
class OpsAndTypesCollectivesTest {
    static final int[] TEAM_SIZES = {1, 2, 3, 5, 8};
    static final long[] COUNTS = {0, 1, 37};
    static final List<Collective> REDUCING = List.of(Collective.ALLREDUCE, Collective.REDUCE, Collective.REDUCE_SCATTER,
            Collective.REDUCE_SCATTER_V, Collective.SCAN, Collective.EXSCAN);

    /** The new (dtype, op) pairs, each op at least once per type, AVG on every non-pair type. */
    static final Map<DType, List<Op>> NUMERIC = Map.of(
            DType.F16, List.of(Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.AVG),
            DType.BF16, List.of(Op.SUM, Op.MAX, Op.AVG),
            DType.U32, List.of(Op.MIN, Op.MAX, Op.SUM, Op.BOR, Op.AVG),
            DType.U64, List.of(Op.MIN, Op.MAX, Op.PROD, Op.BXOR, Op.AVG),
            DType.F32, List.of(Op.AVG), DType.F64, List.of(Op.AVG), DType.I32, List.of(Op.AVG), DType.I64, List.of(Op.AVG));

    static final List<DType> PAIRS = List.of(DType.F32_I32, DType.F64_I64, DType.I32_I32, DType.I64_I64);

    /** x → m·x + c mod 2^32 as [[m, c], [0, 1]], packed m:c: associative, not commutative (2x2 matrix product). */
    static final UserOp AFFINE = UserOp.ofLongs("affine", DType.I64, false, OpsAndTypesCollectivesTest::affine);

    static long affine(long x, long y) {
        int m1 = (int) (x >>> 32);
        int c1 = (int) x;
        int m2 = (int) (y >>> 32);
        int c2 = (int) y;
        return ((long) (m1 * m2) << 32) | ((m1 * c2 + c1) & 0xFFFF_FFFFL);
    }

    static Stream<Arguments> algorithms() {
        return AlgorithmCatalog.all().stream().filter(a -> REDUCING.contains(a.collective()))
                .map(a -> Arguments.of(a.collective(), a.name()));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("algorithms")
    void newTypesOpsPairsAndUserOpsMatchTheReference(Collective c, String algorithm) {
        boolean baseline = algorithm.equals("cyclicbarrier");
        for (int p : TEAM_SIZES) {
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).maxSliceBytes(256)
                    .algorithm(c, algorithm).build()) {
                long maxBytes = (COUNTS[COUNTS.length - 1] + 2L * p + 2) * p * 16 + 64;
                team.run(rank -> {
                    CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, maxBytes);
                    long salt = 1;
                    for (long count : COUNTS) {
                        for (Map.Entry<DType, List<Op>> e : NUMERIC.entrySet()) {
                            for (Op op : e.getValue()) {
                                for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                    salt++;
                                    numericCase(rank, b, c, count, e.getKey(), op, v, salt, failures);
                                }
                            }
                        }
                        if (baseline) {
                            continue;   // the baselines hold one number per array slot: no pairs, no user ops
                        }
                        for (DType t : PAIRS) {
                            for (Op op : List.of(Op.MINLOC, Op.MAXLOC)) {
                                salt++;
                                recordCase(rank, b, c, count, t, op, null, salt, failures);
                            }
                        }
                        salt++;
                        recordCase(rank, b, c, count, DType.I64, Op.USER, AFFINE, salt, failures);
                    }
                });
            }
            assertTrue(failures.isEmpty(), () -> c.cliName() + "/" + algorithm + " p=" + p + ": "
                    + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
        }
    }

    private static void numericCase(Rank rank, CollectiveCorrectnessTest.Buffers b, Collective c, long count, DType t,
                                    Op op, CollectiveCorrectnessTest.Variant v, long salt, Queue<String> failures) {
        int p = rank.size();
        switch (c) {
            case ALLREDUCE, REDUCE, REDUCE_SCATTER -> {
                if (v.appliesTo(c)) {
                    CollectiveCorrectnessTest.runCase(rank, b, c, count, t, op, v, salt % p, salt, failures);
                }
            }
            default -> {
                if (!v.inPlace() || c != Collective.REDUCE_SCATTER_V) {
                    VocabularyCorrectnessTest.runCase(rank, b, c, count, t, op, v, (int) (salt % p), salt, failures);
                }
            }
        }
    }

    /**
     * A pair or user-op case: every rank fills its send buffer with records that are a pure function of
     * (rank, element, salt), runs the collective, and checks its result against the left fold over ranks in
     * rank order (for the pairs every order gives it; for the user op only rank order does).
     */
    private static void recordCase(Rank rank, CollectiveCorrectnessTest.Buffers b, Collective c, long count, DType t,
                                   Op op, UserOp user, long salt, Queue<String> failures) {
        int p = rank.size();
        int r = rank.id();
        int root = (int) (salt % p);
        int es = t.size();
        boolean heap = (salt & 1) == 0;
        MemorySegment a = heap ? b.heapA : b.nativeA;
        MemorySegment z = heap ? b.heapB : b.nativeB;
        long[] counts = c == Collective.REDUCE_SCATTER_V ? VocabularyCorrectnessTest.vcounts(p, count) : null;
        long[] displs = counts == null ? null : VocabularyCorrectnessTest.packedDispls(counts);
        long sendCount = switch (c) {
            case REDUCE_SCATTER -> count * p;
            case REDUCE_SCATTER_V -> displs[p - 1] + counts[p - 1];
            default -> count;
        };
        long recvCount = c == Collective.REDUCE_SCATTER_V ? counts[r] : count;
        long first = switch (c) {     // global element index of this rank's first result element
            case REDUCE_SCATTER -> r * count;
            case REDUCE_SCATTER_V -> displs[r];
            default -> 0;
        };
        int folded = switch (c) {     // how many ranks' contributions this rank's result folds
            case SCAN -> r + 1;
            case EXSCAN -> r;
            default -> p;
        };
        MemorySegment send = a.asSlice(0, sendCount * es);
        for (long g = 0; g < sendCount; g++) {
            record(t, user, send, g * es, r, g, salt);
        }
        MemorySegment recv = z.asSlice(0, recvCount * es);
        recv.fill((byte) 0x5A);
        MemorySegment before = MemorySegment.ofArray(new byte[(int) (recvCount * es)]);
        before.copyFrom(recv);
        String tag = c.cliName() + " count=" + count + " " + (user != null ? user.name() : t.cliName() + " " + op.cliName())
                + (heap ? " heap" : " native") + " rank " + r + "/" + p;
        try {
            invoke(rank, c, send, recv, count, counts, t, op, user, root);
        } catch (RuntimeException e) {
            failures.add(tag + ": " + e);
            return;
        }
        boolean gets = (c != Collective.REDUCE || r == root) && folded > 0;
        MemorySegment expected = MemorySegment.ofArray(new byte[(int) (Math.max(recvCount, 1) * es)]);
        MemorySegment next = MemorySegment.ofArray(new byte[es]);
        for (long i = 0; i < recvCount && gets; i++) {
            record(t, user, expected, i * es, 0, first + i, salt);
            for (int q = 1; q < folded; q++) {
                record(t, user, next, 0, q, first + i, salt);
                if (user != null) {
                    user.function().apply(expected, i * es, expected, i * es, next, 0, 1);
                } else {
                    ScalarReference.apply(t, op, expected, i * es, expected, i * es, next, 0);
                }
            }
            if (MemorySegment.mismatch(expected, i * es, (i + 1) * es, recv, i * es, (i + 1) * es) != -1
                    && failures.size() < 50) {
                failures.add(tag + " [" + i + "] differs from the rank-ordered fold");
            }
        }
        if (!gets && c == Collective.EXSCAN && before.mismatch(recv) != -1) {
            failures.add(tag + ": rank 0's exscan recv was written");
        }
    }

    /** Rank q's record at global element g: a pair with few distinct values (ties) and a random index, or an affine map. */
    private static void record(DType t, UserOp user, MemorySegment seg, long at, int q, long g, long salt) {
        long bits = Values.mix(Values.mix(salt * 31 + q) ^ g * 0x9E3779B97F4A7C15L);
        if (user != null) {
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, bits);
            return;
        }
        int v = (int) (bits & 3);
        long index = (bits >>> 8) & 63;
        switch (t) {
            case F32_I32 -> {
                seg.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at, v == 3 ? -0.0f : v);
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) index);
            }
            case I32_I32 -> {
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at, v - 1);
                seg.set(ValueLayout.JAVA_INT_UNALIGNED, at + 4, (int) index);
            }
            case F64_I64 -> {
                seg.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at, v == 3 ? -0.0 : v);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
            }
            default -> {
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, v - 1L);
                seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, index);
            }
        }
    }

    private static void invoke(Rank rank, Collective c, MemorySegment send, MemorySegment recv, long count, long[] counts,
                               DType t, Op op, UserOp user, int root) {
        MemorySegment rootRecv = rank.id() == root ? recv : null;
        if (user != null) {
            switch (c) {
                case ALLREDUCE -> rank.allreduce(send, recv, count, user);
                case REDUCE -> rank.reduce(send, rootRecv, count, user, root);
                case REDUCE_SCATTER -> rank.reduceScatter(send, recv, count, user);
                case REDUCE_SCATTER_V -> rank.reduceScatterV(send, recv, counts, user);
                case SCAN -> rank.scan(send, recv, count, user);
                case EXSCAN -> rank.exscan(send, recv, count, user);
                default -> throw new IllegalArgumentException(c.cliName());
            }
            return;
        }
        switch (c) {
            case ALLREDUCE -> rank.allreduce(send, recv, count, t, op);
            case REDUCE -> rank.reduce(send, rootRecv, count, t, op, root);
            case REDUCE_SCATTER -> rank.reduceScatter(send, recv, count, t, op);
            case REDUCE_SCATTER_V -> rank.reduceScatterV(send, recv, counts, t, op);
            case SCAN -> rank.scan(send, recv, count, t, op);
            case EXSCAN -> rank.exscan(send, recv, count, t, op);
            default -> throw new IllegalArgumentException(c.cliName());
        }
    }

    /** Invalid combinations fail before anything runs, naming op and dtype; AVG and user ops are refused where they cannot run. */
    @Test
    void invalidCombinationsAreClearErrors() {
        try (Team team = Team.builder().ranks(1).build()) {
            team.run(rank -> {
                MemorySegment s = rank.allocate(64);
                MemorySegment d = rank.allocate(64);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> rank.allreduce(s, d, 4, DType.F16, Op.BAND));
                assertTrue(e.getMessage().contains("band") && e.getMessage().contains("f16"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduce(s, d, 4, DType.F64, Op.MINLOC));
                assertTrue(e.getMessage().contains("pair"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduce(s, d, 4, DType.I64, Op.USER));
                assertTrue(e.getMessage().contains("UserOp"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.iallreduce(s, d, 4, DType.I64, Op.USER));
                assertTrue(e.getMessage().contains("UserOp"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.scanInit(s, d, 4, DType.F64, Op.USER));
                assertTrue(e.getMessage().contains("UserOp"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduceShared(s, 4, DType.F32, Op.AVG));
                assertTrue(e.getMessage().contains("allreduceShared"), e.getMessage());
                // the call after the errors still works
                s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x0000_0003_0000_0005L);
                rank.allreduce(s, d, 1, AFFINE);
                assertEquals(0x0000_0003_0000_0005L, d.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            });
        }
    }
}
