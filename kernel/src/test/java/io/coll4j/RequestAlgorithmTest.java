package io.coll4j;

import io.coll4j.internal.TeamInternals;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.nb.Exchange;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One collective contract: a request (non-blocking, persistent) runs the resumable steps of the algorithm the
 * team's selector names for it, a forced resumable algorithm when there is one, and the selector's pick when the
 * forced algorithm has no steps for the call; the results are the reference sums on every path.
 */
class RequestAlgorithmTest {
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE;
    /** 0, 1, odd, the staging limit (256 B of f64) and one past it, a few sliced items with an odd tail. */
    private static final long[] COUNTS = {0, 1, 7, 32, 33, 4099};

    @Test
    void requestRunsTheAlgorithmTheSelectorNames() {
        for (int p : new int[]{1, 2, 3, 5, 8}) {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                Map<Long, String> named = new ConcurrentHashMap<>();
                for (long n : COUNTS) {
                    Resumable pick = TeamInternals.selector(team).chooseSteps(Collective.ALLREDUCE, p, n, DType.F64, Op.SUM, n * 8);
                    assertNotNull(pick, "p=" + p + " n=" + n);
                    named.put(n, pick.name());
                    assertEquals(pick.name(), TeamInternals.requestAlgorithm(team, Collective.ALLREDUCE, n, DType.F64, Op.SUM));
                    if (n * 8 > 256) {
                        assertEquals("push", pick.name(), "beyond the staging regions only the push has steps");
                    }
                }
                Queue<String> problems = run(team, p, named, false);
                assertTrue(problems.isEmpty(), "p=" + p + ": " + problems);
            }
        }
    }

    @Test
    void bcastAndBarrierRequestsRunTheirCatalogueSteps() {
        for (int p : new int[]{1, 2, 3, 5}) {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                int root = p / 2;
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Arena arena = Arena.ofAuto();
                    for (long n : COUNTS) {
                        String expected = TeamInternals.selector(team).chooseSteps(Collective.BCAST, p, n, DType.F64, null, n * 8).name();
                        // the flat bcast's steps carry the root's message in its staged line, up to 256 B (alone, a
                        // rank has nothing to copy: the direct bcast costs nothing)
                        if (!expected.equals(n * 8 <= 256 && p > 1 ? "flat" : "direct")) {
                            problems.add("bcast of " + n + ": the selector named " + expected);
                        }
                        MemorySegment buf = arena.allocate(Math.max(8, n * 8), 64);
                        fill(buf, n, rank.id() == root ? 0 : 9, 0);
                        Request r = rank.ibcast(buf, n, DType.F64, root);
                        Exchange x = ((CollectiveRequest) r).exchange();
                        if (!x.algorithm().equals(expected) || x.staged() != expected.equals("flat")) {
                            problems.add("bcast of " + n + " ran " + x.algorithm() + " (staged " + x.staged() + "), expected " + expected);
                        }
                        r.await();
                        for (long i = 0; i < n; i++) {
                            if (buf.getAtIndex(D, i) != value(0, i, 0)) {
                                problems.add("bcast of " + n + " element " + i + " on rank " + rank.id());
                                break;
                            }
                        }
                    }
                    Request b = rank.ibarrier();
                    if (!((CollectiveRequest) b).exchange().algorithm().equals("central")) {
                        problems.add("barrier ran " + ((CollectiveRequest) b).exchange().algorithm());
                    }
                    b.await();
                });
                assertTrue(problems.isEmpty(), "p=" + p + ": " + problems);
            }
        }
    }

    /**
     * Reduce, reduce-scatter, allgather, gather, scatter, scan and exscan requests run the steps of their catalogue
     * algorithm: staged parts while a rank's contribution fits the staging regions, items beyond ({@code direct},
     * {@code direct}, {@code push}, {@code push} both ways; scatter {@code flat}'s parts, then {@code direct}'s items;
     * scans {@code direct}'s parts, then {@code chain}'s items); {@code explain} names it.
     * The results are checked by NonBlockingCollectivesTest and RequestOpsMatrixTest on the same paths.
     */
    @Test
    void movedCollectivesRequestsRunTheirCatalogueSteps() {
        Collective[] moved = {Collective.REDUCE, Collective.REDUCE_SCATTER, Collective.ALLGATHER, Collective.GATHER,
                Collective.SCATTER, Collective.SCAN, Collective.EXSCAN};
        for (int p : new int[]{1, 2, 3}) {
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Arena arena = Arena.ofAuto();
                    for (long n : new long[]{1, 7, 32, 33, 4099}) {
                        for (Collective c : moved) {
                            // a rank's contribution: reduce-scatter's input and scatter's root's buffer hold p blocks
                            boolean blocks = c == Collective.REDUCE_SCATTER || c == Collective.SCATTER;
                            boolean staged = n * 8 * (blocks ? p : 1) <= 256;
                            String expected = switch (c) {
                                case ALLGATHER, GATHER -> "push";
                                case SCATTER -> staged ? "flat" : "direct";
                                case SCAN, EXSCAN -> staged ? "direct" : "chain";
                                default -> "direct";
                            };
                            Op op = c.reduces() ? Op.SUM : null;
                            String explain = rank.plan(c, n, DType.F64, op).explain();
                            if (!explain.contains("request (non-blocking, persistent, chained): " + expected)) {
                                problems.add(c.cliName() + " of " + n + ": explain says " + explain);
                            }
                            MemorySegment send = arena.allocate(n * 8 * p, 64);
                            MemorySegment recv = arena.allocate(n * 8 * p, 64);
                            Request r = switch (c) {
                                case REDUCE -> rank.ireduce(send, recv, n, DType.F64, Op.SUM, 0);
                                case REDUCE_SCATTER -> rank.ireduceScatter(send, recv, n, DType.F64, Op.SUM);
                                case SCAN -> rank.iscan(send, recv, n, DType.F64, Op.SUM);
                                case EXSCAN -> rank.iexscan(send, recv, n, DType.F64, Op.SUM);
                                case GATHER -> rank.igather(send, recv, n, DType.F64, 0);
                                case SCATTER -> rank.iscatter(send, recv, n, DType.F64, 0);
                                default -> rank.iallgather(send, recv, n, DType.F64);
                            };
                            Exchange x = ((CollectiveRequest) r).exchange();
                            if (!x.algorithm().equals(expected) || x.staged() != staged) {
                                problems.add(c.cliName() + " of " + n + " ran " + x.algorithm() + " (staged " + x.staged() + ")");
                            }
                            r.await();
                        }
                    }
                });
                assertTrue(problems.isEmpty(), "p=" + p + ": " + problems);
            }
        }
    }

    @Test
    void forcedResumableAlgorithmIsUsedByRequests() {
        for (int p : new int[]{2, 3}) {
            for (String forced : new String[]{"push", "flat"}) {
                try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(30))
                        .algorithm(Collective.ALLREDUCE, forced).build()) {
                    Map<Long, String> expected = new ConcurrentHashMap<>();
                    for (long n : COUNTS) {
                        // flat's steps carry at most 256 B per rank: beyond, the selector's pick among the rest
                        expected.put(n, forced.equals("flat") && n * 8 > 256 ? "push" : forced);
                    }
                    Queue<String> problems = run(team, p, expected, true);
                    assertTrue(problems.isEmpty(), "forced " + forced + ", p=" + p + ": " + problems);
                }
            }
        }
    }

    @Test
    void forcedAlgorithmWithoutStepsLeavesRequestsToTheSelector() {
        try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.ALLREDUCE, "replicated").build()) {
            Map<Long, String> expected = new ConcurrentHashMap<>();
            for (long n : COUNTS) {
                expected.put(n, TeamInternals.selector(team).chooseSteps(Collective.ALLREDUCE, 3, n, DType.F64, Op.SUM, n * 8).name());
            }
            assertEquals("push", expected.get(4099L));
            Queue<String> problems = run(team, 3, expected, false);
            assertTrue(problems.isEmpty(), problems.toString());
            team.run(rank -> {
                CollectivePlan plan = rank.plan(Collective.ALLREDUCE, 4099, DType.F64, Op.SUM);
                assertEquals("replicated", TeamInternals.algorithm(plan).name(), "the blocking form keeps the forced algorithm");
                String explain = plan.explain();
                assertTrue(explain.contains("request (non-blocking, persistent, chained): push"), explain);
            });
        }
    }

    /**
     * Every rank issues an iallreduce and a persistent allreduce (started twice) of each count, in place for odd
     * ranks; checks the algorithm each exchange runs against {@code expected} and the sums against the reference.
     */
    private static Queue<String> run(Team team, int p, Map<Long, String> expected, boolean persistentToo) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        team.run(rank -> {
            int me = rank.id();
            // shared with the peers, whose steps read and write this rank's buffers
            Arena arena = Arena.ofAuto();
            for (long n : COUNTS) {
                MemorySegment send = arena.allocate(Math.max(8, n * 8), 64);
                MemorySegment recv = me % 2 == 1 ? send : arena.allocate(Math.max(8, n * 8), 64);
                fill(send, n, me, 0);
                Request r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                check(problems, r, expected.get(n), n, "iallreduce");
                r.await();
                verify(problems, recv, n, p, 0, "iallreduce");
                if (persistentToo) {
                    PersistentRequest pr = rank.allreduceInit(send, recv, n, DType.F64, Op.SUM);
                    check(problems, pr, expected.get(n), n, "allreduceInit");
                    for (int round = 1; round <= 2; round++) {
                        fill(send, n, me, round);
                        pr.start();
                        pr.await();
                        verify(problems, recv, n, p, round, "allreduceInit round " + round);
                    }
                    pr.close();
                }
            }
        });
        return problems;
    }

    private static void check(Queue<String> problems, Request r, String expected, long n, String what) {
        Exchange x = ((CollectiveRequest) r).exchange();
        if (!expected.equals(x.algorithm())) {
            problems.add(what + " of " + n + " ran " + x.algorithm() + ", expected " + expected);
        }
        // the flat allreduce's steps are staged parts, the push's sliced items
        if (x.staged() != expected.equals("flat")) {
            problems.add(what + " of " + n + " (" + x.algorithm() + ") staged=" + x.staged());
        }
        assertFalse(x.algorithm().isEmpty());
    }

    private static void fill(MemorySegment s, long n, int rank, int round) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(D, i, value(rank, i, round));
        }
    }

    private static double value(int rank, long i, int round) {
        return (rank + 1) * 1000 + (i % 97) + round * 7;
    }

    private static void verify(Queue<String> problems, MemorySegment recv, long n, int p, int round, String what) {
        for (long i = 0; i < n; i++) {
            double want = 0;
            for (int q = 0; q < p; q++) {
                want += value(q, i, round);
            }
            double got = recv.getAtIndex(D, i);
            if (got != want) {
                problems.add(what + " of " + n + " element " + i + ": " + got + " != " + want);
                return;
            }
        }
    }
}
