package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.FlagWait;
import io.coll4j.kernel.sync.Stamp;
import io.coll4j.WaitStrategy;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A rank's view of the collective it is executing: the call's arguments, and the operations every
 * algorithm is written with — publish a stamp on one of my lines, wait for a peer's line to reach a
 * stamp, find a peer's buffers, fold. One instance per rank, reused for every call (no allocation per
 * collective); only its rank's thread uses it. Folding is delegated to {@link Fold}, the slow path of
 * waiting to {@link FlagWait}, the messages of failures to {@link CallDiagnostics}.
 *
 * <h2>Waiting</h2>
 * {@link #await} is a single acquire-load when the flag is already there. Otherwise {@link FlagWait}
 * runs the team's {@link WaitStrategy} and, between idles, checks the abort flag (an abort unparks
 * every rank), the thread's interrupt status, the deadline (→ {@link CollectiveTimeoutException} naming
 * the ranks that have not entered the collective waited for), and, every
 * {@link FlagWait#SCAN_INTERVAL_NANOS}, every rank's ANNOUNCE line for a rank that entered this sequence
 * slot with another call (→ {@link CollectiveMismatchException}).
 *
 * <h2>Mismatch detection</h2>
 * Every stamp carries the publisher's check word ({@link Signature}: the call, its algorithm and the
 * check word of the rank's previous call); a waiter that reads a stamp of its own sequence number
 * compares the word (same cache line, so free) and aborts the team on a difference. Ranks that never
 * wait on each other directly are caught by the slow-path scan, or at the next collective in which they
 * do, through the chained previous word.
 */
public final class CollectiveCall {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    /** ANNOUNCE payload layout (per parity half): what the rank called, for late comparisons and messages. */
    static final int ANNOUNCE_DESCRIPTOR = 0, ANNOUNCE_COUNT = 8, ANNOUNCE_ALGORITHM = 16, ANNOUNCE_CHECK = 24;

    private final TeamContext team;
    private final ControlBlock ctrl;
    private final MemorySegment control;
    private final int rank;
    private final int size;
    private final long announceOffset;
    private final FlagWait waiter;
    private final Fold fold;
    private final CallDiagnostics diagnostics;

    private long seq;
    private long descriptor;
    private long check;
    /** The count word of the check (the count, or a v-variant's summary of its counts). */
    private long signatureCount;
    /** The v-forms' count arrays between {@link #begin} and {@link #announce} (null otherwise). */
    private long[] sendCounts, sendDispls, recvCounts, recvDispls;
    /** {@link #announce} is still to run: after this call's first publish, before any wait. */
    private boolean announcePending;
    /** Rank-private per-rank offsets for algorithms (no allocation per call). */
    private final long[] offsets;
    /** The check word of this rank's previous call (what a rank still in that call must have announced). */
    private long previousCheck;
    private int algorithmId;
    private CollectiveAlgorithm lastAlgorithm;
    private Collective collective;
    private MemorySegment send;
    private MemorySegment recv;
    private MemorySegment scratch;
    private long count;
    private DType dtype;
    private Op op;
    private int root;
    private Reducer reducer;
    private String algorithm;
    /** This call is timed for the call event: stamp the entry, add up the time spent waiting. */
    private boolean timed;
    /** Highest sequence number s for which this rank knows that every rank has entered s. */
    private long knownAllEntered;
    /** Highest sequence number already checked against every rank's ANNOUNCE line. */
    private final long[] seenAnnounce;
    /** Rank-private room for one inline message (push-model algorithms keep their running value here). */
    private final MemorySegment local = java.lang.foreign.Arena.ofAuto().allocate(ControlBlock.INLINE_BYTES, 64);

    public CollectiveCall(TeamContext team, int rank) {
        this.team = team;
        this.ctrl = team.ctrl();
        this.control = ctrl.segment();
        this.rank = rank;
        this.size = team.size();
        this.announceOffset = ctrl.offset(rank, ControlBlock.ANNOUNCE);
        this.seenAnnounce = new long[size];
        this.fold = new Fold(this, size);
        this.offsets = new long[size];
        this.diagnostics = new CallDiagnostics(this);
        this.waiter = new FlagWait(ctrl, team.waitStrategy(), team.timeoutNanos(), new FlagWait.Watcher() {
            @Override
            public void checkAborted() {
                if (team.isAborted()) {
                    throw team.abortedException(rank);
                }
            }

            @Override
            public void scan() {
                scanAnnounces();
            }

            @Override
            public RuntimeException interrupted(int peer, int line, long target) {
                return diagnostics.interrupted(peer, line, target);
            }

            @Override
            public RuntimeException timedOut(int peer, int line, long target, long waitedNanos) {
                return diagnostics.timeout(peer, line, target, waitedNanos);
            }
        }, team.contention());
    }

    // ------------------------------------------------------------------ lifecycle (driven by Rank)

    /**
     * Starts collective {@code seq + 1}: records the arguments, makes sure nobody still reads buffers of
     * this parity (lag check), provides scratch, publishes the buffer references and announces the call.
     */
    public void begin(Collective collective, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                      int root, Reducer reducer, CollectiveAlgorithm algorithm) {
        begin(collective, send, recv, count, dtype, op, root, reducer, algorithm, count, null, null, null, null);
    }

    /**
     * {@link #begin(Collective, MemorySegment, MemorySegment, long, DType, Op, int, Reducer, CollectiveAlgorithm)}
     * of a collective with a {@link BlockLayout}: the count arrays (null for uniform blocks) are recorded in
     * this rank's layout before the ANNOUNCE release. {@code signatureCount} is what the check word
     * compares instead of {@code count} — for the v-variants a word every rank computes alike (a hash of
     * the team-wide counts, or 0 where each rank's count differs and pairs are checked by the readers).
     */
    public void begin(Collective collective, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                      int root, Reducer reducer, CollectiveAlgorithm algorithm, long signatureCount,
                      long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        long s = ++seq;
        this.collective = collective;
        this.send = send;
        this.recv = recv;
        this.count = count;
        this.dtype = dtype;
        this.op = op;
        this.root = root;
        this.reducer = reducer;
        this.algorithm = algorithm.name();
        if (algorithm != lastAlgorithm) {
            lastAlgorithm = algorithm;
            algorithmId = AlgorithmCatalog.id(algorithm);
        }
        this.descriptor = Signature.descriptor(collective, dtype, op, root);
        // chained: the previous call's word is part of this one (see Signature)
        this.previousCheck = check;
        this.signatureCount = signatureCount;
        this.check = Signature.check(descriptor, signatureCount, algorithmId, check, s);
        if (s - 1 > knownAllEntered) {
            awaitAllEntered(s - 1);
        }
        this.sendCounts = sendCounts;
        this.sendDispls = sendDispls;
        this.recvCounts = recvCounts;
        this.recvDispls = recvDispls;
        // a timed call stamps its entry before anything of it is published (the late-rank field reads it)
        if (!timed && algorithm.announcesAfterFirstPublish(this)) {
            announcePending = true;
        } else {
            announce();
        }
    }

    /**
     * The rest of the entry: the call history, the block layout, scratch, the buffer references and the ANNOUNCE
     * release. Peers read them only after acquiring this rank's ANNOUNCE (the lag check, the buffer references,
     * diagnostics), so an algorithm whose first step is a publish that carries everything its peers read of this
     * call (the check word and an inline payload: {@link CollectiveAlgorithm#announcesAfterFirstPublish}) lets this
     * run right after that publish, while its line travels, instead of before it on the hand-over's path.
     */
    private void announce() {
        announcePending = false;
        long s = seq;
        team.history().begin(rank, s, descriptor, signatureCount, algorithmId);
        if (timed) {
            // before the ANNOUNCE release below: a peer that sees this rank entered finds its stamp
            team.history().enter(rank, s, System.nanoTime());
        }
        team.blocks(rank, s).set(count, sendCounts, sendDispls, recvCounts, recvDispls, inPlace());
        sendCounts = sendDispls = recvCounts = recvDispls = null;
        long scratchBytes = lastAlgorithm.scratchBytes(this);
        int parity = (int) (s & 1);
        this.scratch = scratchBytes > 0 ? team.scratch(rank).ensure(parity, scratchBytes) : team.scratch(rank).current(parity);
        team.setSlot(rank, s, TeamContext.SEND, send);
        team.setSlot(rank, s, TeamContext.RECV, recv);
        team.setSlot(rank, s, TeamContext.SCRATCH, scratch);
        long payload = ControlBlock.payloadOffset(announceOffset, s);
        control.set(LONG, payload + ANNOUNCE_DESCRIPTOR, descriptor);
        control.set(LONG, payload + ANNOUNCE_COUNT, signatureCount);
        control.set(LONG, payload + ANNOUNCE_ALGORITHM, algorithmId);
        control.set(LONG, payload + ANNOUNCE_CHECK, check);
        // release: publishes descriptor, buffer references and scratch to every acquire of ANNOUNCE
        publishLine(announceOffset, 0);
    }

    /** {@link #announce} if this call deferred it: after a publish, before a wait, test, counter update or the end. */
    private void announceIfPending() {
        if (announcePending) {
            announce();
        }
    }

    /**
     * Whether the next calls are timed for {@link io.coll4j.kernel.events.CollectiveCallEvent}: each stamps its
     * entry for the late-rank field and adds up its waits ({@link #takeWaitedNanos}). Costs two clock reads a
     * wait, so only while a recording has the event on.
     */
    public void timed(boolean on) {
        timed = on;
        waiter.timing(on);
    }

    /** Time this rank spent in waits since the last call of this method (0 unless {@link #timed}). */
    public long takeWaitedNanos() {
        return waiter.takeWaited();
    }

    /** {rank, nanos}: the rank that entered the current call last and how long after the first ({@link CallHistory#lastEntry}). */
    public void lastEntry(long[] out) {
        team.history().lastEntry(seq, out);
    }

    /** The current call failed on this rank (for the last-calls history of error messages). */
    public void failed() {
        announceIfPending();
        team.history().end(rank, seq, false);
    }

    /** Ends the current collective; {@code allEntered}: the algorithm observed every rank's entry. */
    public void end(boolean allEntered) {
        announceIfPending();
        team.history().end(rank, seq, true);
        if (allEntered) {
            knownAllEntered = seq;
        }
        send = null;
        recv = null;
    }

    /**
     * Waits until every rank has entered collective {@code target} (so each has finished {@code target - 1}
     * and no longer touches buffers of that parity). Never deadlocks: a rank that has not entered
     * {@code target} is finishing a collective this rank has already completed its part of.
     */
    private void awaitAllEntered(long target) {
        long stamp = Stamp.of(target, 0);
        long min = Long.MAX_VALUE;
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                long off = ctrl.offset(q, ControlBlock.ANNOUNCE);
                long v = awaitStamp(off, stamp, q, ControlBlock.ANNOUNCE);
                if (Stamp.seq(v) == target && target == seq - 1) {
                    // q is still in the previous collective, which this rank left without waiting for it (a bcast
                    // root): awaitStamp compared only a stamp of this one, so compare q's call there with mine here,
                    // or two roots that each broadcast and then meet a barrier that reads no peer's check word (the
                    // central counter) both return normally. Its half of target is rewritten only when q enters
                    // seq + 1, which waits for this rank's ANNOUNCE of seq, not published yet; the acquire in
                    // awaitStamp pairs with q's ANNOUNCE release of target, so the word is the one it published
                    long c = control.get(LONG, ControlBlock.payloadOffset(off, target) + ANNOUNCE_CHECK);
                    if (c != previousCheck) {
                        throw mismatch(q);
                    }
                }
                min = Math.min(min, Stamp.seq(v));
            }
        }
        knownAllEntered = size == 1 ? target : Math.min(min, target);
    }

    // ------------------------------------------------------------------ the call

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public TeamContext team() {
        return team;
    }

    /** Sequence number of the current collective (1 for the team's first). */
    public long seq() {
        return seq;
    }

    public Collective collective() {
        return collective;
    }

    public MemorySegment send() {
        return send;
    }

    public MemorySegment recv() {
        return recv;
    }

    /** True when the caller passed the same buffer as send and receive (in place). */
    public boolean inPlace() {
        return send == recv || (send != null && recv != null && Aliasing.sameStart(send, recv));
    }

    public long count() {
        return count;
    }

    public DType dtype() {
        return dtype;
    }

    /** Bytes of the message: count × element size. */
    public long bytes() {
        return count * dtype.size();
    }

    public Op op() {
        return op;
    }

    public int root() {
        return root;
    }

    public Reducer reducer() {
        return reducer;
    }

    /** Name of the algorithm running this call. */
    public String algorithm() {
        return algorithm;
    }

    public Copy copy() {
        return team.copy();
    }

    /**
     * True when this call must fold in ascending rank order: the team was built {@code reproducible(true)}, or
     * the op is a non-commutative user op (MPI requires rank order for those, and every algorithm's
     * reproducible mode is exactly that fold).
     */
    public boolean reproducible() {
        return team.reproducible() || reducer != null && !reducer.commutative();
    }

    /** This rank's scratch buffer for the current parity (null if the algorithm asked for none). */
    public MemorySegment scratch() {
        return scratch;
    }

    /** The send buffer {@code peer} passed to this collective; valid once a stamp of this collective from it was acquired. */
    public MemorySegment peerSend(int peer) {
        return team.slot(peer, seq, TeamContext.SEND);
    }

    /** The receive buffer {@code peer} passed to this collective (same validity rule as {@link #peerSend}). */
    public MemorySegment peerRecv(int peer) {
        return team.slot(peer, seq, TeamContext.RECV);
    }

    /** The scratch buffer of {@code peer} for this collective (same validity rule as {@link #peerSend}). */
    public MemorySegment peerScratch(int peer) {
        return team.slot(peer, seq, TeamContext.SCRATCH);
    }

    /** Rank-private buffer of {@link ControlBlock#INLINE_BYTES} bytes, for a running value of an inline message. */
    public MemorySegment local() {
        return local;
    }

    /** The control block segment (for inline payloads). */
    public MemorySegment control() {
        return control;
    }

    /** Offset, in {@link #control()}, of the inline payload half this collective uses on {@code rank}'s {@code line}. */
    public long inlinePayload(int ofRank, int line) {
        return ControlBlock.payloadOffset(ctrl.offset(ofRank, line), seq);
    }

    /** Reports that this rank read {@code peer}'s memory for {@code action} (no-op unless the team records a {@link Schedule}). */
    public void record(String action, int peer) {
        Schedule s = team.schedule();
        if (s != null) {
            s.add(new Schedule.Event(seq, collective, algorithm, rank, action, peer));
        }
    }

    // ------------------------------------------------------------------ folding

    /** Starts a fold: sources added with {@link #foldAdd} are combined left to right by {@link #foldInto}. */
    public void foldStart() {
        fold.start();
    }

    /** Adds the next source of the fold (elements at byte offset {@code offset} of {@code seg}). */
    public void foldAdd(MemorySegment seg, long offset) {
        fold.add(seg, offset);
    }

    /**
     * {@code dst = s0 op s1 op … op s(k−1)} over the added sources, left to right — bitwise the scalar left
     * fold in the order the sources were added. Up to 16 sources this is one k-ary pass
     * ({@link Reducer#reduceMany}); beyond, it strip-mines: each strip of {@link Fold#STRIP_BYTES} is
     * folded 16 sources at a time into a private L1-resident buffer and written to dst once, so
     * {@code dst} may alias any one source exactly (in-place collectives) at every k.
     */
    public void foldInto(MemorySegment dst, long dstOffset, long elements) {
        fold.into(dst, dstOffset, elements);
    }

    /**
     * {@link #foldInto} with non-temporal stores to {@code dst} — the native streaming fold
     * ({@link io.coll4j.bindings.copy.StreamingFold}): the destination is written once and never read for
     * ownership [YHCCL §4.1]. Use it only when the result is not re-read soon (W &gt; C, [YHCCL §4.2]). Same
     * order and bits as {@link #foldInto}; {@code dst} may alias a source exactly. Falls back to
     * {@link #foldInto} when a buffer is on the heap, the buffers span more memory sessions than the
     * native call can hold alive, or the machine has no non-temporal path.
     */
    public void foldIntoNonTemporal(MemorySegment dst, long dstOffset, long elements) {
        fold.intoNonTemporal(dst, dstOffset, elements);
    }

    /**
     * {@link #foldInto} into the receive buffer of EVERY rank at {@code dstOffset}: the owner of a block
     * writes its result once per rank. With {@code nonTemporal} through the streaming fold, straight from
     * L1 with nothing read back [YHCCL §4.1]; each 1 KiB is read from every source before it is written
     * anywhere, so a rank's receive buffer may be its send buffer. Otherwise (or when the streaming fold
     * cannot take these buffers) a fold into my receive buffer and temporal copies from there.
     * The caller must hold every rank's published buffers.
     */
    public void foldIntoEveryRecv(long dstOffset, long elements, boolean nonTemporal) {
        fold.intoEveryRecv(dstOffset, elements, nonTemporal);
    }

    /**
     * Copies {@code bytes} of {@code src@srcOffset} into the receive buffer of EVERY rank at
     * {@code dstOffset} (a push allgather). With {@code nonTemporal}, through the streaming fold with one
     * source: each 1 KiB is read once and streamed to the p destinations [YHCCL §4.1]; otherwise (or when
     * the streaming fold cannot take these buffers) one copy per destination. A destination that is
     * exactly the source is skipped. The caller must hold every rank's published buffers.
     */
    public void copyIntoEveryRecv(MemorySegment src, long srcOffset, long dstOffset, long bytes, boolean nonTemporal) {
        fold.copyIntoEveryRecv(src, srcOffset, dstOffset, bytes, nonTemporal);
    }

    // ------------------------------------------------------------------ synchronisation

    /** The stamp of publication {@code step} of this collective. */
    public long stamp(long step) {
        return Stamp.of(seq, step);
    }

    /**
     * Publishes {@code step} on my {@code line}: every write this rank made before (data, payload) is
     * visible to a peer whose {@link #await} returns for this stamp.
     */
    public void publish(int line, long step) {
        publishLine(ctrl.offset(rank, line), step);
    }

    /** Publishes {@code step} on {@code peer}'s {@code line}; for lines with one designated writer per round (dissemination). */
    public void publishTo(int peer, int line, long step) {
        publishLine(ctrl.offset(peer, line), step);
    }

    /**
     * Publishes {@code step} of this collective on the line at {@code off}: on the header of this
     * collective's half, which its waiters poll ({@link ControlBlock#halfOffset}), then, for an odd
     * collective, on the line's own stamp too, which every collective writes (waits for a peer's entry into
     * another collective, diagnostics). For an even collective the two are the same word.
     */
    private void publishLine(long off, long step) {
        long stamp = Stamp.of(seq, step);
        long half = ControlBlock.halfOffset(off, seq);
        // release: payload and every earlier write, to the getAcquire of await/awaitFrom/test on this half
        ctrl.publish(half, stamp, check);
        if (half != off) {
            // release: the same, to readers of the line's stamp (awaitAllEntered, scans, diagnostics)
            ctrl.publish(off, stamp, check);
        }
        announceIfPending();
    }

    /** Waits until {@code peer}'s {@code line} reaches {@code step} of this collective; returns the stamp read. */
    public long await(int peer, int line, long step) {
        return awaitStamp(ControlBlock.halfOffset(ctrl.offset(peer, line), seq), Stamp.of(seq, step), peer, line);
    }

    /**
     * Waits until my own {@code line}, which rank {@code writer} publishes to (dissemination, recursive
     * doubling), reaches {@code step}.
     */
    public long awaitFrom(int writer, int line, long step) {
        return awaitStamp(ControlBlock.halfOffset(ctrl.offset(rank, line), seq), Stamp.of(seq, step), writer, line);
    }

    /** Waits for {@code line} of every other rank to reach {@code step}. */
    public void awaitAllPeers(int line, long step) {
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                await(q, line, step);
            }
        }
    }

    /** True when {@code peer}'s {@code line} has reached {@code step} of this collective (no waiting). */
    public boolean test(int peer, int line, long step) {
        announceIfPending();
        long off = ControlBlock.halfOffset(ctrl.offset(peer, line), seq);
        long v = ctrl.stampAcquire(off);
        if (!Stamp.reached(v, Stamp.of(seq, step))) {
            return false;
        }
        verify(off, v, peer);
        return true;
    }

    /** Atomically adds {@code delta} to team-wide counter line {@code line}; returns the new value (full fence). */
    public long addToGlobal(int line, long delta) {
        announceIfPending();
        return ctrl.addAndGet(ctrl.globalOffset(line), delta);
    }

    /** Waits until team-wide counter {@code line} reaches {@code target} (counters carry no check word). */
    public void awaitGlobal(int line, long target) {
        announceIfPending();
        long off = ctrl.globalOffset(line);
        if (!Stamp.reached(ctrl.stampAcquire(off), target)) {
            waiter.await(off, target, -1, line);
        }
    }

    private long awaitStamp(long off, long target, int peer, int line) {
        announceIfPending();
        long v = ctrl.stampAcquire(off);
        if (!Stamp.reached(v, target)) {
            v = waiter.await(off, target, peer, line);
        }
        verify(off, v, peer);
        return v;
    }

    /**
     * Compares the call {@code peer} made in this sequence slot with mine, given stamp {@code v} just
     * acquired at {@code off}. A stamp of this collective carries the peer's check word on the same line.
     * A later stamp means the peer has already moved on (it did not need to wait for me, e.g. as a bcast
     * root): then its ANNOUNCE payload half for this sequence number still holds its check word — it is
     * rewritten only two collectives later, and the lag check keeps the peer from getting there before
     * this rank enters the next collective.
     */
    private void verify(long off, long v, int peer) {
        long sv = Stamp.seq(v);
        if (sv == seq) {
            long c = ctrl.sig(off);
            if (c != check && Signature.sameSeq(c, check)) {
                throw mismatch(peer);
            }
        } else if (sv > seq && peer >= 0 && peer != rank) {
            long payload = ControlBlock.payloadOffset(ctrl.offset(peer, ControlBlock.ANNOUNCE), seq);
            if (control.get(LONG, payload + ANNOUNCE_CHECK) != check) {
                throw mismatch(peer);
            }
        }
    }

    /** Looks at every rank's ANNOUNCE line: a rank in this sequence slot with another call is a mismatch. */
    private void scanAnnounces() {
        if (team.anyReturned()) {
            for (int q = 0; q < size; q++) {
                // a rank whose body returned before entering this collective never will: nothing it owes comes
                if (q != rank && team.hasReturned(q) && diagnostics.entered(q) < seq) {
                    throw diagnostics.bodyReturned(q);
                }
            }
        }
        for (int q = 0; q < size; q++) {
            if (q == rank || seenAnnounce[q] == seq) {
                continue;
            }
            long off = ctrl.offset(q, ControlBlock.ANNOUNCE);
            long v = ctrl.stampAcquire(off);
            if (Stamp.seq(v) >= seq) {          // q entered this collective (and maybe left it): compare its call
                verify(off, v, q);
                seenAnnounce[q] = seq;
            } else if (Stamp.seq(v) == seq - 1 && seq > 1) {
                // q is still in the previous collective, which I left without waiting for it (a bcast root):
                // if it entered that one with another call, it may never leave it (it waits for a partner
                // that ran something else) — the mismatch must be found here, or this wait times out
                long c = control.get(LONG, ControlBlock.payloadOffset(off, seq - 1) + ANNOUNCE_CHECK);
                VarHandle.loadLoadFence();
                // the half of seq - 1 is rewritten when q enters seq + 1: only a word read while q was before it counts
                if (Stamp.seq(ctrl.stampOpaque(off)) <= seq && c != previousCheck) {
                    throw mismatch(q);
                }
            }
        }
    }

    /**
     * After this rank's algorithm failed with an unexpected exception: if a rank entered this collective
     * with another call (e.g. another algorithm, whose buffers or lines this one misread), that mismatch is
     * the real failure; it is thrown (and the team aborted with it). Returns normally otherwise.
     */
    public void rethrowMismatchBehind() {
        if (seq == 0) {
            return;
        }
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                long off = ctrl.offset(q, ControlBlock.ANNOUNCE);
                long v = ctrl.stampAcquire(off);
                if (Stamp.seq(v) >= seq) {
                    verify(off, v, q);
                }
            }
        }
    }

    private CollectiveMismatchException mismatch(int peer) {
        CollectiveMismatchException e = new CollectiveMismatchException(diagnostics.mismatch(peer) + "; last calls: "
                + team.history().describe(CallHistory.IN_MESSAGES));
        if (team.abort(e, rank)) {
            return e;
        }
        return (CollectiveMismatchException) (team.abortState().cause() instanceof CollectiveMismatchException
                ? team.abortedException(rank) : e);
    }

    /**
     * The first buffer of the current (or just failed) collective, over every rank, whose memory session is
     * no longer alive — "send of rank 1" — or null. {@link #deadBufferOwner} names its rank.
     */
    public String deadBuffer() {
        int q = deadBufferOwner();
        if (q < 0) {
            return null;
        }
        MemorySegment sq = team.slot(q, seq, TeamContext.SEND);
        boolean sendDead = sq != null && !sq.scope().isAlive();
        String name = collective == Collective.BCAST ? "buf" : sendDead ? "send" : "recv";
        return name + " of rank " + q;
    }

    /** The rank whose published send or receive buffer of this collective is dead, or -1. */
    public int deadBufferOwner() {
        for (int q = 0; q < size; q++) {
            if (Stamp.seq(ctrl.stampAcquire(ctrl.offset(q, ControlBlock.ANNOUNCE))) < seq) {
                continue;                       // q has not published this collective's buffers (its slots are older)
            }
            for (int kind : new int[]{TeamContext.SEND, TeamContext.RECV}) {
                MemorySegment b = team.slot(q, seq, kind);
                if (b != null && !b.scope().isAlive()) {
                    return q;
                }
            }
        }
        return -1;
    }

    // ---- block layouts (gather/scatter, the v-variants, alltoall, scan) ----

    /** A rank-private array of {@code size()} longs for an algorithm's per-rank offsets (no allocation per call). */
    public long[] offsets() {
        return offsets;
    }

    /** My block layout for this call. */
    public BlockLayout blocks() {
        return team.blocks(rank, seq);
    }

    /** {@code peer}'s block layout for this call (same validity rule as {@link #peerSend}). */
    public BlockLayout peerBlocks(int peer) {
        return team.blocks(peer, seq);
    }

    /** Rank q's send buffer: mine, or the one q published (same validity rule as {@link #peerSend}). */
    public MemorySegment sendOf(int q) {
        return q == rank ? send : peerSend(q);
    }

    /** Rank q's receive buffer: mine, or the one q published (same validity rule as {@link #peerSend}). */
    public MemorySegment recvOf(int q) {
        return q == rank ? recv : peerRecv(q);
    }

    /**
     * Grows my scratch of this parity to {@code bytes} after the announce, for an algorithm that learns the
     * size only from a peer's layout (a two-stage scatter's master). The new reference is published with my
     * next release, which the peers that read the scratch must acquire first; nobody reads the old buffer of
     * this parity any more (lag check).
     */
    public MemorySegment ensureScratch(long bytes) {
        if (bytes == 0) {
            return scratch;
        }
        scratch = team.scratch(rank).ensure((int) (seq & 1), bytes);
        team.setSlot(rank, seq, TeamContext.SCRATCH, scratch);
        return scratch;
    }

    /**
     * Checks that what {@code peer} says it sends (or receives) for a block, {@code theirs} elements,
     * equals what I expect, {@code mine}; otherwise aborts the team with a
     * {@link CollectiveMismatchException} naming both (differing v-counts, or differing uniform counts
     * of a collective whose check word cannot hold them) and throws it. Call it before touching the block.
     */
    public void checkBlock(int peer, String what, long mine, long theirs) {
        if (mine == theirs) {
            return;
        }
        CollectiveMismatchException e = new CollectiveMismatchException("collective mismatch in collective #" + seq
                + " (" + collective.cliName() + "): rank " + rank + " expects " + mine + " elements " + what
                + " but rank " + peer + " has " + theirs);
        if (team.abort(e, rank)) {
            throw e;
        }
        throw team.abortedException(rank);
    }

    /**
     * Copies {@code bytes} of {@code src@srcOffset} into the receive buffer of every rank q at
     * {@code dstOffsets[q]} (negative: skip q) — {@link #copyIntoEveryRecv} with a displacement per
     * destination (allgatherv, where each rank lays out its receive buffer). Non-temporal through the
     * streaming fold with one source when asked and possible, else one copy per destination.
     */
    public void copyIntoRecvsAt(MemorySegment src, long srcOffset, long[] dstOffsets, long bytes, boolean nonTemporal) {
        fold.copyIntoRecvsAt(src, srcOffset, dstOffsets, bytes, nonTemporal);
    }

    // ------------------------------------------------------------------ for CallDiagnostics

    /** The count word of the check word (the count, or a v-variant's summary of its counts). */
    long signatureCount() {
        return signatureCount;
    }

    ControlBlock ctrl() {
        return ctrl;
    }

    long descriptor() {
        return descriptor;
    }

    public int algorithmId() {
        return algorithmId;
    }
}
