package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bandwidth reductions: {@code direct} allreduce, reduce and reduce-scatter, {@code push} and {@code replicated}
 * (streaming) allreduce,
 * {@code ma-sliced} [YHCCL §3.3–3.5] and {@code staged-sliced} reduce-scatter, allreduce and reduce
 * ({@link MovementAvoidingReductionTest} checks what only {@code ma-sliced} promises). The allreduces in both of their regimes: in cache (a synthetic
 * machine with a 512 MiB L3: temporal copy-out) and streaming (a 16 KiB L3, so W &gt; C for almost every
 * message: non-temporal copy-out, heap and native). Small {@code maxSliceBytes} (64 B … 4 KiB) give many
 * slices and last slices shorter than the rest with little data.
 *
 * <p>Checked: every dtype × op ({@link #ops}) against the scalar reference, counts 0, 1, odd, not divisible by p
 * or by the slice, p = 1, 2, 3, 4, 5, 8, in place and out of place, heap and native, roots rotating;
 * order-sensitive float inputs bitwise equal to the rank-ordered left fold on every rank (so all ranks
 * agree and every run gives the same bits); random sizes back to back with other algorithms on the same
 * team; that direct takes no scratch memory and the sliced algorithms no more than their double buffers.
 */
class BandwidthReductionTest {
    /** One package, eight cores, a 16 KiB L3: C = 16 KiB, so W &gt; C from a few hundred elements on. */
    static final String STREAMING = "synthetic:pack:1 numa:1 l3:1(size=16KB) core:8 pu:1";
    /** The same machine with a 512 MiB L3: every message of these tests stays in cache mode. */
    static final String CACHED = "synthetic:pack:1 numa:1 l3:1(size=512MB) core:8 pu:1";
    static final long[] COUNTS = {0, 1, 7, 17, 100, 333, 1025};
    static final long[] LARGE_TEAM_COUNTS = {0, 7, 17, 333};

    static Stream<Arguments> cases() {
        // streaming: the direct folds and push store through the native streaming fold (native buffers)
        return Stream.of(Arguments.of(Collective.ALLREDUCE, "direct", false), Arguments.of(Collective.ALLREDUCE, "direct", true),
                Arguments.of(Collective.ALLREDUCE, "push", false), Arguments.of(Collective.ALLREDUCE, "push", true),
                Arguments.of(Collective.REDUCE, "direct", false), Arguments.of(Collective.REDUCE, "direct", true),
                Arguments.of(Collective.REDUCE_SCATTER, "direct", false), Arguments.of(Collective.REDUCE_SCATTER, "direct", true),
                Arguments.of(Collective.ALLREDUCE, "ma-sliced", false), Arguments.of(Collective.ALLREDUCE, "ma-sliced", true),
                Arguments.of(Collective.REDUCE, "ma-sliced", false), Arguments.of(Collective.REDUCE_SCATTER, "ma-sliced", false),
                Arguments.of(Collective.REDUCE, "ma-sliced", true), Arguments.of(Collective.ALLREDUCE, "staged-sliced", false),
                Arguments.of(Collective.REDUCE, "staged-sliced", false), Arguments.of(Collective.REDUCE_SCATTER, "staged-sliced", false),
                // replicated streams its fold into the receive buffer beyond the cache (the native streaming fold);
                // in cache it is every other test's replicated
                Arguments.of(Collective.ALLREDUCE, "replicated", true));
    }

    static Team.Builder team(int p, boolean streaming, long slice) {
        Team.Builder b = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).maxSliceBytes(slice);
        return b.topology(Topology.load(streaming ? STREAMING : CACHED));
    }

    @ParameterizedTest(name = "{0} {1} streaming={2}")
    @MethodSource("cases")
    void everyDtypeOpAndLayoutMatchesTheReference(Collective c, String alg, boolean streaming) {
        // direct reduce and reduce-scatter and push do not strip-mine; the others do
        boolean sliced = !alg.equals("push") && !alg.equals("replicated") && !(alg.equals("direct") && c != Collective.ALLREDUCE);
        long[] slices = sliced ? new long[]{64, 4096} : new long[]{4096};
        for (int p : new int[]{1, 2, 3, 4}) {
            for (long slice : p <= 2 ? slices : new long[]{slices[0]}) {
                check(c, alg, streaming, p, slice, COUNTS);
            }
        }
        for (int p : new int[]{5, 8}) {
            check(c, alg, streaming, p, 192, LARGE_TEAM_COUNTS);
        }
    }

    /**
     * Push's cached fold goes tile by tile (a tile copied to the peers before the next is folded): blocks of one
     * tile, several tiles and a short last tile, for f64 and i32 alike, in place and out of place, p = 2, 3, 5.
     */
    @Test
    void pushFoldsABlockOfSeveralTiles() {
        for (int p : new int[]{2, 3, 5}) {
            check(Collective.ALLREDUCE, "push", false, p, 4096, new long[]{2047, 4097, 20_487});
        }
    }

    /**
     * Every valid op for f64 and i32; SUM and one order-free op for f32 and i64 (the kernels are per
     * dtype × op, the algorithm's paths are not: {@link CollectiveCorrectnessTest} runs every pair).
     */
    static List<Op> ops(DType t) {
        return switch (t) {
            case F64, I32 -> CollectiveCorrectnessTest.validOps(t);
            case F32 -> List.of(Op.SUM, Op.MAX);
            case I64 -> List.of(Op.SUM, Op.BXOR);
            default -> throw new IllegalArgumentException("not a core dtype: " + t);
        };
    }

    static void check(Collective c, String alg, boolean streaming, int p, long slice, long[] counts) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        long max = 0;
        for (long n : counts) {
            max = Math.max(max, n);
        }
        // a reduce-scatter's send buffer holds p blocks of count elements
        long maxBytes = max * 8 * (c == Collective.REDUCE_SCATTER ? p : 1) + 64;
        try (Team team = team(p, streaming, slice).algorithm(c, alg).build()) {
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers buffers = new CollectiveCorrectnessTest.Buffers(rank, maxBytes);
                long salt = 1;
                for (long count : counts) {
                    for (DType t : Values.CORE_TYPES) {
                        for (Op op : ops(t)) {
                            for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                salt++;
                                CollectiveCorrectnessTest.runCase(rank, buffers, c, count, t, op, v, salt % p, salt, failures);
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> c.cliName() + "/" + alg + " streaming=" + streaming + " p=" + p + " slice=" + slice
                + ": " + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    /**
     * Order-sensitive f64/f32 sums: every rank's allreduce result, and the reduce root's, is bitwise the
     * left fold x0 + x1 + … + x(p−1) — without {@code reproducible(true)}: the algorithm has only this order.
     */
    @Test
    void bitwiseTheRankOrderedFoldOnEveryRank() {
        long[] counts = {1, 7, 64, 1001, 4099};
        for (boolean streaming : new boolean[]{false, true}) {
            for (int p : new int[]{2, 3, 5, 8}) {
                for (long slice : new long[]{64, 1 << 20}) {
                    for (String[] algs : new String[][]{{"direct", "direct"}, {"staged-sliced", "staged-sliced"}, {"push", "direct"},
                            {"replicated", "direct"}}) {
                        foldOrder(algs[0], algs[1], streaming, p, slice, counts);
                    }
                }
            }
        }
    }

    private static void foldOrder(String allreduce, String reduce, boolean streaming, int p, long slice, long[] counts) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        String alg = allreduce + "/" + reduce;
        try (Team team = team(p, streaming, slice).algorithm(Collective.ALLREDUCE, allreduce)
                .algorithm(Collective.REDUCE, reduce).build()) {
            team.run(rank -> {
                int r = rank.id();
                for (DType t : List.of(DType.F64, DType.F32)) {
                    for (int c = 0; c < counts.length; c++) {
                        long n = counts[c];
                        long salt = 31 * c + t.ordinal();
                        for (int round = 0; round < 2; round++) {     // the same bits every run
                            MemorySegment send = (c & 1) == 0 ? MemorySegment.ofArray(new long[(int) n]) : rank.allocate(n * t.size());
                            Values.fill(send, 0, t, Op.SUM, r, n, salt, false);
                            MemorySegment recv = round == 0 ? rank.allocate(n * t.size()) : send;
                            rank.allreduce(send, recv, n, t, Op.SUM);
                            compare(failures, "allreduce " + t + " n=" + n + " round " + round + " rank " + r, recv, t, p, n, salt);
                            int root = (c + round) % p;
                            Values.fill(send, 0, t, Op.SUM, r, n, salt + 1, false);
                            MemorySegment out = r != root ? null : round == 0 ? rank.allocate(n * t.size()) : send;
                            rank.reduce(send, out, n, t, Op.SUM, root);
                            if (r == root) {
                                compare(failures, "reduce " + t + " n=" + n + " root " + root, out, t, p, n, salt + 1);
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> alg + " streaming=" + streaming + " p=" + p + " slice=" + slice + ": "
                + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    private static void compare(Queue<String> failures, String tag, MemorySegment seg, DType t, int p, long n, long salt) {
        for (long i = 0; i < n; i++) {
            long expected = Values.foldBits(t, Op.SUM, p, i, salt, false);
            long actual = Values.read(seg, 0, t, i);
            if (expected != actual && failures.size() < 20) {
                failures.add(tag + " [" + i + "] expected " + Values.show(t, expected) + " got " + Values.show(t, actual));
            }
        }
    }

    /**
     * Random sizes up to 1 MiB per rank, random dtype, op, layout and root, back to back on one team
     * whose forced algorithms alternate (direct and tiled allreduce, direct and tree reduce): scratch of
     * one parity is reused by another algorithm two collectives later, ring slots wrap many times.
     */
    @Test
    void randomSizesBackToBack() {
        SplittableRandom seeds = new SplittableRandom(7_2026_11_23L);
        int[] teams = {2, 3, 4, 2};
        for (int i = 0; i < teams.length; i++) {
            boolean streaming = i % 2 == 0;
            stress(teams[i], streaming, i < 2 ? 4096 : 64 * 1024, seeds.nextLong(), 12);
        }
    }

    private static void stress(int p, boolean streaming, long slice, long seed, int calls) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        long maxBytes = 1L << 20;
        String[][] mix = {{"direct", "direct"}, {"tiled", "direct"}, {"direct", "tree"}, {"ma-sliced", "ma-sliced"},
                {"ma-sliced", "direct"}, {"push", "direct"}, {"push", "ma-sliced"}, {"staged-sliced", "ma-sliced"}};
        for (String[] algs : mix) {
            try (Team team = team(p, streaming, slice).algorithm(Collective.ALLREDUCE, algs[0])
                    .algorithm(Collective.REDUCE, algs[1]).build()) {
                team.run(rank -> {
                    CollectiveCorrectnessTest.Buffers buffers = new CollectiveCorrectnessTest.Buffers(rank, maxBytes + 64);
                    SplittableRandom rnd = new SplittableRandom(seed);     // the same sequence on every rank
                    for (int k = 0; k < calls; k++) {
                        DType t = Values.CORE_TYPES.get(rnd.nextInt(Values.CORE_TYPES.size()));
                        List<Op> ops = CollectiveCorrectnessTest.validOps(t);
                        Op op = ops.get(rnd.nextInt(ops.size()));
                        long bytes = rnd.nextInt(3) > 0 ? rnd.nextLong(16 * 1024, maxBytes) : rnd.nextLong(0, 4000);
                        CollectiveCorrectnessTest.Variant v = CollectiveCorrectnessTest.Variant.values()[rnd.nextInt(4)];
                        long salt = rnd.nextLong(1, Long.MAX_VALUE);
                        int root = rnd.nextInt(p);
                        Collective c = rnd.nextBoolean() ? Collective.ALLREDUCE : Collective.REDUCE;
                        CollectiveCorrectnessTest.runCase(rank, buffers, c, bytes / t.size(), t, op, v, root, salt, failures);
                    }
                });
            }
        }
        assertTrue(failures.isEmpty(), () -> "p=" + p + " streaming=" + streaming + " slice=" + slice + ": "
                + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    /**
     * Tens of MiB on the host's own cache and default I_max: W = 2·p·s exceeds any cache of today's
     * machines' L3 on small teams, so the copy-out streams through real non-temporal stores, block after
     * block of full-size slices, with a count divisible neither by p nor by the slice.
     */
    @Test
    void largeMessagesOnTheHostMachine() {
        for (String[] algs : new String[][]{{"direct", "direct"}, {"staged-sliced", "staged-sliced"}, {"push", "direct"}}) {
            largeMessages(algs[0], algs[1]);
        }
    }

    private static void largeMessages(String allreduce, String reduce) {
        String alg = allreduce + "/" + reduce;
        for (int p : new int[]{2, 3}) {
            long count = p == 2 ? 3_000_001 : 1_500_007;
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(60))
                    .algorithm(Collective.ALLREDUCE, allreduce).algorithm(Collective.REDUCE, reduce).build()) {
                team.run(rank -> {
                    MemorySegment send = rank.allocate(count * 8);
                    MemorySegment recv = rank.allocate(count * 8);
                    for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE}) {
                        Values.fill(send, 0, DType.F64, Op.SUM, rank.id(), count, 99, false);
                        if (c == Collective.ALLREDUCE) {
                            rank.allreduce(send, recv, count, DType.F64, Op.SUM);
                        } else {
                            rank.reduce(send, recv, count, DType.F64, Op.SUM, p - 1);
                        }
                        if (c == Collective.ALLREDUCE || rank.id() == p - 1) {
                            compare(failures, c.cliName() + " rank " + rank.id(), recv, DType.F64, p, count, 99);
                        }
                    }
                });
            }
            assertTrue(failures.isEmpty(), () -> alg + " p=" + p + ": " + failures.size() + " wrong, first: "
                    + failures.stream().limit(5).toList());
        }
    }

    /**
     * The memory the class comments state: direct none beyond the caller's buffers, in either regime;
     * ma-sliced its double buffer, 2 slots × p slices × I per rank and parity, whatever the message size.
     */
    @Test
    void scratchIsWhatTheClassCommentsState() {
        int p = 4;
        long slice = 4096;
        for (long bytes : new long[]{1L << 20, 8L << 20}) {
            for (boolean streaming : new boolean[]{false, true}) {
                assertEquals(0, scratchAfter(Collective.ALLREDUCE, "direct", p, streaming, slice, bytes), "allreduce streaming=" + streaming);
                assertEquals(0, scratchAfter(Collective.REDUCE, "direct", p, streaming, slice, bytes), "reduce streaming=" + streaming);
                assertEquals(0, scratchAfter(Collective.ALLREDUCE, "push", p, streaming, slice, bytes), "push streaming=" + streaming);
                assertEquals(0, scratchAfter(Collective.REDUCE_SCATTER, "direct", p, streaming, slice, bytes), "reduce-scatter streaming=" + streaming);
                for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE}) {
                    long held = scratchAfter(c, "staged-sliced", p, streaming, slice, bytes);
                    assertTrue(held > 0 && held <= (long) p * 2 * (2L * p * slice), c + " staged-sliced holds " + held);
                    // ma-sliced: 2 slots of one slice per rank and parity (p·I shared memory per chunk), in
                    // buffers of at least RankScratch's 64 KiB
                    long ma = scratchAfter(c, "ma-sliced", p, streaming, slice, bytes);
                    assertTrue(ma > 0 && ma <= (long) p * 2 * Math.max(64 * 1024, 2L * slice), c + " ma-sliced holds " + ma);
                }
            }
        }
    }

    private static long scratchAfter(Collective c, String alg, int p, boolean streaming, long slice, long bytes) {
        try (Team team = team(p, streaming, slice).algorithm(c, alg).build()) {
            team.run(rank -> {
                MemorySegment send = rank.allocate(bytes);
                MemorySegment recv = rank.allocate(bytes);
                if (c == Collective.ALLREDUCE) {
                    rank.allreduce(send, recv, bytes / 8, DType.F64, Op.SUM);
                } else if (c == Collective.REDUCE_SCATTER) {
                    rank.reduceScatter(send, recv, bytes / 8 / p, DType.F64, Op.SUM);
                } else {
                    rank.reduce(send, recv, bytes / 8, DType.F64, Op.SUM, 1);
                }
            });
            return team.scratchBytes();
        }
    }
}
