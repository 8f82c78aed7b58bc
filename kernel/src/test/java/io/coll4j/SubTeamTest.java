package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rank.split (MPI_Comm_split semantics), topology splits, concurrency with the parent, and closing. */
class SubTeamTest {
    static final Duration BOUND = Duration.ofSeconds(60);
    static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE;

    static void check(Queue<String> problems) {
        assertTrue(problems.isEmpty(), () -> problems.size() + " problems, e.g. " + problems.peek());
    }

    /**
     * p = 4 split into two sub-teams of 2 (keys reverse the order), both running allreduce at the same time
     * (staged, sliced and non-blocking), then the parent's barrier and allreduce: every result correct.
     */
    @Test
    void twoSubTeamsRunConcurrentlyWithTheirParent() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        AtomicReferenceArray<Team> subs = new AtomicReferenceArray<>(4);
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(4).maxSliceBytes(1024).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    int me = rank.id();
                    Rank sub = rank.split(me / 2, -me);
                    subs.set(me, sub.team());
                    expect(problems, "sub size", 2, sub.size());
                    expect(problems, "sub rank (keys reversed)", 1 - me % 2, sub.id());
                    expect(problems, "sub PU", rank.pu().osIndex(), sub.pu().osIndex());
                    if (sub.team().parent() != team) {
                        problems.add("parent() is not the team split");
                    }
                    long n = 5000;
                    MemorySegment big = sub.allocate(8 * n);
                    MemorySegment parentBuf = rank.allocate(8 * n);
                    for (int round = 0; round < 20; round++) {
                        for (long i = 0; i < n; i++) {
                            big.setAtIndex(D, i, me * 10 + i % 3 + round);
                            parentBuf.setAtIndex(D, i, me + round);
                        }
                        Request parentAr = rank.iallreduce(parentBuf, parentBuf, n, DType.F64, Op.SUM);
                        double[] one = {me + 1};
                        sub.allreduce(one, one, Op.SUM);
                        int lo = me / 2 * 2;
                        expect(problems, "sub 8 B allreduce", (lo + 1) + (lo + 2), one[0]);
                        sub.allreduce(big, big, n, DType.F64, Op.SUM);
                        Request subNb = sub.iallreduce(big, big, n, DType.F64, Op.SUM);
                        rank.barrier();
                        subNb.await();
                        parentAr.await();
                        for (long i = 0; i < n; i += 97) {
                            double once = lo * 10 + (lo + 1) * 10 + 2 * (i % 3) + 2 * round;
                            expect(problems, "sub allreduce twice", 2 * once, big.getAtIndex(D, i));
                            expect(problems, "parent allreduce", 0 + 1 + 2 + 3 + 4 * round, parentBuf.getAtIndex(D, i));
                        }
                    }
                    sub.close();                     // the last member's close frees the sub-team
                    rank.barrier();
                    if (!sub.team().isClosed()) {
                        problems.add("rank " + me + ": every member closed its rank, but the sub-team is open");
                    }
                });
                for (int r = 0; r < 4; r++) {
                    int other = r ^ 1;
                    assertTrue(subs.get(r) == subs.get(other), "members of one color share a sub-team");
                }
                assertTrue(subs.get(0) != subs.get(2));
                assertThrows(IllegalStateException.class, () -> subs.get(0).attach(0));
            }
        });
        check(problems);
    }

    /** UNDEFINED gets null; the others split as MPI says (ordered by key, then parent rank). */
    @Test
    void undefinedColorGetsNoSubTeam() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(5).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    int me = rank.id();
                    int color = me == 4 ? Team.UNDEFINED : me % 2;
                    Rank sub = rank.split(color, 0);
                    if (me == 4) {
                        if (sub != null) {
                            problems.add("UNDEFINED got a rank");
                        }
                        return;
                    }
                    expect(problems, "size", 2, sub.size());
                    expect(problems, "id (same key: parent order)", me / 2, sub.id());
                    long[] v = {me};
                    sub.allreduce(v, v, Op.SUM);
                    expect(problems, "sum", me % 2 == 0 ? 0 + 2 : 1 + 3, v[0]);
                    sub.close();
                });
                assertThrows(IllegalArgumentException.class, () -> team.run(rank -> rank.split(-5, 0)));
            }
        });
        check(problems);
    }

    /** Topology splits on two synthetic packages: one sub-team per package, and a team of the package leaders. */
    @Test
    void topologySplitsSeeTheirOwnTopology() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        Topology two = Topology.load("synthetic:pack:2 numa:1 l3:1 core:2 pu:1");
        assertTimeoutPreemptively(BOUND, () -> {
            try (Team team = Team.builder().ranks(4).topology(two).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    Rank pkg = rank.splitByPackage();
                    expect(problems, "package team size", 2, pkg.size());
                    int pkgs = (int) pkg.team().placement().pus().stream().mapToInt(p -> p.pkg()).distinct().count();
                    expect(problems, "one package per sub-team", 1, pkgs);
                    expect(problems, "same package", rank.pu().pkg(), pkg.pu().pkg());
                    Rank numa = rank.splitByNuma();
                    expect(problems, "numa team size", 2, numa.size());
                    Rank leaders = rank.splitLeaders();
                    boolean leader = rank.id() == 0 || rank.id() == 2;
                    if (leader != (leaders != null)) {
                        problems.add("rank " + rank.id() + " leader=" + leader + " got " + leaders);
                    }
                    double[] v = {rank.id()};
                    pkg.allreduce(v, v, Op.SUM);
                    if (leaders != null) {
                        expect(problems, "leaders size", 2, leaders.size());
                        double[] w = {v[0]};
                        leaders.allreduce(w, w, Op.SUM);
                        expect(problems, "two-level sum", 0 + 1 + 2 + 3, w[0]);
                        leaders.close();
                    }
                    pkg.close();
                    numa.close();
                });
            }
        });
        check(problems);
    }

    /** A parent abort reaches a rank blocked in a sub-team collective; closing the parent closes its sub-teams. */
    @Test
    void parentAbortStopsSubTeamAndCloseClosesIt() {
        java.util.concurrent.atomic.AtomicReference<Team> sub = new java.util.concurrent.atomic.AtomicReference<>();
        assertTimeoutPreemptively(BOUND, () -> {
            Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(30)).build();
            RuntimeException boom = new RuntimeException("boom");
            RuntimeException e = assertThrows(RuntimeException.class, () -> team.run(rank -> {
                Rank s = rank.split(rank.id() == 2 ? 1 : 0, 0);
                if (rank.id() == 0) {
                    sub.set(s.team());
                    s.barrier();                 // rank 1 never joins: waits until the parent aborts
                } else if (rank.id() == 2) {
                    Thread.sleep(100);
                    throw boom;
                }
            }));
            assertEquals(boom, e);
            assertTrue(sub.get().isAborted());
            team.close();
            assertThrows(IllegalStateException.class, () -> sub.get().attach(0));
        });
    }

    private static void expect(Queue<String> problems, String what, double want, double got) {
        if (want != got && problems.size() < 20) {
            problems.add(what + ": " + got + " != " + want);
        }
    }
}
