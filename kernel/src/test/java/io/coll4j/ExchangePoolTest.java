package io.coll4j;

import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.nb.Exchange;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One-shot requests take their exchange from the team's pool (kernel/nb/ExchangePool): a loop awaited at once
 * reuses a few exchanges instead of building one per call, and reuse never mixes calls: requests issued back to
 * back before either is awaited, other buffers at each call, an un-awaited request, staged (8 B) and sliced sizes.
 */
class ExchangePoolTest {
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE;

    @Test
    void awaitedAtOnceLoopReusesAFewExchanges() {
        for (long n : new long[]{1, 4099}) {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Set<Exchange> seen = Collections.newSetFromMap(new IdentityHashMap<>());
                    Arena arena = Arena.ofAuto();
                    MemorySegment[] sends = {arena.allocate(n * 8, 64), arena.allocate(n * 8, 64)};
                    MemorySegment recv = arena.allocate(n * 8, 64);
                    for (int call = 0; call < 100; call++) {
                        MemorySegment send = sends[call & 1];            // other buffers at every other call
                        fill(send, n, rank.id() + call);
                        Request r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
                        seen.add(((CollectiveRequest) r).exchange());
                        r.await();
                        check(problems, "call " + call, recv, n, 2, call, rank.id());
                    }
                    if (seen.size() > 16) {
                        problems.add("n=" + n + ": 100 calls awaited at once used " + seen.size() + " exchanges");
                    }
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    @Test
    void backToBackAndUnawaitedRequestsKeepTheirOwnRounds() {
        for (long n : new long[]{1, 4099}) {
            try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
                Queue<String> problems = new ConcurrentLinkedQueue<>();
                team.run(rank -> {
                    Arena arena = Arena.ofAuto();
                    for (int call = 0; call < 100; call += 3) {
                        MemorySegment s1 = arena.allocate(n * 8, 64), r1 = arena.allocate(n * 8, 64);
                        MemorySegment s2 = arena.allocate(n * 8, 64), r2 = arena.allocate(n * 8, 64);
                        MemorySegment s3 = arena.allocate(n * 8, 64), r3 = arena.allocate(n * 8, 64);
                        fill(s1, n, rank.id() + call);
                        fill(s2, n, rank.id() + call + 1);
                        fill(s3, n, rank.id() + call + 2);
                        Request a = rank.iallreduce(s1, r1, n, DType.F64, Op.SUM);
                        Request b = rank.iallreduce(s2, r2, n, DType.F64, Op.SUM);
                        // issued and never awaited on one rank (polled once on the other): its exchange must not serve
                        // a later call while the team's other rank may still be in it
                        Request c = rank.iallreduce(s3, r3, n, DType.F64, Op.SUM);
                        if (rank.id() == 1) {
                            c.isDone();
                        }
                        b.await();                                       // completed out of issue order
                        a.await();
                        check(problems, "call " + call, r1, n, 2, call, rank.id());
                        check(problems, "call " + (call + 1), r2, n, 2, call + 1, rank.id());
                    }
                    rank.barrier();
                });
                assertTrue(problems.isEmpty(), problems.toString());
            }
        }
    }

    private static void fill(MemorySegment s, long n, int v) {
        for (long i = 0; i < n; i++) {
            s.setAtIndex(D, i, v + i);
        }
    }

    /** Sum over p ranks of (rank + call + i). */
    private static void check(Queue<String> problems, String what, MemorySegment recv, long n, int p, int call, int rank) {
        for (long i = 0; i < n; i++) {
            double want = p * (call + i) + p * (p - 1) / 2.0;
            if (recv.getAtIndex(D, i) != want) {
                problems.add(what + " element " + i + " on rank " + rank + ": " + recv.getAtIndex(D, i) + ", expected " + want);
                return;
            }
        }
    }
}
