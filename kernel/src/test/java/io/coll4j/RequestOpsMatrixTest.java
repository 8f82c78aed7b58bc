package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.coll4j.NonBlockingCollectivesTest.check;
import static io.coll4j.NonBlockingCollectivesTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * AVG and user ops on every non-blocking, persistent and chained form of every reducing collective, against the
 * blocking call of the same arguments, bitwise: p = 1, 2, 3, 5, counts 0, 1, 7 (staged) and 1000 (sliced, in
 * items of 256 bytes), a persistent request over two rounds of different data. The inputs make every blocking
 * fold order give the same sums (exact doubles, wrapping longs), so a difference is the form's own: a missing or
 * wrong division, the built-in SUM in place of the user's function, or a non-commutative op folded out of rank
 * order.
 */
class RequestOpsMatrixTest {

    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    /** Associative and commutative, and not a built-in op: p contributions give their sum plus p − 1. */
    static final UserOp PLUS_ONE = UserOp.ofLongs("plus-one", DType.I64, true, (a, b) -> a + b + 1);

    record OpCase(String name, DType dtype, Op op, UserOp user) {
    }

    static final List<OpCase> OPS = List.of(
            new OpCase("avg f64", DType.F64, Op.AVG, null),
            new OpCase("avg i64", DType.I64, Op.AVG, null),
            new OpCase("user commutative", DType.I64, Op.USER, PLUS_ONE),
            new OpCase("user non-commutative", DType.I64, Op.USER, OpsAndTypesCollectivesTest.AFFINE));

    static final List<Collective> REDUCING = List.of(Collective.REDUCE, Collective.ALLREDUCE, Collective.REDUCE_SCATTER,
            Collective.REDUCE_SCATTER_V, Collective.SCAN, Collective.EXSCAN);

    enum Form { NONBLOCKING, PERSISTENT, CHAINED }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void everyRequestFormMatchesTheBlockingCall(int p) {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        run(p, 256, rank -> {
            for (long n : new long[]{0, 1, 7, 1000}) {
                for (OpCase o : OPS) {
                    for (Collective c : REDUCING) {
                        for (Form f : Form.values()) {
                            compare(rank, c, f, o, n, problems);
                        }
                    }
                }
            }
        });
        check(problems);
    }

    private static void compare(Rank rank, Collective c, Form f, OpCase o, long n, Queue<String> problems) {
        int p = rank.size();
        int me = rank.id();
        int root = (int) (n % p);
        long[] counts = new long[p];
        for (int q = 0; q < p; q++) {
            counts[q] = n == 0 ? 0 : n + q;
        }
        long total = java.util.Arrays.stream(counts).sum();
        long sendElems = c == Collective.REDUCE_SCATTER ? n * p : c == Collective.REDUCE_SCATTER_V ? total : n;
        long recvElems = c == Collective.REDUCE_SCATTER_V ? counts[me] : n;
        MemorySegment send = rank.allocate(8 * sendElems + 8);
        MemorySegment expected = rank.allocate(8 * recvElems + 8);
        MemorySegment got = rank.allocate(8 * recvElems + 8);
        // rank 0's exscan and a non-root's reduce have no result
        boolean hasResult = !(c == Collective.EXSCAN && me == 0) && !(c == Collective.REDUCE && me != root);
        String what = f + " " + c.cliName() + " " + o.name() + " p=" + p + " n=" + n + " rank " + me;
        PersistentRequest persistent = null;
        int rounds = f == Form.PERSISTENT ? 2 : 1;
        for (int round = 0; round < rounds; round++) {
            fill(send, sendElems, o, me, round);
            expected.fill((byte) 0x5A);
            got.fill((byte) 0x5A);
            blocking(rank, c, send, expected, n, counts, o, root);
            switch (f) {
                case NONBLOCKING -> nonBlocking(rank, c, send, got, n, counts, o, root).await();
                case PERSISTENT -> {
                    if (persistent == null) {
                        persistent = persistentInit(rank, c, send, got, n, counts, o, root);
                    }
                    persistent.start();
                    persistent.await();
                }
                case CHAINED -> chained(rank, c, send, got, n, counts, o, root).await();
            }
            if (hasResult && got.asSlice(0, 8 * recvElems).mismatch(expected.asSlice(0, 8 * recvElems)) >= 0) {
                long at = got.asSlice(0, 8 * recvElems).mismatch(expected.asSlice(0, 8 * recvElems)) / 8;
                problems.add(what + " round " + round + ": element " + at + " is " + show(o, got, at) + ", blocking gave "
                        + show(o, expected, at));
            }
        }
        if (persistent != null) {
            persistent.close();
        }
    }

    private static String show(OpCase o, MemorySegment s, long at) {
        return o.dtype() == DType.F64 ? Double.toString(s.getAtIndex(D, at)) : Long.toHexString(s.getAtIndex(L, at));
    }

    /** Values whose sums are exact in any order (AVG f64), signed so i64's truncation is exercised, odd multipliers for AFFINE. */
    private static void fill(MemorySegment send, long elems, OpCase o, int me, int round) {
        for (long i = 0; i < elems; i++) {
            long k = me * 7919L + i * 104_729L + round * 15_485_863L;
            if (o.dtype() == DType.F64) {
                send.setAtIndex(D, i, (k % 2001 - 1000) * 0.25);
            } else if (o.user() == OpsAndTypesCollectivesTest.AFFINE) {
                send.setAtIndex(L, i, ((2 * (k % 1000) + 1) << 32) | ((k * 31) & 0xFFFF_FFFFL));
            } else {
                send.setAtIndex(L, i, k % 2001 - 1000);
            }
        }
    }

    private static void blocking(Rank r, Collective c, MemorySegment s, MemorySegment d, long n, long[] counts, OpCase o,
                                 int root) {
        UserOp u = o.user();
        switch (c) {
            case REDUCE -> { if (u != null) r.reduce(s, d, n, u, root); else r.reduce(s, d, n, o.dtype(), o.op(), root); }
            case ALLREDUCE -> { if (u != null) r.allreduce(s, d, n, u); else r.allreduce(s, d, n, o.dtype(), o.op()); }
            case REDUCE_SCATTER -> {
                if (u != null) r.reduceScatter(s, d, n, u); else r.reduceScatter(s, d, n, o.dtype(), o.op());
            }
            case REDUCE_SCATTER_V -> {
                if (u != null) r.reduceScatterV(s, d, counts, u); else r.reduceScatterV(s, d, counts, o.dtype(), o.op());
            }
            case SCAN -> { if (u != null) r.scan(s, d, n, u); else r.scan(s, d, n, o.dtype(), o.op()); }
            case EXSCAN -> { if (u != null) r.exscan(s, d, n, u); else r.exscan(s, d, n, o.dtype(), o.op()); }
            default -> throw new IllegalArgumentException(c.cliName());
        }
    }

    private static Request nonBlocking(Rank r, Collective c, MemorySegment s, MemorySegment d, long n, long[] counts,
                                       OpCase o, int root) {
        UserOp u = o.user();
        return switch (c) {
            case REDUCE -> u != null ? r.ireduce(s, d, n, u, root) : r.ireduce(s, d, n, o.dtype(), o.op(), root);
            case ALLREDUCE -> u != null ? r.iallreduce(s, d, n, u) : r.iallreduce(s, d, n, o.dtype(), o.op());
            case REDUCE_SCATTER -> u != null ? r.ireduceScatter(s, d, n, u) : r.ireduceScatter(s, d, n, o.dtype(), o.op());
            case REDUCE_SCATTER_V -> u != null ? r.ireduceScatterV(s, d, counts, u)
                    : r.ireduceScatterV(s, d, counts, o.dtype(), o.op());
            case SCAN -> u != null ? r.iscan(s, d, n, u) : r.iscan(s, d, n, o.dtype(), o.op());
            case EXSCAN -> u != null ? r.iexscan(s, d, n, u) : r.iexscan(s, d, n, o.dtype(), o.op());
            default -> throw new IllegalArgumentException(c.cliName());
        };
    }

    private static PersistentRequest persistentInit(Rank r, Collective c, MemorySegment s, MemorySegment d, long n,
                                                    long[] counts, OpCase o, int root) {
        UserOp u = o.user();
        return switch (c) {
            case REDUCE -> u != null ? r.reduceInit(s, d, n, u, root) : r.reduceInit(s, d, n, o.dtype(), o.op(), root);
            case ALLREDUCE -> u != null ? r.allreduceInit(s, d, n, u) : r.allreduceInit(s, d, n, o.dtype(), o.op());
            case REDUCE_SCATTER -> u != null ? r.reduceScatterInit(s, d, n, u)
                    : r.reduceScatterInit(s, d, n, o.dtype(), o.op());
            case REDUCE_SCATTER_V -> u != null ? r.reduceScatterVInit(s, d, counts, u)
                    : r.reduceScatterVInit(s, d, counts, o.dtype(), o.op());
            case SCAN -> u != null ? r.scanInit(s, d, n, u) : r.scanInit(s, d, n, o.dtype(), o.op());
            case EXSCAN -> u != null ? r.exscanInit(s, d, n, u) : r.exscanInit(s, d, n, o.dtype(), o.op());
            default -> throw new IllegalArgumentException(c.cliName());
        };
    }

    private static Request chained(Rank r, Collective c, MemorySegment s, MemorySegment d, long n, long[] counts, OpCase o,
                                   int root) {
        UserOp u = o.user();
        Chain chain = r.chain();
        switch (c) {
            case REDUCE -> { if (u != null) chain.reduce(s, d, n, u, root); else chain.reduce(s, d, n, o.dtype(), o.op(), root); }
            case ALLREDUCE -> { if (u != null) chain.allreduce(s, d, n, u); else chain.allreduce(s, d, n, o.dtype(), o.op()); }
            case REDUCE_SCATTER -> {
                if (u != null) chain.reduceScatter(s, d, n, u); else chain.reduceScatter(s, d, n, o.dtype(), o.op());
            }
            case REDUCE_SCATTER_V -> {
                if (u != null) chain.reduceScatterV(s, d, counts, u); else chain.reduceScatterV(s, d, counts, o.dtype(), o.op());
            }
            case SCAN -> { if (u != null) chain.scan(s, d, n, u); else chain.scan(s, d, n, o.dtype(), o.op()); }
            case EXSCAN -> { if (u != null) chain.exscan(s, d, n, u); else chain.exscan(s, d, n, o.dtype(), o.op()); }
            default -> throw new IllegalArgumentException(c.cliName());
        }
        return chain.start();
    }

    /** AVG in a pipelined chain: each chunk is divided before its step sees it. */
    @Test
    void aPipelinedAverageIsDividedBeforeEachChunksStep() {
        run(3, 256, rank -> {
            long n = 1000;
            MemorySegment send = rank.allocate(8 * n);
            MemorySegment recv = rank.allocate(8 * n);
            for (long i = 0; i < n; i++) {
                send.setAtIndex(D, i, rank.id() * 3.0 + i);
            }
            double[] seen = new double[(int) n];
            rank.chain().allreducePipelined(send, recv, n, DType.F64, Op.AVG, 4, (first, count) -> {
                for (long i = first; i < first + count; i++) {
                    seen[(int) i] = recv.getAtIndex(D, i);
                }
            }).start().await();
            for (int i = 0; i < n; i++) {
                assertEquals(3.0 + i, seen[i], "element " + i);   // (0 + 3 + 6) / 3 + i
            }
        });
    }

    /** Op.USER through a DType overload names the overload to call, on every form, before anything is shared. */
    @Test
    void userWithoutItsUserOpIsRefusedOnEveryForm() {
        run(2, 256, rank -> {
            MemorySegment s = rank.allocate(64);
            MemorySegment d = rank.allocate(64);
            for (Runnable call : List.<Runnable>of(
                    () -> rank.iallreduce(s, d, 2, DType.I64, Op.USER),
                    () -> rank.reduceInit(s, d, 2, DType.I64, Op.USER, 0),
                    () -> rank.chain().reduceScatter(s, d, 1, DType.I64, Op.USER))) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
                assertTrue(e.getMessage().contains("UserOp"), e.getMessage());
            }
            rank.barrier();
        });
    }
}
