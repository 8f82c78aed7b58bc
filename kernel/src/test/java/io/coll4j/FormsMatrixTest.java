package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every collective × every form (blocking, non-blocking, persistent over two rounds of different data, chained) ×
 * every kind of op (SUM, AVG, a commutative and a non-commutative user op, a pair op; one case for the collectives
 * that do not reduce) × every team shape (one JVM of 3 ranks; 2 processes × 2 ranks and a sub-team across processes
 * of 1 + 2 ranks, the "processes" being teams of this JVM joined as one shared-mapping job; a 3-rank sub-team of a
 * 4-rank team, keys reversed), at counts 0, 1, 7 and 100 (800 bytes and more per rank: beyond the 256 staged
 * bytes, in sliced items of 256), against a scalar reference over global ranks, bitwise: the inputs are small
 * integers, exact in every fold order.
 * A refusal must be an UnsupportedOperationException naming the form, and must be in {@link #REFUSED}: a new refusal
 * fails the test as a wrong result does.
 */
class FormsMatrixTest {
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    /** The combinations still refused, as "shape form collective op": none. */
    private static final Set<String> REFUSED = Set.of();

    enum Form { BLOCKING, NONBLOCKING, PERSISTENT, CHAINED }

    record OpCase(String name, DType dtype, Op op, UserOp user) {
    }

    private static final List<OpCase> OPS = List.of(
            new OpCase("sum", DType.F64, Op.SUM, null),
            new OpCase("avg", DType.F64, Op.AVG, null),
            new OpCase("user", DType.I64, Op.USER, RequestOpsMatrixTest.PLUS_ONE),
            new OpCase("user-noncommutative", DType.I64, Op.USER, OpsAndTypesCollectivesTest.AFFINE),
            new OpCase("minloc", DType.I64_I64, Op.MINLOC, null));
    /** The collectives that move data: one case, i64 elements. */
    private static final OpCase MOVE = new OpCase("-", DType.I64, null, null);
    private static final long[] COUNTS = {0, 1, 7, 100};

    @Test
    void everyFormOfEveryCollectiveTakesEveryOpOnEveryShape() {
        Queue<String> problems = new ConcurrentLinkedQueue<>();
        Set<String> refused = java.util.Collections.synchronizedSet(new TreeSet<>());
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            try (Team team = Team.builder().ranks(3).maxSliceBytes(256).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> matrix(rank, "one-jvm", problems, refused));
            }
            try (Team team = Team.builder().ranks(4).maxSliceBytes(256).timeout(Duration.ofSeconds(30)).build()) {
                team.run(rank -> {
                    try (Rank sub = rank.split(rank.id() == 1 ? Team.UNDEFINED : 0, -rank.id())) {
                        if (sub != null) {
                            matrix(sub, "sub-team", problems, refused);
                        }
                    }
                });
            }
            job(rank -> matrix(rank, "even-span", problems, refused));
            job(rank -> {
                // process 0 keeps global rank 1 only, process 1 both of its ranks: a span of 1 + 2
                try (Rank sub = rank.split(rank.id() == 0 ? Team.UNDEFINED : 0, rank.id())) {
                    if (sub != null) {
                        matrix(sub, "uneven-span", problems, refused);
                    }
                }
            });
        });
        assertTrue(problems.isEmpty(), () -> problems.size() + " wrong results, e.g. " + problems.stream().limit(5).toList());
        assertEquals(REFUSED, refused, "the refusals");
    }

    /** Two teams of 2 ranks, each on a thread of its own, joined as one job of 2 processes; rethrows the first failure. */
    private static void job(RankBody body) throws InterruptedException {
        String job = ProcessThreads.jobName("forms");
        ProcessThreads.run(2, index -> {
            try (Team team = Team.builder().ranks(2).processes(2, index).name(job).maxSliceBytes(256)
                    .timeout(Duration.ofSeconds(30)).build()) {
                team.run(body);
            }
        });
    }

    private static void matrix(Rank rank, String shape, Queue<String> problems, Set<String> refused) {
        for (Collective c : Collective.values()) {
            for (OpCase o : c.reduces() ? OPS : List.of(MOVE)) {
                for (long n : COUNTS) {
                    Case k = new Case(rank, c, o, n);
                    for (Form f : Form.values()) {
                        try {
                            k.run(f, shape, problems);
                        } catch (UnsupportedOperationException e) {
                            String form = switch (f) {
                                case BLOCKING -> "";
                                case NONBLOCKING -> "non-blocking";
                                case PERSISTENT -> "persistent";
                                case CHAINED -> "chained";
                            };
                            if (!e.getMessage().contains(form) || !e.getMessage().contains(c.cliName())) {
                                problems.add(shape + " " + f + " " + c.cliName() + ": the refusal names neither form nor "
                                        + "collective: " + e.getMessage());
                            }
                            refused.add(shape + " " + f + " " + c.cliName() + " " + o.name());
                        }
                    }
                }
            }
        }
    }

    /** One collective's arguments on one rank, its inputs and the reference result. */
    private static final class Case {
        final Rank rank;
        final Collective c;
        final OpCase o;
        final long n;
        final int p;
        final int me;
        final int root;
        /** Longs per element (a pair is two). */
        final int w;
        /** The v-forms' counts and displacements (gaps between blocks, in reverse rank order). */
        final long[] counts;
        final long[] displs;
        /** Alltoallv: what this rank sends to and receives from each rank. */
        final long[] sendCounts;
        final long[] sendDispls;
        final long[] recvCounts;
        final long[] recvDispls;
        final long sendElems;
        final long recvElems;
        final MemorySegment send;
        final MemorySegment recv;

        Case(Rank rank, Collective c, OpCase o, long n) {
            this.rank = rank;
            this.c = c;
            this.o = o;
            this.n = n;
            this.p = rank.size();
            this.me = rank.id();
            this.root = (int) ((n + p - 1) % p);   // the last rank (not a leader on 2 x 2), the first, ...
            this.w = o.dtype().size() / 8;
            counts = new long[p];
            displs = new long[p];
            long at = 0;
            for (int q = p - 1; q >= 0; q--) {
                counts[q] = n == 0 || q == 1 ? 0 : n + q;
                displs[q] = at;
                at += counts[q] + 1;
            }
            long vExtent = at;
            sendCounts = new long[p];
            sendDispls = new long[p];
            recvCounts = new long[p];
            recvDispls = new long[p];
            long s = 0;
            long r = 0;
            for (int q = 0; q < p; q++) {
                sendCounts[q] = pair(me, q);
                sendDispls[q] = s;
                s += sendCounts[q];
            }
            for (int q = p - 1; q >= 0; q--) {
                recvCounts[q] = pair(q, me);
                recvDispls[q] = r;
                r += recvCounts[q] + 1;
            }
            long total = java.util.Arrays.stream(counts).sum();
            sendElems = switch (c) {
                case REDUCE_SCATTER, SCATTER, ALLTOALL -> n * p;
                case REDUCE_SCATTER_V -> total;
                case SCATTERV -> vExtent;
                case GATHERV, ALLGATHERV -> counts[me];
                case ALLTOALLV -> s;
                default -> n;
            };
            recvElems = switch (c) {
                case ALLGATHER, GATHER, ALLTOALL -> n * p;
                case GATHERV, ALLGATHERV -> vExtent;
                case SCATTERV, REDUCE_SCATTER_V -> counts[me];
                case ALLTOALLV -> r;
                default -> n;
            };
            send = rank.allocate(o.dtype().size() * sendElems + 16);
            recv = rank.allocate(o.dtype().size() * recvElems + 16);
        }

        /** Elements rank i sends rank j in alltoallv. */
        long pair(int i, int j) {
            return n == 0 ? 0 : n + (i + 2L * j) % 3;
        }

        /** Element {@code i} of global rank {@code g}'s send in round {@code k}: small integers, exact in any fold order. */
        long[] input(int g, long i, int k) {
            long small = (g * 31L + i * 7 + k * 5) % 13 - 6;
            if (o == MOVE) {
                return new long[]{(k * 100L + g + 1) * 1_000_000 + i};
            }
            return switch (o.name()) {
                case "sum", "avg" -> new long[]{Double.doubleToRawLongBits(small)};
                case "user" -> new long[]{small};
                case "user-noncommutative" -> new long[]{((2 * ((g * 7L + i * 3 + k) % 5) + 1) << 32) | ((small + 6) * 37)};
                default -> new long[]{(g * 7L + i * 3 + k) % 5, g};   // minloc: (value, index)
            };
        }

        /** {@code a op b}, a from the lower rank. */
        long[] op(long[] a, long[] b) {
            return switch (o.name()) {
                case "sum", "avg" -> new long[]{Double.doubleToRawLongBits(Double.longBitsToDouble(a[0])
                        + Double.longBitsToDouble(b[0]))};
                case "user" -> new long[]{a[0] + b[0] + 1};
                case "user-noncommutative" -> new long[]{OpsAndTypesCollectivesTest.affine(a[0], b[0])};
                default -> b[0] < a[0] || b[0] == a[0] && b[1] < a[1] ? b : a;
            };
        }

        /** The left fold of element {@code i} over global ranks {@code 0 .. last}, AVG divided by their number. */
        long[] fold(int last, long i, int k) {
            long[] acc = input(0, i, k);
            for (int g = 1; g <= last; g++) {
                acc = op(acc, input(g, i, k));
            }
            if (o.op() == Op.AVG) {
                acc = new long[]{Double.doubleToRawLongBits(Double.longBitsToDouble(acc[0]) / (last + 1))};
            }
            return acc;
        }

        void put(MemorySegment s, long at, long[] v) {
            MemorySegment.copy(v, 0, s, L, at * 8L * w, w);
        }

        /** This rank's expected receive buffer in round {@code k} (elements it does not write keep the marker), or null: no result. */
        MemorySegment expected(int k) {
            MemorySegment e = MemorySegment.ofArray(new byte[(int) recv.byteSize()]);
            e.fill((byte) 0x5A);
            long[] off = new long[p];
            for (int q = 1; q < p; q++) {
                off[q] = off[q - 1] + counts[q - 1];
            }
            switch (c) {
                case BARRIER -> {
                    return null;
                }
                case BCAST -> fill(e, 0, n, i -> input(root, i, k));
                case REDUCE -> {
                    if (me != root) {
                        return null;
                    }
                    fill(e, 0, n, i -> fold(p - 1, i, k));
                }
                case ALLREDUCE -> fill(e, 0, n, i -> fold(p - 1, i, k));
                case REDUCE_SCATTER -> fill(e, 0, n, i -> fold(p - 1, me * n + i, k));
                case REDUCE_SCATTER_V -> fill(e, 0, counts[me], i -> fold(p - 1, off[me] + i, k));
                case SCAN -> fill(e, 0, n, i -> fold(me, i, k));
                case EXSCAN -> {
                    if (me == 0) {
                        return null;
                    }
                    fill(e, 0, n, i -> fold(me - 1, i, k));
                }
                case ALLGATHER, GATHER -> {
                    if (c == Collective.GATHER && me != root) {
                        return null;
                    }
                    for (int g = 0; g < p; g++) {
                        int from = g;
                        fill(e, g * n, n, i -> input(from, i, k));
                    }
                }
                case SCATTER -> fill(e, 0, n, i -> input(root, me * n + i, k));
                case ALLTOALL -> {
                    for (int g = 0; g < p; g++) {
                        int from = g;
                        fill(e, g * n, n, i -> input(from, me * n + i, k));
                    }
                }
                case GATHERV, ALLGATHERV -> {
                    if (c == Collective.GATHERV && me != root) {
                        return null;
                    }
                    for (int g = 0; g < p; g++) {
                        int from = g;
                        fill(e, displs[g], counts[g], i -> input(from, i, k));
                    }
                }
                case SCATTERV -> fill(e, 0, counts[me], i -> input(root, displs[me] + i, k));
                case ALLTOALLV -> {
                    for (int g = 0; g < p; g++) {
                        int from = g;
                        long at = 0;   // where rank g's block for this rank starts in g's packed send
                        for (int q = 0; q < me; q++) {
                            at += pair(g, q);
                        }
                        long first = at;
                        fill(e, recvDispls[g], recvCounts[g], i -> input(from, first + i, k));
                    }
                }
            }
            return e;
        }

        void fill(MemorySegment e, long from, long count, java.util.function.LongFunction<long[]> v) {
            for (long i = 0; i < count; i++) {
                put(e, from + i, v.apply(i));
            }
        }

        /** Runs form {@code f} (a persistent request twice, on new data) and compares with the reference. */
        void run(Form f, String shape, Queue<String> problems) {
            PersistentRequest persistent = null;
            for (int k = 0; k < (f == Form.PERSISTENT ? 2 : 1); k++) {
                for (long i = 0; i < sendElems; i++) {
                    put(send, i, input(me, i, k));
                }
                recv.fill((byte) 0x5A);
                if (c == Collective.BCAST) {
                    for (long i = 0; i < n; i++) {
                        put(recv, i, me == root ? input(root, i, k) : new long[w]);
                    }
                }
                switch (f) {
                    case BLOCKING -> blocking();
                    case NONBLOCKING -> nonBlocking().await();
                    case PERSISTENT -> {
                        if (persistent == null) {
                            persistent = persistent();
                        }
                        persistent.start();
                        persistent.await();
                    }
                    case CHAINED -> chained(rank.chain()).start().await();
                }
                MemorySegment want = expected(k);
                long at = want == null ? -1 : recv.mismatch(want);
                if (at >= 0) {
                    problems.add(shape + " " + f + " " + c.cliName() + " " + o.name() + " n=" + n + " round " + k + " rank "
                            + me + ": byte " + at + " of " + recv.byteSize() + " differs");
                }
            }
            if (persistent != null) {
                persistent.close();
            }
        }

        void blocking() {
            UserOp u = o.user();
            DType t = o.dtype();
            switch (c) {
                case BARRIER -> rank.barrier();
                case BCAST -> rank.bcast(recv, n, t, root);
                case REDUCE -> { if (u != null) rank.reduce(send, recv, n, u, root); else rank.reduce(send, recv, n, t, o.op(), root); }
                case ALLREDUCE -> { if (u != null) rank.allreduce(send, recv, n, u); else rank.allreduce(send, recv, n, t, o.op()); }
                case REDUCE_SCATTER -> { if (u != null) rank.reduceScatter(send, recv, n, u); else rank.reduceScatter(send, recv, n, t, o.op()); }
                case REDUCE_SCATTER_V -> { if (u != null) rank.reduceScatterV(send, recv, counts, u); else rank.reduceScatterV(send, recv, counts, t, o.op()); }
                case SCAN -> { if (u != null) rank.scan(send, recv, n, u); else rank.scan(send, recv, n, t, o.op()); }
                case EXSCAN -> { if (u != null) rank.exscan(send, recv, n, u); else rank.exscan(send, recv, n, t, o.op()); }
                case ALLGATHER -> rank.allgather(send, recv, n, t);
                case GATHER -> rank.gather(send, recv, n, t, root);
                case SCATTER -> rank.scatter(send, recv, n, t, root);
                case ALLTOALL -> rank.alltoall(send, recv, n, t);
                case GATHERV -> rank.gatherv(send, counts[me], recv, counts, displs, t, root);
                case SCATTERV -> rank.scatterv(send, counts, displs, recv, counts[me], t, root);
                case ALLGATHERV -> rank.allgatherv(send, counts[me], recv, counts, displs, t);
                case ALLTOALLV -> rank.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            }
        }

        Request nonBlocking() {
            UserOp u = o.user();
            DType t = o.dtype();
            return switch (c) {
                case BARRIER -> rank.ibarrier();
                case BCAST -> rank.ibcast(recv, n, t, root);
                case REDUCE -> u != null ? rank.ireduce(send, recv, n, u, root) : rank.ireduce(send, recv, n, t, o.op(), root);
                case ALLREDUCE -> u != null ? rank.iallreduce(send, recv, n, u) : rank.iallreduce(send, recv, n, t, o.op());
                case REDUCE_SCATTER -> u != null ? rank.ireduceScatter(send, recv, n, u) : rank.ireduceScatter(send, recv, n, t, o.op());
                case REDUCE_SCATTER_V -> u != null ? rank.ireduceScatterV(send, recv, counts, u)
                        : rank.ireduceScatterV(send, recv, counts, t, o.op());
                case SCAN -> u != null ? rank.iscan(send, recv, n, u) : rank.iscan(send, recv, n, t, o.op());
                case EXSCAN -> u != null ? rank.iexscan(send, recv, n, u) : rank.iexscan(send, recv, n, t, o.op());
                case ALLGATHER -> rank.iallgather(send, recv, n, t);
                case GATHER -> rank.igather(send, recv, n, t, root);
                case SCATTER -> rank.iscatter(send, recv, n, t, root);
                case ALLTOALL -> rank.ialltoall(send, recv, n, t);
                case GATHERV -> rank.igatherv(send, counts[me], recv, counts, displs, t, root);
                case SCATTERV -> rank.iscatterv(send, counts, displs, recv, counts[me], t, root);
                case ALLGATHERV -> rank.iallgatherv(send, counts[me], recv, counts, displs, t);
                case ALLTOALLV -> rank.ialltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            };
        }

        PersistentRequest persistent() {
            UserOp u = o.user();
            DType t = o.dtype();
            return switch (c) {
                case BARRIER -> rank.barrierInit();
                case BCAST -> rank.bcastInit(recv, n, t, root);
                case REDUCE -> u != null ? rank.reduceInit(send, recv, n, u, root) : rank.reduceInit(send, recv, n, t, o.op(), root);
                case ALLREDUCE -> u != null ? rank.allreduceInit(send, recv, n, u) : rank.allreduceInit(send, recv, n, t, o.op());
                case REDUCE_SCATTER -> u != null ? rank.reduceScatterInit(send, recv, n, u)
                        : rank.reduceScatterInit(send, recv, n, t, o.op());
                case REDUCE_SCATTER_V -> u != null ? rank.reduceScatterVInit(send, recv, counts, u)
                        : rank.reduceScatterVInit(send, recv, counts, t, o.op());
                case SCAN -> u != null ? rank.scanInit(send, recv, n, u) : rank.scanInit(send, recv, n, t, o.op());
                case EXSCAN -> u != null ? rank.exscanInit(send, recv, n, u) : rank.exscanInit(send, recv, n, t, o.op());
                case ALLGATHER -> rank.allgatherInit(send, recv, n, t);
                case GATHER -> rank.gatherInit(send, recv, n, t, root);
                case SCATTER -> rank.scatterInit(send, recv, n, t, root);
                case ALLTOALL -> rank.alltoallInit(send, recv, n, t);
                case GATHERV -> rank.gathervInit(send, counts[me], recv, counts, displs, t, root);
                case SCATTERV -> rank.scattervInit(send, counts, displs, recv, counts[me], t, root);
                case ALLGATHERV -> rank.allgathervInit(send, counts[me], recv, counts, displs, t);
                case ALLTOALLV -> rank.alltoallvInit(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            };
        }

        Chain chained(Chain ch) {
            UserOp u = o.user();
            DType t = o.dtype();
            return switch (c) {
                case BARRIER -> ch.barrier();
                case BCAST -> ch.bcast(recv, n, t, root);
                case REDUCE -> u != null ? ch.reduce(send, recv, n, u, root) : ch.reduce(send, recv, n, t, o.op(), root);
                case ALLREDUCE -> u != null ? ch.allreduce(send, recv, n, u) : ch.allreduce(send, recv, n, t, o.op());
                case REDUCE_SCATTER -> u != null ? ch.reduceScatter(send, recv, n, u) : ch.reduceScatter(send, recv, n, t, o.op());
                case REDUCE_SCATTER_V -> u != null ? ch.reduceScatterV(send, recv, counts, u)
                        : ch.reduceScatterV(send, recv, counts, t, o.op());
                case SCAN -> u != null ? ch.scan(send, recv, n, u) : ch.scan(send, recv, n, t, o.op());
                case EXSCAN -> u != null ? ch.exscan(send, recv, n, u) : ch.exscan(send, recv, n, t, o.op());
                case ALLGATHER -> ch.allgather(send, recv, n, t);
                case GATHER -> ch.gather(send, recv, n, t, root);
                case SCATTER -> ch.scatter(send, recv, n, t, root);
                case ALLTOALL -> ch.alltoall(send, recv, n, t);
                case GATHERV -> ch.gatherv(send, counts[me], recv, counts, displs, t, root);
                case SCATTERV -> ch.scatterv(send, counts, displs, recv, counts[me], t, root);
                case ALLGATHERV -> ch.allgatherv(send, counts[me], recv, counts, displs, t);
                case ALLTOALLV -> ch.alltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, t);
            };
        }
    }
}
