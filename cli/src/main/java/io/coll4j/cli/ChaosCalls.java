package io.coll4j.cli;

import io.coll4j.Chain;
import io.coll4j.Collective;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.cli.ChaosPlan.Form;
import io.coll4j.cli.ChaosPlan.Spec;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The calls the soak makes, in every form (blocking, user op, one-shot request, persistent request, chain), with
 * their buffers filled from and checked against the scalar reference ({@link BenchData}).
 */
final class ChaosCalls {
    /** Buffers of one call, filled with its inputs (the receive side with a pattern no result has). */
    record Bufs(MemorySegment send, MemorySegment recv) {
    }

    static Bufs alloc(Arena a, Spec s, int p, int me) {
        long es = s.t().size();
        long n = s.n();
        MemorySegment send = null;
        MemorySegment recv = null;
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                send = a.allocate(Math.max(1, n * es), 64);
                recv = send;
            }
            case REDUCE, ALLREDUCE -> {
                send = a.allocate(Math.max(1, n * es), 64);
                recv = s.inPlace() ? send : a.allocate(Math.max(1, n * es), 64);
            }
            case REDUCE_SCATTER -> {
                send = a.allocate(Math.max(1, n * es * p), 64);
                recv = a.allocate(Math.max(1, n * es), 64);
            }
            case ALLGATHER -> {
                recv = a.allocate(Math.max(1, n * es * p), 64);
                send = s.inPlace() ? recv.asSlice(me * n * es, n * es) : a.allocate(Math.max(1, n * es), 64);
            }
            default -> throw new IllegalStateException(s.c().toString());
        }
        return new Bufs(send, recv);
    }

    static Op dataOp(Spec s) {
        return s.op() == Op.USER ? Op.SUM : s.op();
    }

    static void fill(Bufs b, Spec s, int p, int me) {
        long n = s.n();
        DType t = s.t();
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                for (long i = 0; i < n; i++) {
                    BenchData.put(b.send(), t, i, me == s.root() ? BenchData.input(t, null, me, i) : -1L);
                }
            }
            case REDUCE, ALLREDUCE -> {
                if (b.recv() != b.send()) {
                    b.recv().fill((byte) 0x5A);
                }
                BenchData.fill(b.send(), t, dataOp(s), me, n);
            }
            case REDUCE_SCATTER -> {
                b.recv().fill((byte) 0x5A);
                BenchData.fill(b.send(), t, dataOp(s), me, n * p);
            }
            case ALLGATHER -> {
                b.recv().fill((byte) 0x5A);
                for (long i = 0; i < n; i++) {
                    BenchData.put(b.send(), t, i, BenchData.input(t, null, me, i));
                }
            }
            default -> throw new IllegalStateException();
        }
    }

    /** Elements that differ from the reference. */
    static long check(Bufs b, Spec s, int p, int me) {
        long n = s.n();
        DType t = s.t();
        long wrong = 0;
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.input(t, null, s.root(), i)) ? 0 : 1;
                }
            }
            case REDUCE, ALLREDUCE -> {
                if (s.c() == Collective.ALLREDUCE || me == s.root()) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.fold(t, dataOp(s), p, i)) ? 0 : 1;
                    }
                }
            }
            case REDUCE_SCATTER -> {
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.fold(t, dataOp(s), p, me * n + i)) ? 0 : 1;
                }
            }
            case ALLGATHER -> {
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(b.recv(), t, q * n + i), BenchData.input(t, null, q, i)) ? 0 : 1;
                    }
                }
            }
            default -> throw new IllegalStateException();
        }
        return wrong;
    }

    // ---- the calls ----

    static void blocking(Rank rank, ChaosContext ctx, Spec s, Bufs b) {
        blockingRaw(rank, ctx, s, b, s.n());
    }

    static void blockingRaw(Rank rank, ChaosContext ctx, Spec s, Bufs b, long n) {
        if (s.form() == Form.USEROP) {
            UserOp op = s.commutative() ? ctx.commutative : ctx.ordered;
            if (s.c() == Collective.ALLREDUCE) {
                rank.allreduce(b.send(), b.recv(), n, op);
            } else {
                rank.reduce(b.send(), b.recv(), n, op, s.root());
            }
            return;
        }
        switch (s.c()) {
            case BARRIER -> rank.barrier();
            case BCAST -> rank.bcast(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.reduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.allreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.reduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.allgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        }
    }

    static Request issue(Rank rank, ChaosContext ctx, Spec s, Bufs b) {
        return s.form() == Form.CHAIN ? chainRaw(rank, s, b, s.n()) : issueRaw(rank, s, b, s.n());
    }

    static Request issueRaw(Rank rank, Spec s, Bufs b, long n) {
        return switch (s.c()) {
            case BARRIER -> rank.ibarrier();
            case BCAST -> rank.ibcast(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.ireduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.iallreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.ireduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.iallgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        };
    }

    static PersistentRequest init(Rank rank, Spec s, Bufs b) {
        return initRaw(rank, s, b, s.n());
    }

    static PersistentRequest initRaw(Rank rank, Spec s, Bufs b, long n) {
        return switch (s.c()) {
            case BARRIER -> rank.barrierInit();
            case BCAST -> rank.bcastInit(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.reduceInit(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.allreduceInit(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.reduceScatterInit(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.allgatherInit(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        };
    }

    /** The call's collective, a local step and a barrier, as one chain. */
    static Request chainRaw(Rank rank, Spec s, Bufs b, long n) {
        Chain ch = rank.chain();
        switch (s.c()) {
            case BARRIER -> ch.barrier();
            case BCAST -> ch.bcast(b.send(), n, s.t(), s.root());
            case REDUCE -> ch.reduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> ch.allreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> ch.reduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> ch.allgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        }
        return ch.then(() -> {
        }).barrier().start();
    }

    private ChaosCalls() {
    }
}
