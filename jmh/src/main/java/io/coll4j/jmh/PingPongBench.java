package io.coll4j.jmh;

import io.coll4j.PointToPoint;
import io.coll4j.Rank;
import io.coll4j.Team;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Control;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Point-to-point latency (issue 33): one operation is one round trip of blocking {@code send}/{@code recv} between the
 * two JMH worker threads, each attached as a rank (rank 0 sends then receives, rank 1 receives then sends), so the
 * one-way latency is half the score. {@code bytes}: 8 (the payload in the flag's line), 1K (eager, through the ring)
 * and 64K (rendezvous, one copy). Run with {@code -prof gc}: the blocking path allocates nothing per message, so
 * {@code gc.alloc.rate.norm} must read 0 B/op ({@code ./build bench PingPongBench -prof gc}).
 *
 * <p>Iteration ends: a rank that sees {@code stopMeasurement} only catches up to the round trips its peer entered,
 * never starts a new one (the protocol of {@link CollectiveBench}, whose comment says why it cannot deadlock).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Threads(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class PingPongBench {
    @Param({"8", "1024", "65536"})
    public long bytes;

    /** The team of two and the round trips each rank entered. */
    @State(Scope.Benchmark)
    public static class Shared {
        static final int STRIDE = 16;
        Team team;
        final AtomicLongArray entered = new AtomicLongArray(2 * STRIDE);
        final AtomicInteger nextRank = new AtomicInteger();
        final AtomicInteger detached = new AtomicInteger();

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            if (params.getThreads() != 2) {
                throw new IllegalArgumentException("PingPongBench runs two threads (one per rank), not " + params.getThreads());
            }
            team = Team.builder().ranks(2).build();
        }

        @TearDown(Level.Trial)
        public void close() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (detached.get() < nextRank.get() && System.nanoTime() < deadline) {
                Thread.yield();
            }
            team.close();
        }
    }

    private Shared shared;
    private Rank rank;
    private PointToPoint p2p;
    private MemorySegment send;
    private MemorySegment recv;
    private int id;
    private long calls;

    @Setup(Level.Trial)
    public void attach(Shared s) {
        shared = s;
        id = s.nextRank.getAndIncrement();
        rank = s.team.attach(id);
        p2p = rank.p2p();
        send = rank.allocate(bytes);
        recv = rank.allocate(bytes);
        calls = 0;
    }

    @TearDown(Level.Trial)
    public void detach() {
        rank.close();
        shared.detached.incrementAndGet();
    }

    @Benchmark
    public void roundTrip(Control control) {
        if (!control.stopMeasurement) {
            enterAndRun();
            return;
        }
        long max = Math.max(shared.entered.getAcquire(0), shared.entered.getAcquire(Shared.STRIDE));
        while (calls < max) {
            enterAndRun();
        }
    }

    private void enterAndRun() {
        calls++;
        shared.entered.setRelease(id * Shared.STRIDE, calls);
        if (id == 0) {
            p2p.send(send, 1, 0);
            p2p.recv(recv, 1, 0);
        } else {
            p2p.recv(recv, 0, 0);
            p2p.send(send, 0, 0);
        }
    }
}
