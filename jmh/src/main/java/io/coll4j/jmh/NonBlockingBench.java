package io.coll4j.jmh;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The non-blocking and persistent forms against the blocking plan, one suite: {@code form} is
 * {@code blocking} ({@link CollectivePlan#execute}, the model's algorithm), {@code nonblocking}
 * ({@code rank.iallreduce(...).await()} and the like) or {@code persistent} ({@code start(); await()} of a request bound in
 * setup). One operation is one call by one rank (F64 SUM, out of place, root 0). The v-variants take the uneven
 * split of {@link VectorShapes}, the same counts in all three forms.
 *
 * <p>SingleShotTime with a batch: every rank makes exactly {@code -bs} calls per iteration, so no rank
 * can be left waiting in a collective when JMH ends an iteration (the catch-up protocol of
 * {@link CollectiveBench} is not needed); JMH reports the time of the whole batch — divide by the batch
 * size. {@code ranks} must equal JMH's thread count ({@code -t N -p ranks=N}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(2)
@Warmup(iterations = 5, batchSize = 2000)
@Measurement(iterations = 5, batchSize = 2000)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class NonBlockingBench {
    @Param({"2"})
    public int ranks;

    @Param({"allreduce", "reduce-scatter", "allgather", "bcast", "gather", "scatter", "alltoall", "scan", "exscan",
            "gatherv", "scatterv", "allgatherv", "reduce-scatter-v", "alltoallv"})
    public String collective;

    @Param({"8", "64K", "4M"})
    public String bytes;

    @Param({"blocking", "nonblocking", "persistent"})
    public String form;

    private Shared shared;
    private Rank rank;
    private Collective c;
    private long count;
    private MemorySegment send;
    private MemorySegment recv;
    private CollectivePlan plan;
    private PersistentRequest persistent;
    /** A v-variant's {sendCounts, sendDispls, recvCounts, recvDispls} ({@link VectorShapes#layout}). */
    private long[][] v;

    /** The team, one per JMH run; closed once every thread has detached. */
    @State(Scope.Benchmark)
    public static class Shared {
        Team team;
        final AtomicInteger nextRank = new AtomicInteger();
        final AtomicInteger detached = new AtomicInteger();

        @Setup(Level.Trial)
        public void build(BenchmarkParams params) {
            int p = CollectiveBench.checkThreads(params.getParam("ranks"), params.getThreads());
            team = Team.builder().ranks(p).build();
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

    @Setup(Level.Trial)
    public void attach(Shared s) {
        shared = s;
        rank = s.team.attach(s.nextRank.getAndIncrement());
        c = Collective.parse(collective);
        CollectiveBench.Shape shape = CollectiveBench.Shape.of(c, CopyBench.parseSize(bytes), ranks);
        count = shape.callCount();
        send = rank.allocate(shape.sendBytes());
        recv = rank.allocate(shape.recvBytes());
        for (long i = 0; i < shape.sendBytes() / 8; i++) {
            send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, rank.id() + 1 + (i & 15) * 0.125);
        }
        plan = rank.plan(c, count, DType.F64, Op.SUM, 0);
        v = VectorShapes.layout(c, count, ranks, rank.id());
        if (form.equals("persistent")) {
            persistent = c.vector() ? rank.init(plan, send, v[0], v[1], recv, v[2], v[3]) : rank.init(plan, send, recv);
        } else if (!form.equals("blocking") && !form.equals("nonblocking")) {
            throw new IllegalArgumentException("form must be blocking, nonblocking or persistent, got " + form);
        }
    }

    @TearDown(Level.Trial)
    public void detach() {
        if (persistent != null) {
            persistent.close();
        }
        rank.close();
        shared.detached.incrementAndGet();
    }

    @Benchmark
    public void call() {
        switch (form) {
            case "blocking" -> {
                if (c.vector()) {
                    plan.execute(send, v[0], v[1], recv, v[2], v[3]);
                } else {
                    plan.execute(send, recv);
                }
            }
            case "persistent" -> {
                persistent.start();
                persistent.await();
            }
            default -> issue().await();
        }
    }

    private Request issue() {
        return switch (c) {
            case ALLREDUCE -> rank.iallreduce(send, recv, count, DType.F64, Op.SUM);
            case REDUCE_SCATTER -> rank.ireduceScatter(send, recv, count, DType.F64, Op.SUM);
            case ALLGATHER -> rank.iallgather(send, recv, count, DType.F64);
            case BCAST -> rank.ibcast(send, count, DType.F64, 0);
            case REDUCE -> rank.ireduce(send, recv, count, DType.F64, Op.SUM, 0);
            case BARRIER -> rank.ibarrier();
            case GATHER -> rank.igather(send, recv, count, DType.F64, 0);
            case SCATTER -> rank.iscatter(send, recv, count, DType.F64, 0);
            case ALLTOALL -> rank.ialltoall(send, recv, count, DType.F64);
            case SCAN -> rank.iscan(send, recv, count, DType.F64, Op.SUM);
            case EXSCAN -> rank.iexscan(send, recv, count, DType.F64, Op.SUM);
            case GATHERV -> rank.igatherv(send, v[0][0], recv, v[2], v[3], DType.F64, 0);
            case SCATTERV -> rank.iscatterv(send, v[0], v[1], recv, v[2][0], DType.F64, 0);
            case ALLGATHERV -> rank.iallgatherv(send, v[0][0], recv, v[2], v[3], DType.F64);
            case REDUCE_SCATTER_V -> rank.ireduceScatterV(send, recv, v[2], DType.F64, Op.SUM);
            case ALLTOALLV -> rank.ialltoallv(send, v[0], v[1], recv, v[2], v[3], DType.F64);
        };
    }
}
