package io.coll4j.jmh;

import io.coll4j.Rank;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/**
 * Reduce-scatter → a local step on the rank's block (scale by 0.5) → allgather of {@code bytes}: as
 * three blocking calls ({@code form=blocking}) or as one chained request ({@code form=chain}). The team
 * and the batch discipline are {@link NonBlockingBench}'s; one operation is the whole sequence.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(2)
@Warmup(iterations = 3, batchSize = 5)
@Measurement(iterations = 5, batchSize = 5)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED"})
public class ChainBench {
    @Param({"2"})
    public int ranks;

    @Param({"4M", "64M"})
    public String bytes;

    @Param({"blocking", "chain"})
    public String form;

    private NonBlockingBench.Shared shared;
    private Rank rank;
    private long block;
    private MemorySegment send;
    private MemorySegment mine;
    private MemorySegment all;

    @Setup(Level.Trial)
    public void attach(NonBlockingBench.Shared s) {
        shared = s;
        rank = s.team.attach(s.nextRank.getAndIncrement());
        block = CopyBench.parseSize(bytes) / 8 / ranks;
        send = rank.allocate(block * ranks * 8);
        mine = rank.allocate(block * 8);
        all = rank.allocate(block * ranks * 8);
        for (long i = 0; i < block * ranks; i++) {
            send.setAtIndex(ValueLayout.JAVA_DOUBLE, i, rank.id() + (i & 7));
        }
    }

    @TearDown(Level.Trial)
    public void detach() {
        rank.close();
        shared.detached.incrementAndGet();
    }

    private void halve() {
        for (long i = 0; i < block; i++) {
            mine.setAtIndex(ValueLayout.JAVA_DOUBLE, i, mine.getAtIndex(ValueLayout.JAVA_DOUBLE, i) * 0.5);
        }
    }

    @Benchmark
    public void sequence() {
        if (form.equals("chain")) {
            rank.chain().reduceScatter(send, mine, block, DType.F64, Op.SUM).then(this::halve)
                    .allgather(mine, all, block, DType.F64).start().await();
        } else {
            rank.reduceScatter(send, mine, block, DType.F64, Op.SUM);
            halve();
            rank.allgather(mine, all, block, DType.F64);
        }
    }
}
