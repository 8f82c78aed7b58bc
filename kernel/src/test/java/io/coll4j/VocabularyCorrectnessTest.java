package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every algorithm of gather, scatter, gatherv, scatterv, allgatherv, reduce-scatter-v, alltoall(v), scan and
 * exscan (baselines included) against the scalar reference: p = 1, 2, 3, 5, 8; counts 0, 1, odd, a few
 * thousand; v-counts uneven with zero-length blocks and displacements in reverse rank order with gaps;
 * every dtype (× every op for the reducing ones); in place and out of place; heap and native. Reductions
 * use arbitrary floats and must equal the rank-ordered left fold bitwise. Slices are cut small so the
 * pipelined paths run many slices.
 */
class VocabularyCorrectnessTest {
    static final int[] TEAM_SIZES = {1, 2, 3, 5, 8};
    static final long[] COUNTS = {0, 1, 301};
    /** The collectives this test covers; {@link CollectiveCorrectnessTest} covers the others. */
    static final List<Collective> COVERED = List.of(Collective.GATHER, Collective.SCATTER, Collective.GATHERV,
            Collective.SCATTERV, Collective.ALLGATHERV, Collective.REDUCE_SCATTER_V, Collective.ALLTOALL,
            Collective.ALLTOALLV, Collective.SCAN, Collective.EXSCAN);

    static Stream<Arguments> algorithms() {
        return AlgorithmCatalog.all().stream().filter(a -> COVERED.contains(a.collective()))
                .map(a -> Arguments.of(a.collective(), a.name()));
    }

    @ParameterizedTest(name = "{0}/{1}")
    @MethodSource("algorithms")
    void matchesReference(Collective collective, String algorithm) {
        for (int p : TEAM_SIZES) {
            Queue<String> failures = new ConcurrentLinkedQueue<>();
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).maxSliceBytes(256)
                    .algorithm(collective, algorithm).build()) {
                long maxBytes = (COUNTS[COUNTS.length - 1] + 2L * p + 2) * p * 8 + 64;
                team.run(rank -> {
                    CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, maxBytes);
                    long salt = 1;
                    for (long count : COUNTS) {
                        for (DType t : Values.CORE_TYPES) {
                            List<Op> ops = collective.reduces() ? CollectiveCorrectnessTest.validOps(t)
                                    : java.util.Collections.singletonList(null);
                            for (Op op : ops) {
                                for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                    if (v.inPlace() && collective == Collective.REDUCE_SCATTER_V) {
                                        continue;
                                    }
                                    salt++;
                                    runCase(rank, b, collective, count, t, op, v, (int) (salt % p), salt, failures);
                                }
                            }
                        }
                    }
                });
            }
            assertTrue(failures.isEmpty(), () -> collective.cliName() + "/" + algorithm + " p=" + p + ": "
                    + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
        }
    }

    /**
     * The two-stage scatter on synthetic multi-package machines [HMPI §2.6]: masters relay their package's
     * blocks, members copy from the master, the root's package reads the root — every root, uniform and v.
     */
    @ParameterizedTest(name = "{0} {1} p={2}")
    @org.junit.jupiter.params.provider.CsvSource({
            "scatter, 'synthetic:pack:2 numa:1 l3:1 core:4 pu:1', 8", "scatterv, 'synthetic:pack:2 numa:1 l3:1 core:4 pu:1', 8",
            "scatterv, 'synthetic:pack:4 numa:1 l3:1 core:2 pu:1', 7", "scatter, 'synthetic:pack:2 numa:1 l3:1 core:3 pu:1', 5"})
    void twoStageScatterAcrossPackages(String collective, String topology, int p) {
        Collective c = Collective.parse(collective);
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().topology(io.coll4j.topology.Topology.load(topology)).ranks(p)
                .timeout(Duration.ofSeconds(30)).algorithm(c, "two-stage").build()) {
            long maxBytes = (COUNTS[COUNTS.length - 1] + 2L * p + 2) * p * 8 + 64;
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, maxBytes);
                long salt = 7;
                for (int root = 0; root < p; root++) {
                    for (long count : COUNTS) {
                        for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                            salt++;
                            runCase(rank, b, c, count, DType.I64, null, v, root, salt, failures);
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> collective + " " + topology + ": " + failures.size() + " wrong, first: "
                + failures.stream().limit(5).toList());
    }

    /** Uneven v-counts: every third block empty, the others base + j. */
    static long vcount(int j, long base) {
        return j % 3 == 1 ? 0 : base + j;
    }

    static long[] vcounts(int p, long base) {
        long[] c = new long[p];
        for (int j = 0; j < p; j++) {
            c[j] = vcount(j, base);
        }
        return c;
    }

    /** Displacements in reverse rank order with a one-element gap after every block. */
    static long[] gappedDispls(long[] counts) {
        long[] d = new long[counts.length];
        long cursor = 0;
        for (int j = counts.length - 1; j >= 0; j--) {
            d[j] = cursor;
            cursor += counts[j] + 1;
        }
        return d;
    }

    static long[] packedDispls(long[] counts) {
        long[] d = new long[counts.length];
        for (int j = 1; j < counts.length; j++) {
            d[j] = d[j - 1] + counts[j - 1];
        }
        return d;
    }

    /** The "rank" whose values block (from q, to r) carries: distinct for every pair. */
    static int pair(int q, int r) {
        return q * 64 + r;
    }

    static void runCase(Rank rank, CollectiveCorrectnessTest.Buffers b, Collective c, long count, DType t, Op op,
                        CollectiveCorrectnessTest.Variant v, int root, long salt, Queue<String> failures) {
        int p = rank.size();
        int r = rank.id();
        int es = t.size();
        MemorySegment a = v.heap() ? b.heapA : b.nativeA;
        MemorySegment z = v.heap() ? b.heapB : b.nativeB;
        boolean inPlace = v.inPlace();
        String tag = c.cliName() + " count=" + count + " " + t.cliName() + (op == null ? "" : " " + op.cliName()) + " " + v
                + " root " + root + " rank " + r;
        switch (c) {
            case GATHER, GATHERV -> {
                long[] counts = c == Collective.GATHER ? null : vcounts(p, count);
                long[] displs = counts == null ? null : gappedDispls(counts);
                long mine = counts == null ? count : counts[r];
                long myDispl = counts == null ? r * count : displs[r];
                long extent = counts == null ? p * count : displs[0] + counts[0] + 1;
                MemorySegment recv = z.asSlice(0, extent * es);
                boolean ip = inPlace && r == root;
                if (r == root) {
                    recv.fill((byte) 0x5A);
                }
                MemorySegment send = ip ? recv.asSlice(myDispl * es, mine * es) : a.asSlice(0, mine * es);
                Values.fill(send, 0, t, null, r, mine, salt, true);
                if (c == Collective.GATHER) {
                    rank.gather(send, r == root ? recv : null, count, t, root);
                } else {
                    rank.gatherv(send, mine, r == root ? recv : null, counts, displs, t, root);
                }
                if (r == root) {
                    for (int q = 0; q < p; q++) {
                        long n = counts == null ? count : counts[q];
                        long d = counts == null ? q * count : displs[q];
                        for (long i = 0; i < n; i++) {
                            CollectiveCorrectnessTest.expect(failures, tag + " block " + q, t, i,
                                    Values.inputBits(t, null, q, i, salt, true), Values.read(recv, d * es, t, i));
                        }
                    }
                }
            }
            case SCATTER, SCATTERV -> {
                long[] counts = c == Collective.SCATTER ? null : vcounts(p, count);
                long[] displs = counts == null ? null : gappedDispls(counts);
                long mine = counts == null ? count : counts[r];
                long extent = counts == null ? p * count : displs[0] + counts[0] + 1;
                MemorySegment send = a.asSlice(0, extent * es);
                if (r == root) {
                    for (int q = 0; q < p; q++) {
                        long d = counts == null ? q * count : displs[q];
                        Values.fill(send, d * es, t, null, q, counts == null ? count : counts[q], salt, true);
                    }
                }
                boolean ip = inPlace && r == root;
                long myDispl = counts == null ? r * count : displs[r];
                MemorySegment recv = ip ? send.asSlice(myDispl * es, mine * es) : z.asSlice(0, mine * es);
                if (!ip) {
                    recv.fill((byte) 0x5A);
                }
                if (c == Collective.SCATTER) {
                    rank.scatter(r == root ? send : null, recv, count, t, root);
                } else {
                    rank.scatterv(r == root ? send : null, counts, displs, recv, mine, t, root);
                }
                for (long i = 0; i < mine; i++) {
                    CollectiveCorrectnessTest.expect(failures, tag, t, i, Values.inputBits(t, null, r, i, salt, true),
                            Values.read(recv, 0, t, i));
                }
            }
            case ALLGATHERV -> {
                long[] counts = vcounts(p, count);
                // every rank lays out its receive buffer its own way: even ranks gapped, odd ranks packed
                long[] displs = r % 2 == 0 ? gappedDispls(counts) : packedDispls(counts);
                long extent = r % 2 == 0 ? displs[0] + counts[0] + 1 : displs[p - 1] + counts[p - 1];
                MemorySegment recv = z.asSlice(0, extent * es);
                recv.fill((byte) 0x5A);
                MemorySegment send = inPlace ? recv.asSlice(displs[r] * es, counts[r] * es) : a.asSlice(0, counts[r] * es);
                Values.fill(send, 0, t, null, r, counts[r], salt, true);
                rank.allgatherv(send, counts[r], recv, counts, displs, t);
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < counts[q]; i++) {
                        CollectiveCorrectnessTest.expect(failures, tag + " block " + q, t, i,
                                Values.inputBits(t, null, q, i, salt, true), Values.read(recv, displs[q] * es, t, i));
                    }
                }
            }
            case REDUCE_SCATTER_V -> {
                long[] counts = vcounts(p, count);
                long[] displs = packedDispls(counts);
                long total = displs[p - 1] + counts[p - 1];
                MemorySegment send = a.asSlice(0, total * es);
                Values.fill(send, 0, t, op, r, total, salt, false);
                MemorySegment recv = z.asSlice(0, counts[r] * es);
                recv.fill((byte) 0x5A);
                rank.reduceScatterV(send, recv, counts, t, op);
                for (long i = 0; i < counts[r]; i++) {
                    CollectiveCorrectnessTest.expect(failures, tag, t, i, Values.foldBits(t, op, p, displs[r] + i, salt, false),
                            Values.read(recv, 0, t, i));
                }
            }
            case ALLTOALL, ALLTOALLV -> {
                boolean vec = c == Collective.ALLTOALLV;
                // rank r sends vcount((j + r) % p) elements to rank j, so rank j receives vcount((j + q) % p) from q
                long[] sc = new long[p];
                long[] rc = new long[p];
                for (int j = 0; j < p; j++) {
                    sc[j] = vec ? vcount((j + r) % p, count) : count;
                    rc[j] = vec ? vcount((r + j) % p, count) : count;
                }
                long[] rd = vec ? gappedDispls(rc) : packedDispls(rc);
                long[] sd = inPlace ? rd : (vec ? packedDispls(sc) : packedDispls(sc));
                long recvExtent = vec ? rd[0] + rc[0] + 1 : p * count;
                MemorySegment recv = z.asSlice(0, recvExtent * es);
                recv.fill((byte) 0x5A);
                MemorySegment send = inPlace ? recv : a.asSlice(0, (sd[p - 1] + sc[p - 1]) * es);
                if (inPlace && !java.util.Arrays.equals(sc, rc)) {
                    return;          // in place needs the send layout to be the receive layout
                }
                for (int j = 0; j < p; j++) {
                    Values.fill(send, sd[j] * es, t, null, pair(r, j), sc[j], salt, true);
                }
                if (vec) {
                    rank.alltoallv(send, sc, sd, recv, rc, rd, t);
                } else {
                    rank.alltoall(send, recv, count, t);
                }
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < rc[q]; i++) {
                        CollectiveCorrectnessTest.expect(failures, tag + " from " + q, t, i,
                                Values.inputBits(t, null, pair(q, r), i, salt, true), Values.read(recv, rd[q] * es, t, i));
                    }
                }
            }
            case SCAN, EXSCAN -> {
                MemorySegment send = a.asSlice(0, count * es);
                Values.fill(send, 0, t, op, r, count, salt, false);
                MemorySegment recv = inPlace ? send : z.asSlice(0, count * es);
                if (!inPlace) {
                    recv.fill((byte) 0x5A);
                }
                MemorySegment before = c == Collective.EXSCAN && r == 0
                        ? java.lang.foreign.Arena.ofAuto().allocate(Math.max(1, count * es)).asSlice(0, count * es).copyFrom(recv)
                        : null;
                if (c == Collective.SCAN) {
                    rank.scan(send, recv, count, t, op);
                } else {
                    rank.exscan(send, recv, count, t, op);
                }
                int upTo = c == Collective.SCAN ? r + 1 : r;
                for (long i = 0; i < count; i++) {
                    long expected = upTo == 0 ? Values.read(before, 0, t, i) : Values.foldBits(t, op, upTo, i, salt, false);
                    CollectiveCorrectnessTest.expect(failures, tag, t, i, expected, Values.read(recv, 0, t, i));
                }
            }
            default -> throw new IllegalArgumentException(c.toString());
        }
    }
}
