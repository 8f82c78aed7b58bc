package io.coll4j.kernel.span.shm;

import io.coll4j.TeamAbortedException;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A blocking collective whose every payload fits its process's arrive line ({@link Channel#INLINE}: allreduce and
 * bcast up to 48 bytes, barrier), run by the calling thread from its entry to its result, with nothing allocated and
 * no clock read while the peers keep pace.
 *
 * <p>It is the inline round of {@link Ops.Coll} — the same line, descriptor and payload, the same arrive, the same fold
 * in ascending process order — so a process on this path and one whose call went through the queue meet in the same
 * round. What it leaves out is the queue's machinery around one line hand-over: a step object and its arrays per call
 * (about 500 bytes: at 8 bytes the collector ran every 0.4 s in each process, and each collection moved the objects
 * a call writes), the lock taken on every poll, and two or three clock reads per poll.
 *
 * <p>While it runs, a placeholder holds the head of the channel's queue, so an operation another thread posts on the
 * channel meanwhile waits behind it, as behind a queued call; the wait polls every queue of the mapping every
 * {@link #POLL_EVERY} reads (a peer may be blocked on this process's non-blocking sends before it can arrive) and
 * runs the mapping's liveness and timeout checks there, then yields and naps as {@link Mapping#await} does.
 */
final class InlineCall {
    /** Reads of a peer's arrive line between two polls of the mapping; the same bound as {@link Mapping#await}'s spin. */
    private static final int POLL_EVERY = 32;

    private final Channel ch;
    private final Mapping m;
    private final int[] members;
    private final int me;
    private final Mapping.Queue queue;
    private final Hold hold = new Hold();
    private final MemorySegment[] srcs;
    private final long[] srcOffs;

    /**
     * Holds the head of the channel's queue while the call runs outside it. Released with a release store once the call
     * has read the round (no fence: see {@link #enter}); whoever next holds the lock, the next call or another
     * thread's progress, takes it off.
     */
    private static final class Hold extends Mapping.Step {
        private static final VarHandle RELEASED;

        static {
            try {
                RELEASED = MethodHandles.lookup().findVarHandle(Hold.class, "released", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private boolean released = true;

        @Override
        boolean step() {
            // acquire: pairs with release() below; the call that held the channel has read its round by then
            return (boolean) RELEASED.getAcquire(this);
        }

        void release() {
            RELEASED.setRelease(this, true);
        }
    }

    InlineCall(Channel ch, int[] members, int me) {
        this.ch = ch;
        this.m = ch.m;
        this.members = members;
        this.me = me;
        m.lock.lock();
        try {
            this.queue = m.queue(ch);
        } finally {
            m.lock.unlock();
        }
        hold.members = members;
        srcs = new MemorySegment[members.length];
        srcOffs = new long[members.length];
    }

    /**
     * The channel's calls outside its queue, made on first use (a channel belongs to one span: {@code members} and
     * {@code me} are its span's), when {@code bytes} per process fit a line; null otherwise, and for more than 16
     * processes, whose fold the queued path runs in passes.
     */
    static InlineCall of(Channel ch, int[] members, int me, long bytes) {
        if (bytes > Channel.INLINE || members.length > Reducer.MAX_SOURCES) {
            return null;
        }
        InlineCall c = ch.inline;
        if (c == null) {
            c = ch.inline = new InlineCall(ch, members, me);
        }
        return c;
    }

    /**
     * allreduce: {@code bytes} of {@code src} into every process's {@code dst} (native), folded by {@code r} in
     * ascending process order. False when the channel has operations queued: the caller posts the call instead.
     */
    boolean allreduce(long desc, MemorySegment src, MemorySegment dst, long bytes, int esize, Reducer r, String what) {
        long round = enter(desc, src, bytes, what);
        if (round < 0) {
            return false;
        }
        MemorySegment seg = ch.seg();
        for (int p = 0; p < members.length; p++) {
            srcs[p] = seg;
            srcOffs[p] = ch.line(members[p], round) + Channel.LINE_DATA;
        }
        try {
            // the same call as Ops.Fold's inline consume: every process computes bitwise the same result
            r.reduceMany(dst, 0, srcs, srcOffs, members.length, bytes / esize);
        } catch (RuntimeException e) {
            // a user op's exception: the round is complete for the peers, this call fails (as Ops.Fold.finish)
            throw new IllegalStateException(what + ": the user op threw " + e, e);
        } finally {
            hold.release();
        }
        return true;
    }

    /** bcast from process {@code root}: the root's payload rides in its line, the others copy it out. */
    boolean bcast(long desc, MemorySegment buf, long bytes, int root) {
        long round = enter(desc, me == root ? buf : null, bytes, "bcast");
        if (round < 0) {
            return false;
        }
        try {
            if (me != root && bytes > 0) {
                MemorySegment.copy(ch.seg(), ch.line(members[root], round) + Channel.LINE_DATA, buf, 0, bytes);
            }
        } finally {
            hold.release();
        }
        return true;
    }

    /** barrier: the descriptor alone. */
    boolean barrier(long desc) {
        if (enter(desc, null, 0, "barrier") < 0) {
            return false;
        }
        hold.release();
        return true;
    }

    /**
     * Writes this process's line of the channel's next round and waits for every peer's, checking their descriptors;
     * returns the round, the channel held until the caller has read it and released {@link #hold}, or -1 when the
     * channel's queue is not empty (nothing written).
     */
    private long enter(long desc, MemorySegment payload, long bytes, String what) {
        MemorySegment seg = ch.seg();
        int self = members[me];
        long round;
        m.lock.lock();
        try {
            if (!queue.steps.isEmpty() && queue.steps.peekFirst() == hold && hold.step()) {
                queue.steps.removeFirst();   // this call's last hold, released and not yet taken off by a progress
            }
            if (!queue.steps.isEmpty() || queue.broken != null || m.isClosed()) {
                return -1;   // the queued path runs it behind them, or reports why it cannot
            }
            round = ch.round;
            ch.round = round + 1;
            hold.released = false;
            queue.steps.addLast(hold);
        } finally {
            m.lock.unlock();
        }
        // The line is written after the lock is released: the unlock is a volatile store, whose fence would wait for
        // the arrive store's line to leave the peer's cache before this process starts to wait, one more line
        // hand-over on every call; with the hold at the head of the queue no other thread touches this round.
        // The line of this round's parity is free already (no wait): see Channel.
        long line = ch.line(self, round);
        seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DESC, desc);
        if (payload != null && bytes > 0) {
            MemorySegment.copy(payload, 0, seg, line + Channel.LINE_DATA, bytes);
        }
        // release: pairs with the peers' getAcquire of this line (below, or Channel.allArrived)
        ch.arrive(self, round + 1);
        try {
            awaitPeers(round, what);
            for (int p = 0; p < members.length; p++) {
                long d = seg.get(ValueLayout.JAVA_LONG, ch.line(members[p], round) + Channel.LINE_DESC);
                if (d != desc) {
                    throw Ops.mismatch(m.index, desc, members[p], d);
                }
            }
        } catch (RuntimeException e) {
            m.lock.lock();
            try {
                // the channel's round is half run: nothing behind it can run (as a queued step's failure)
                queue.broken = e;
                hold.release();
            } finally {
                m.lock.unlock();
            }
            throw e;
        }
        return round;
    }

    /** Spins on each peer's arrive line of {@code round}; the slow path of {@link Mapping#await} every few reads. */
    private void awaitPeers(long round, String what) {
        MemorySegment seg = ch.seg();
        long started = 0;
        int reads = 0;
        for (int p = 0; p < members.length; p++) {
            if (p == me) {
                continue;
            }
            long at = ch.line(members[p], round);
            // acquire: pairs with the peer's setRelease in arrive; its descriptor and payload are visible after it
            while ((long) Mapping.LONG.getAcquire(seg, at) < round + 1) {
                Thread.onSpinWait();
                if (++reads % POLL_EVERY == 0) {
                    started = poll(started, round, what);
                }
            }
        }
    }

    /** Progresses the mapping's queues, checks the peers and the timeout, and backs off as a long wait does. */
    private long poll(long started, long round, String what) {
        long now = System.nanoTime();
        if (started == 0) {
            started = now;
        }
        m.lock.lock();
        try {
            m.progressAll();
        } finally {
            m.lock.unlock();
        }
        try {
            m.check(members, what, started);
        } catch (TeamAbortedException e) {
            // a peer may have arrived and then closed its team (or exited) before this check: its line is complete
            if (!allArrived(round)) {
                throw e;
            }
        }
        long waited = now - started;
        if (waited >= Mapping.YIELD_NANOS) {
            LockSupport.parkNanos(50_000);
        } else if (waited >= Mapping.SPIN_NANOS) {
            Thread.yield();
        }
        return started;
    }

    private boolean allArrived(long round) {
        for (int member : members) {
            if ((long) Mapping.LONG.getAcquire(ch.seg(), ch.line(member, round)) < round + 1) {
                return false;
            }
        }
        return true;
    }
}
