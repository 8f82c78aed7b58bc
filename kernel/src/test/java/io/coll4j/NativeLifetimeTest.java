package io.coll4j;

import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReferenceArray;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Memory that is freed while a collective streams through it (the reproductions of a JVM crash in the
 * native streaming fold): the team closed by another thread while attached ranks loop a push allreduce,
 * the user's arena holding a send buffer closed by another thread during the loop, and a send buffer
 * closed before the call. Each must end with a clear exception on every rank, never a SIGSEGV or a
 * result computed from freed memory. A synthetic 16 KiB L3 makes every call of these sizes stream
 * (W &gt; C), so the native fold is on the path. {@code -Dcoll4j.repro=N} repeats each N times (default 3).
 */
class NativeLifetimeTest {
    static final String STREAMING = "synthetic:pack:1 numa:1 l3:1(size=16KB) core:8 pu:1";
    static final Duration BOUND = Duration.ofSeconds(120);
    static final int RUNS = Integer.getInteger("coll4j.repro", 3);
    /** 4 MiB per rank: a fold of ~1 ms, so the closing thread lands inside one most of the time. */
    static final long COUNT = 512 * 1024;

    @BeforeAll
    static void needsTheStreamingFold() {
        assumeTrue(StreamingFold.available(), "no native streaming fold on this machine: nothing native to free under");
    }

    static Team.Builder team(int p) {
        return Team.builder().topology(Topology.load(STREAMING)).ranks(p).timeout(Duration.ofSeconds(30))
                .algorithm(Collective.ALLREDUCE, "push");
    }

    /** (a) team.close() from another thread while two attached ranks loop: ranks fail cleanly, close frees nothing in use. */
    @Test
    void closingTheTeamUnderAttachedRanks() {
        for (int i = 0; i < RUNS; i++) {
            int run = i;
            AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(2);
            long[] calls = new long[2];
            assertTimeoutPreemptively(BOUND, () -> {
                Team team = team(2).build();
                CountDownLatch looping = new CountDownLatch(2);
                Thread[] t = new Thread[2];
                for (int r = 0; r < 2; r++) {
                    int id = r;
                    t[r] = new Thread(() -> {
                        try (Rank rank = team.attach(id)) {
                            MemorySegment send = rank.allocate(COUNT * 8);
                            MemorySegment recv = rank.allocate(COUNT * 8);
                            looping.countDown();
                            while (true) {
                                rank.allreduce(send, recv, COUNT, DType.F64, Op.SUM);
                                calls[id]++;
                            }
                        } catch (Throwable e) {
                            got.set(id, e);
                        }
                    });
                    t[r].start();
                }
                looping.await();
                Thread.sleep(20 + 7 * run % 30);
                team.close();
                for (Thread x : t) {
                    x.join();
                }
            });
            for (int r = 0; r < 2; r++) {
                Throwable e = got.get(r);
                if (!(e instanceof TeamAbortedException || e instanceof IllegalStateException)) {
                    fail("run " + run + " rank " + r + " after " + calls[r] + " calls: " + e, e);
                }
            }
        }
    }

    /** (b) the user's shared arena with rank 0's send buffer closed by another thread during the loop. */
    @Test
    void closingTheUsersArenaDuringTheLoop() {
        for (int run = 0; run < RUNS; run++) {
            AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(2);
            Arena user = Arena.ofShared();
            MemorySegment userSend = user.allocate(COUNT * 8, 64);
            CountDownLatch looping = new CountDownLatch(1);
            Throwable fromRun = assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = team(2).build()) {
                    Thread closer = new Thread(() -> {
                        try {
                            looping.await();
                            Thread.sleep(15);
                        } catch (InterruptedException e) {
                            return;
                        }
                        while (true) {
                            try {
                                user.close();              // fails while a native fold holds the arena's session
                                return;
                            } catch (IllegalStateException busy) {
                                Thread.onSpinWait();
                            }
                        }
                    });
                    closer.start();
                    try {
                        team.run(rank -> {
                            try {
                                MemorySegment send = rank.id() == 0 ? userSend : rank.allocate(COUNT * 8);
                                MemorySegment recv = rank.allocate(COUNT * 8);
                                looping.countDown();
                                while (true) {
                                    rank.allreduce(send, recv, COUNT, DType.F64, Op.SUM);
                                }
                            } catch (Throwable e) {
                                got.set(rank.id(), e);
                                throw e;
                            }
                        });
                    } catch (Throwable e) {
                        return e;
                    } finally {
                        closer.join();
                    }
                }
                return null;
            });
            assertInstanceOf(IllegalArgumentException.class, fromRun, "run " + run);
            assertTrue(fromRun.getMessage().contains("rank 0"), fromRun.getMessage());
            for (int r = 0; r < 2; r++) {
                Throwable e = got.get(r);
                boolean ok = r == 0 ? e instanceof IllegalArgumentException || e instanceof TeamAbortedException
                        : e instanceof TeamAbortedException && e.getMessage().contains("rank 0");
                if (!ok) {
                    fail("run " + run + " rank " + r + ": " + e, e);
                }
            }
        }
    }

    /** (c) a send buffer closed before the call, at a streaming size: refused up front on its rank. */
    @Test
    void aSendBufferClosedBeforeTheCall() {
        for (int run = 0; run < RUNS; run++) {
            AtomicReferenceArray<Throwable> got = new AtomicReferenceArray<>(2);
            assertTimeoutPreemptively(BOUND, () -> {
                try (Team team = team(2).build()) {
                    team.run(rank -> {
                        try {
                            MemorySegment send = rank.allocate(COUNT * 8);
                            if (rank.id() == 1) {
                                Arena a = Arena.ofShared();
                                send = a.allocate(COUNT * 8);
                                a.close();
                            }
                            rank.allreduce(send, rank.allocate(COUNT * 8), COUNT, DType.F64, Op.SUM);
                        } catch (Throwable e) {
                            got.set(rank.id(), e);
                            throw e;
                        }
                    });
                } catch (IllegalArgumentException expected) {
                    // checked below, per rank
                }
            });
            IllegalArgumentException e = assertInstanceOf(IllegalArgumentException.class, got.get(1));
            assertTrue(e.getMessage().contains("send of rank 1"), e.getMessage());
            assertInstanceOf(TeamAbortedException.class, got.get(0));
        }
    }
}
