package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.Schedule;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code ma-sliced} (YHCCL's movement-avoiding reduction A' [YHCCL §3.2–3.5]) promises beyond a correct
 * result ({@link BandwidthReductionTest} checks every dtype × op, count, team size and layout):
 * <ul>
 *   <li>ranks meet only in the shared slices: every access to a peer's memory the algorithm records
 *       (the schedule records each peer once per collective and kind) is an accumulation into, or a
 *       copy out of, an owner's shared slice — never a peer's send or receive buffer (the runtime
 *       rejects buffers confined to one thread, so a confinement check cannot be made here);</li>
 *   <li>its reduction order, block b = x(b+1) op … op x(p−1) op x(0) op … op x(b), bitwise, on every rank
 *       and every run; and the rank-ordered fold with {@code reproducible(true)};</li>
 *   <li>the copy-in volume {@code explain} reports: 2·s/p per rank [YHCCL Thm 3.1].</li>
 * </ul>
 */
class MovementAvoidingReductionTest {
    static final long[] COUNTS = {1, 7, 17, 333, 1025, 4099};

    static Team.Builder team(int p, boolean streaming, long slice) {
        return BandwidthReductionTest.team(p, streaming, slice);
    }

    @Test
    void peersMeetOnlyInTheSharedSlices() {
        for (int p : new int[]{2, 3, 4}) {
            for (long slice : new long[]{64, 4096}) {
                Queue<String> failures = new ConcurrentLinkedQueue<>();
                Schedule schedule = new Schedule();
                try (Team team = team(p, p == 3, slice).algorithm(Collective.ALLREDUCE, "ma-sliced")
                        .algorithm(Collective.REDUCE, "ma-sliced").algorithm(Collective.REDUCE_SCATTER, "ma-sliced")
                        .recordSchedule(schedule).build()) {
                    team.run(rank -> {
                        long max = 4099L * 8 * p;
                        CollectiveCorrectnessTest.Buffers b = new CollectiveCorrectnessTest.Buffers(rank, max + 64);
                        long salt = 1;
                        for (long count : COUNTS) {
                            for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE, Collective.REDUCE_SCATTER}) {
                                for (CollectiveCorrectnessTest.Variant v : CollectiveCorrectnessTest.Variant.values()) {
                                    if (v.appliesTo(c)) {
                                        salt++;
                                        CollectiveCorrectnessTest.runCase(rank, b, c, count, DType.F64, Op.SUM, v, salt % p, salt, failures);
                                    }
                                }
                            }
                        }
                    });
                }
                assertTrue(failures.isEmpty(), () -> "p=" + p + " slice=" + slice + ": " + failures.stream().limit(5).toList());
                Set<String> actions = schedule.events().stream().map(Schedule.Event::action).collect(Collectors.toSet());
                assertTrue(Set.of("accumulate", "copy-out").containsAll(actions), "peer accesses other than shared slices: " + actions);
            }
        }
    }

    @Test
    void bitwiseTheRotatedOrderOnEveryRankAndEveryRun() {
        for (boolean streaming : new boolean[]{false, true}) {
            for (int p : new int[]{2, 3, 5, 8}) {
                for (long slice : new long[]{64, 1 << 20}) {
                    foldOrder(p, streaming, slice, false);
                }
            }
        }
    }

    @Test
    void reproducibleIsTheRankOrderedFold() {
        for (int p : new int[]{3, 5}) {
            foldOrder(p, true, 64, true);
        }
    }

    private static void foldOrder(int p, boolean streaming, long slice, boolean reproducible) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        try (Team team = team(p, streaming, slice).reproducible(reproducible).algorithm(Collective.ALLREDUCE, "ma-sliced")
                .algorithm(Collective.REDUCE, "ma-sliced").algorithm(Collective.REDUCE_SCATTER, "ma-sliced").build()) {
            team.run(rank -> {
                int r = rank.id();
                for (DType t : List.of(DType.F64, DType.F32)) {
                    for (int k = 0; k < COUNTS.length; k++) {
                        long n = COUNTS[k];
                        long salt = 31 * k + t.ordinal();
                        Tiles blocks = Tiles.of(n, p, t.size());
                        for (int round = 0; round < 2; round++) {     // the same bits every run
                            MemorySegment send = (k & 1) == 0 ? MemorySegment.ofArray(new long[(int) n * p]) : rank.allocate(n * p * t.size());
                            Values.fill(send, 0, t, Op.SUM, r, n, salt, false);
                            MemorySegment recv = round == 0 ? rank.allocate(n * t.size()) : send;
                            rank.allreduce(send, recv, n, t, Op.SUM);
                            compare(failures, "allreduce " + t + " n=" + n + " rank " + r, recv, t, p, n, salt,
                                    i -> blocks.count() == 0 ? 0 : (int) (i / blocks.perTile()), reproducible);
                            int root = (k + round) % p;
                            Values.fill(send, 0, t, Op.SUM, r, n, salt + 1, false);
                            MemorySegment out = r != root ? null : round == 0 ? rank.allocate(n * t.size()) : send;
                            rank.reduce(send, out, n, t, Op.SUM, root);
                            if (r == root) {
                                compare(failures, "reduce " + t + " n=" + n + " root " + root, out, t, p, n, salt + 1,
                                        i -> (int) (i / blocks.perTile()), reproducible);
                            }
                            Values.fill(send, 0, t, Op.SUM, r, n * p, salt + 2, false);
                            MemorySegment part = rank.allocate(n * t.size());
                            rank.reduceScatter(send, part, n, t, Op.SUM);
                            for (long i = 0; i < n; i++) {
                                long e = r * n + i;
                                long expected = reproducible ? Values.foldBits(t, Op.SUM, p, e, salt + 2, false)
                                        : rotatedFold(t, p, (r + 1) % p, e, salt + 2);
                                long actual = Values.read(part, 0, t, i);
                                if (expected != actual && failures.size() < 20) {
                                    failures.add("reduce-scatter " + t + " n=" + n + " rank " + r + " [" + i + "] expected "
                                            + Values.show(t, expected) + " got " + Values.show(t, actual));
                                }
                            }
                        }
                    }
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> "p=" + p + " streaming=" + streaming + " slice=" + slice + " reproducible="
                + reproducible + ": " + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }

    interface BlockOf {
        int of(long element);
    }

    private static void compare(Queue<String> failures, String tag, MemorySegment seg, DType t, int p, long n, long salt,
                                BlockOf block, boolean reproducible) {
        for (long i = 0; i < n; i++) {
            long expected = reproducible ? Values.foldBits(t, Op.SUM, p, i, salt, false)
                    : rotatedFold(t, p, (block.of(i) + 1) % p, i, salt);
            long actual = Values.read(seg, 0, t, i);
            if (expected != actual && failures.size() < 20) {
                failures.add(tag + " [" + i + "] expected " + Values.show(t, expected) + " got " + Values.show(t, actual));
            }
        }
    }

    /** x(first) op x(first+1) op … op x(first−1), indices mod p, left to right. */
    static long rotatedFold(DType t, int p, int first, long i, long salt) {
        long acc = Values.inputBits(t, Op.SUM, first, i, salt, false);
        for (int d = 1; d < p; d++) {
            acc = io.coll4j.reductions.internal.ScalarReference.apply(t, Op.SUM, acc, Values.inputBits(t, Op.SUM, (first + d) % p, i, salt, false));
        }
        return acc;
    }

    /** The rotated order is not the rank order for p ≥ 3 (else the bitwise test above would not tell them apart). */
    @Test
    void theRotatedOrderDiffersFromTheRankOrder() {
        int differ = 0;
        for (long i = 0; i < 1000; i++) {
            if (rotatedFold(DType.F64, 5, 2, i, 7) != Values.foldBits(DType.F64, Op.SUM, 5, i, 7, false)) {
                differ++;
            }
        }
        assertTrue(differ > 0, "rotated and rank-ordered folds agree on every element");
    }

    @Test
    void explainStatesTheCopyInVolumeOfYhcclTheorem31() {
        MachineModel m = MachineModel.defaults(Topology.load(BandwidthReductionTest.CACHED));
        long s = 64L << 20;
        for (int p : new int[]{2, 4}) {
            for (Collective c : new Collective[]{Collective.ALLREDUCE, Collective.REDUCE, Collective.REDUCE_SCATTER}) {
                List<String> terms = AlgorithmCatalog.find(c, "ma-sliced").costTerms(m, TeamShape.flat(p), s);
                assertEquals(1, terms.size(), terms.toString());
                assertTrue(terms.getFirst().contains("copy-in per rank 2*s/p = " + (2 * s / p) + " B"), terms.getFirst());
                assertTrue(terms.getFirst().contains((2 * s) + " B per node"), terms.getFirst());
                List<String> staged = AlgorithmCatalog.find(c, "staged-sliced").costTerms(m, TeamShape.flat(p), s);
                assertTrue(staged.getFirst().contains("copy-in per rank 2*s = " + (2 * s) + " B"), staged.getFirst());
            }
        }
    }
}
