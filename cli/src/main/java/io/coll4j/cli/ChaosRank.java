package io.coll4j.cli;

import static io.coll4j.cli.ChaosStats.CLOSE_REFUSED;
import static io.coll4j.cli.ChaosStats.EXC;
import static io.coll4j.cli.ChaosStats.OK;
import static io.coll4j.cli.ChaosStats.RANK_CALLS;
import static io.coll4j.cli.ChaosStats.WRONG;

import io.coll4j.Collective;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.cli.Chaos.InjectedFault;
import io.coll4j.cli.ChaosCalls.Bufs;
import io.coll4j.cli.ChaosPlan.Episode;
import io.coll4j.cli.ChaosPlan.Fault;
import io.coll4j.cli.ChaosPlan.Form;
import io.coll4j.cli.ChaosPlan.Spec;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * One rank's part of an episode: its calls in order, with the episode's fault injected where this rank is the
 * victim (or a peer that must wait for it), and each result or exception counted.
 */
final class ChaosRank {
    // ---- one rank ----

    static void body(Rank rank, ChaosContext ctx) {
        Episode e = ctx.e;
        int me = rank.id();
        int li = rank.localId();
        synchronized (ctx) {
            ctx.threads[li] = Thread.currentThread();
        }
        for (int i = 0; i < e.calls().size(); i++) {
            Spec spec = e.calls().get(i);
            Fault fault = e.fault() != null && i == e.faultAt() ? e.fault() : null;
            boolean victim = fault != null && me == e.victim();
            if (victim && fault == Fault.STALL) {
                return;                                           // stops arriving: the others time out
            }
            synchronized (ctx) {
                ctx.since[li] = System.nanoTime();
                ctx.at[li] = i;
            }
            ChaosContext.CALL.get()[0] = i;
            try {
                long wrong = call(rank, ctx, spec, i, fault, victim);
                ctx.s.add(RANK_CALLS, 1);
                if (wrong > 0) {
                    ctx.s.add(WRONG, 1);
                    ctx.s.fail("wrong result: rank " + me + " call " + i + " (" + spec + "): " + wrong + " elements differ ("
                            + e.describe() + ")");
                } else {
                    ctx.s.add(OK, 1);
                }
            } catch (Throwable t) {
                ctx.s.add(RANK_CALLS, 1);
                ChaosContract.classify(ctx, t, me, i, spec);
                if (t instanceof RuntimeException re) {
                    throw re;
                }
                if (t instanceof Error er) {
                    throw er;
                }
                throw new IllegalStateException(t);
            } finally {
                synchronized (ctx) {
                    ctx.since[li] = 0;
                }
            }
        }
    }

    /**
     * One call on one rank, with the fault if this rank is its victim (or, for the coordinated faults, its peer).
     * Returns the elements that differ from the reference.
     */
    private static long call(Rank rank, ChaosContext ctx, Spec spec, int i, Fault fault, boolean victim) throws Exception {
        Episode e = ctx.e;
        int p = rank.size();
        int me = rank.id();
        if (fault == Fault.THROW_BODY && victim) {
            if (spec.form() != Form.BLOCKING && spec.form() != Form.USEROP && (e.variant() & 1) == 1) {
                // with a request of its own outstanding
                Arena a = ctx.arena();
                Bufs b = ChaosCalls.alloc(a, spec, p, me);
                ChaosCalls.fill(b, spec, p, me);
                ChaosCalls.issue(rank, ctx, spec, b);
            }
            throw new InjectedFault("injected: rank " + me + "'s body threw at call " + i);
        }
        // the peers of a coordinated fault wait until it happened, so the victim is inside its call when it does
        if (fault != null && !victim && (fault == Fault.INTERRUPT_BLOCKING || fault == Fault.INTERRUPT_AWAIT || fault == Fault.CLOSE_DURING)) {
            try {
                if (rank.team().processes() == 1) {   // across processes the victim may be elsewhere: the sleep alone
                    ctx.delivered.await(e.timeoutMs() + 5_000, TimeUnit.MILLISECONDS);
                }
                Thread.sleep(20);
            } catch (InterruptedException ie) {
                // the team, aborted by the victim, interrupts ranks that do not leave (Team.run): here the soak held it
                Thread.currentThread().interrupt();
                throw new InjectedFault("interrupted by the aborted team while the soak held this rank back");
            }
        }
        Spec s = fault == Fault.MISMATCH && victim ? ChaosPlan.mutate(spec, e.variant(), p) : spec;
        Arena arena = ctx.arena();
        Bufs b = ChaosCalls.alloc(arena, s, p, me);
        ChaosCalls.fill(b, s, p, me);
        if (victim && (fault == Fault.BAD_ARGS || fault == Fault.CLOSE_BEFORE)) {
            badCall(rank, ctx, s, b, i);
            // the contract: no shared state was touched, so the rank goes on with the right call (fresh buffers)
            arena = ctx.arena();
            b = ChaosCalls.alloc(arena, s, p, me);
            ChaosCalls.fill(b, s, p, me);
        }
        boolean interruptMe = victim && (fault == Fault.INTERRUPT_BLOCKING || fault == Fault.INTERRUPT_AWAIT);
        boolean closeMe = victim && fault == Fault.CLOSE_DURING;
        boolean check = !(victim && (fault == Fault.MISMATCH || fault == Fault.CLOSE_DURING));
        long wrong;
        if (s.form() == Form.BLOCKING || s.form() == Form.USEROP) {
            if (interruptMe) {
                interruptSoon(ctx, Thread.currentThread());
            }
                ChaosCalls.blocking(rank, ctx, s, b);
            wrong = check ? ChaosCalls.check(b, s, p, me) : 0;
        } else if (s.form() == Form.PERSISTENT) {
            wrong = 0;
            try (PersistentRequest pr = ChaosCalls.init(rank, s, b)) {
                for (int round = 0; round < s.rounds(); round++) {
                    if (round > 0) {
                        ChaosCalls.fill(b, s, p, me);
                    }
                    pr.start();
                    if (round == 0 && closeMe) {
                        closeNow(ctx, arena);
                    }
                    if (round == 0 && interruptMe) {
                        interruptSoon(ctx, Thread.currentThread());
                    }
                    ChaosContract.complete(ctx, pr, s, true);
                    wrong += check ? ChaosCalls.check(b, s, p, me) : 0;
                }
            }
        } else {
            Request r = ChaosCalls.issue(rank, ctx, s, b);
            if (closeMe) {
                closeNow(ctx, arena);
            }
            if (interruptMe) {
                interruptSoon(ctx, Thread.currentThread());
            }
            ChaosContract.complete(ctx, r, s, false);
            wrong = check ? ChaosCalls.check(b, s, p, me) : 0;
        }
        if (fault == Fault.MISMATCH && victim) {
            // the victim's call completed: whether the others reported it decides (isMiss)
            return 0;
        }
        if (interruptMe) {
            // the call ended normally although the thread was interrupted while it waited for peers that had not come
            ctx.missed = true;
            Thread.interrupted();
        }
        return wrong;
    }

    /** The bad call (or the call on a closed buffer): it must throw IllegalArgumentException and touch nothing shared. */
    private static void badCall(Rank rank, ChaosContext ctx, Spec s, Bufs good, int i) {
        Episode e = ctx.e;
        long es = s.t().size();
        MemorySegment send = good.send();
        MemorySegment recv = good.recv();
        long n = s.n();
        int root = s.root();
        DType t = s.t();
        Op op = s.op();
        String what;
        if (e.fault() == Fault.CLOSE_BEFORE) {
            Arena a = ctx.arena();
            Bufs b = ChaosCalls.alloc(a, s, rank.size(), rank.id());
            a.close();
            send = b.send();
            recv = b.recv();
            what = "buffers of a closed arena";
        } else {
            int v = e.variant() % 8;
            // a reduce's receive buffer is ignored off the root (Rank.reduce): a bad one there is no bad argument
            boolean recvMatters = s.c() != Collective.REDUCE || rank.id() == s.root();
            if (!recvMatters && (v == 2 || v >= 6)) {
                v = 0;
            }
            switch (v) {
                case 0 -> {
                    n = -1;
                    what = "count -1";
                }
                case 1 -> {
                    send = send.asSlice(0, es * n - 1);
                    if (recv == good.send()) {
                        recv = send;
                    }
                    what = "a send buffer one byte short";
                }
                case 2 -> {
                    recv = recv.asReadOnly();
                    if (s.c() == Collective.BCAST) {
                        send = recv;
                    }
                    what = "a read-only receive buffer";
                }
                case 3 -> {
                    root = s.rooted() ? rank.size() : root;
                    n = s.rooted() ? n : -5;
                    what = s.rooted() ? "root out of range" : "count -5";
                }
                case 4 -> {
                    if (s.reduces() && s.form() != Form.USEROP) {
                        t = DType.F64;
                        op = Op.BAND;
                        what = "band on f64";
                    } else {
                        n = Long.MIN_VALUE;
                        what = "count Long.MIN_VALUE";
                    }
                }
                case 5 -> {
                    send = null;
                    if (s.c() == Collective.BCAST) {
                        recv = null;
                    }
                    what = "a null buffer";
                }
                default -> {
                    if ((s.c() == Collective.ALLREDUCE || s.c() == Collective.REDUCE) && s.form() != Form.USEROP) {
                        // send and receive overlap by all but one element (neither in place nor disjoint); v 7: the
                        // send side a read-only view of the same memory
                        // native, or (every other variant) on the heap, where a read-only view has no heapBase
                        boolean heap = (e.variant() / 8) % 2 == 1;
                        MemorySegment base = heap ? MemorySegment.ofArray(new long[(int) ((es * (n + 1) + 7) / 8)])
                                : ctx.arena().allocate(es * (n + 1), 64);
                        send = base.asSlice(0, es * n);
                        recv = base.asSlice(es, es * n);
                        BenchData.fill(send, t, ChaosCalls.dataOp(s), rank.id(), n);   // if it is accepted, the peers' results stay right
                        if (v == 7) {
                            send = send.asReadOnly();
                        }
                        what = (v == 7 ? "overlapping send (a read-only view) and receive" : "overlapping send and receive")
                                + (heap ? " on the heap" : "");
                    } else {
                        n = -1;
                        what = "count -1";
                    }
                }
            }
        }
        Spec bad = new Spec(s.form(), s.c(), t, op, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n)), root, s.inPlace(),
                s.waitMode(), s.rounds(), s.commutative());
        try {
            Bufs b = new Bufs(send, recv);
            switch (s.form()) {
                case BLOCKING, USEROP -> ChaosCalls.blockingRaw(rank, ctx, bad, b, n);
                case PERSISTENT -> ChaosCalls.initRaw(rank, bad, b, n).close();
                case ONESHOT -> ChaosCalls.issueRaw(rank, bad, b, n);
                case CHAIN -> ChaosCalls.chainRaw(rank, bad, b, n);
            }
        } catch (IllegalArgumentException expected) {
            ctx.s.add(EXC, 1);
            return;
        }
        // accepted: the call went ahead (a real collective the peers are part of) — the contract was not kept
        ctx.missed = true;
        ctx.s.fail("bad argument accepted (" + what + "): rank " + rank.id() + " call " + i + " (" + s + "), " + e.describe());
        throw new InjectedFault("the bad call (" + what + ") was accepted; this rank stops");
    }

    private static void interruptSoon(ChaosContext ctx, Thread victim) {
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                Thread.sleep(3);
            } catch (InterruptedException ignored) {
                // deliver at once
            }
            victim.interrupt();
            ctx.delivered.countDown();
        });
    }

    private static void closeNow(ChaosContext ctx, Arena arena) {
        try {
            arena.close();
        } catch (IllegalStateException busy) {
            ctx.s.add(CLOSE_REFUSED, 1);       // a native call holds the buffers: FFM refuses, nothing is freed
        }
        ctx.delivered.countDown();
    }

    private ChaosRank() {
    }
}
