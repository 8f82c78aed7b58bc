package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.Stamp;
import io.coll4j.kernel.sync.WaitStrategy;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A rank's view of the collective it is executing: the call's arguments, and the operations every
 * algorithm is written with — publish a stamp on one of my lines, wait for a peer's line to reach a
 * stamp, find a peer's buffers. One instance per rank, reused for every call (no allocation per
 * collective); only its rank's thread uses it.
 *
 * <h2>Waiting</h2>
 * {@link #await} is a single acquire-load when the flag is already there. Otherwise it runs the slow
 * path: the team's {@link WaitStrategy} passes the time, and between idles the loop checks the abort
 * flag (an abort unparks every rank), the deadline (→ {@link CollectiveTimeoutException} listing the
 * ranks that have not entered), and, every {@link #SCAN_INTERVAL_NANOS}, every rank's ANNOUNCE line
 * for a rank that entered this sequence slot with another call (→ {@link CollectiveMismatchException}).
 *
 * <h2>Mismatch detection</h2>
 * Every stamp carries the publisher's check word ({@link Signature}); a waiter that reads a stamp of its
 * own sequence number compares the word (same cache line, so free) and aborts the team on a
 * difference. Ranks that never wait on each other directly are caught by the slow-path scan.
 */
public final class CollectiveCall {
    /** How often a waiting rank scans every rank's ANNOUNCE line for a mismatch. */
    static final long SCAN_INTERVAL_NANOS = 200_000;
    /** In the spinning phase, read the clock only every this many idles (nanoTime costs ~20 ns). */
    private static final int CLOCK_EVERY = 64;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    /** Bytes of the private strip buffer a fold of more than 16 sources goes through (fits L1 with its sources' lines). */
    static final int FOLD_STRIP_BYTES = 8 * 1024;

    private final TeamContext team;
    private final ControlBlock ctrl;
    private final MemorySegment control;
    private final WaitStrategy wait;
    private final int rank;
    private final int size;
    private final long announceOffset;

    private long seq;
    private long descriptor;
    private long check;
    /** The count word of the check (the count, or a v-variant's summary of its counts). */
    private long signatureCount;
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
    /** Highest sequence number s for which this rank knows that every rank has entered s. */
    private long knownAllEntered;
    /** Highest sequence number already checked against every rank's ANNOUNCE line. */
    private final long[] seenAnnounce;
    private final MemorySegment[] foldSources;
    private final long[] foldOffsets;
    private final MemorySegment[] passSources = new MemorySegment[Reducer.MAX_SOURCES];
    private final long[] passOffsets = new long[Reducer.MAX_SOURCES];
    private int foldCount;
    private final long[] offsets;
    private MemorySegment strip;
    private StreamingFold streaming;
    /** Rank-private room for one inline message (push-model algorithms keep their running value here). */
    private final MemorySegment local = java.lang.foreign.Arena.ofAuto().allocate(ControlBlock.INLINE_BYTES, 64);

    public CollectiveCall(TeamContext team, int rank) {
        this.team = team;
        this.ctrl = team.ctrl();
        this.control = ctrl.segment();
        this.wait = team.waitStrategy();
        this.rank = rank;
        this.size = team.size();
        this.announceOffset = ctrl.offset(rank, ControlBlock.ANNOUNCE);
        this.seenAnnounce = new long[size];
        this.foldSources = new MemorySegment[Math.max(size + 1, Reducer.MAX_SOURCES)];
        this.foldOffsets = new long[foldSources.length];
        this.offsets = new long[size];
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
        this.descriptor = Signature.descriptor(collective, dtype, op, root);
        this.signatureCount = signatureCount;
        this.check = Signature.check(descriptor, signatureCount, s);
        if (s - 1 > knownAllEntered) {
            awaitAllEntered(s - 1);
        }
        team.blocks(rank, s).set(count, sendCounts, sendDispls, recvCounts, recvDispls, inPlace());
        long scratchBytes = algorithm.scratchBytes(this);
        int parity = (int) (s & 1);
        this.scratch = scratchBytes > 0 ? team.scratch(rank).ensure(parity, scratchBytes) : team.scratch(rank).current(parity);
        team.setSlot(rank, s, TeamContext.SEND, send);
        team.setSlot(rank, s, TeamContext.RECV, recv);
        team.setSlot(rank, s, TeamContext.SCRATCH, scratch);
        long payload = ControlBlock.payloadOffset(announceOffset, s);
        control.set(LONG, payload, descriptor);
        control.set(LONG, payload + 8, signatureCount);
        // release: publishes descriptor, buffer references and scratch to every acquire of ANNOUNCE
        ctrl.publish(announceOffset, Stamp.of(s, 0), check);
    }

    /** Ends the current collective; {@code allEntered}: the algorithm observed every rank's entry. */
    public void end(boolean allEntered) {
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
                long v = awaitStamp(ctrl.offset(q, ControlBlock.ANNOUNCE), stamp, q, ControlBlock.ANNOUNCE);
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
        return send == recv || (send != null && recv != null && send.equals(recv));
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

    public boolean reproducible() {
        return team.reproducible();
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
        foldCount = 0;
    }

    /** Adds the next source of the fold (elements at byte offset {@code offset} of {@code seg}). */
    public void foldAdd(MemorySegment seg, long offset) {
        foldSources[foldCount] = seg;
        foldOffsets[foldCount] = offset;
        foldCount++;
    }

    /**
     * {@code dst = s0 op s1 op … op s(k−1)} over the added sources, left to right — bitwise the scalar left
     * fold in the order the sources were added. Up to 16 sources this is one k-ary pass
     * ({@link Reducer#reduceMany}); beyond, it strip-mines: each strip of {@link #FOLD_STRIP_BYTES} is
     * folded 16 sources at a time into a private L1-resident buffer and written to dst once, so
     * {@code dst} may alias any one source exactly (in-place collectives) at every k.
     */
    public void foldInto(MemorySegment dst, long dstOffset, long elements) {
        int k = foldCount;
        if (k <= Reducer.MAX_SOURCES) {
            reducer.reduceMany(dst, dstOffset, foldSources, foldOffsets, k, elements);
            return;
        }
        if (strip == null) {
            strip = java.lang.foreign.Arena.ofAuto().allocate(FOLD_STRIP_BYTES, 64);
        }
        int es = dtype.size();
        long perStrip = FOLD_STRIP_BYTES / es;
        for (long done = 0; done < elements; done += perStrip) {
            long n = Math.min(perStrip, elements - done);
            foldStrip(strip, done * es, n);
            MemorySegment.copy(strip, 0, dst, dstOffset + done * es, n * es);
        }
    }

    /**
     * {@link #foldInto} with non-temporal stores to {@code dst} — the native streaming fold
     * ({@link StreamingFold}): the destination is written once and never read for ownership [YHCCL §4.1].
     * Use it only when the result is not re-read soon (W &gt; C, [YHCCL §4.2]). Same order and bits as
     * {@link #foldInto}; {@code dst} may alias a source exactly. Falls back to {@link #foldInto} when a
     * buffer is on the heap or the machine has no non-temporal path.
     */
    public void foldIntoNonTemporal(MemorySegment dst, long dstOffset, long elements) {
        StreamingFold f = streamingFold();
        if (f != null) {
            f.destination(dst, dstOffset);
            if (addStreamingSources(f)) {
                f.run(dtype.ordinal(), op.ordinal(), elements);
                return;
            }
        }
        foldInto(dst, dstOffset, elements);
    }

    /**
     * {@link #foldInto} into the receive buffer of EVERY rank at {@code dstOffset}: the owner of a block
     * writes its result once per rank. With {@code nonTemporal} through the streaming fold, straight from
     * L1 with nothing read back [YHCCL §4.1]; each 1 KiB is read from every source before it is written
     * anywhere, so a rank's receive buffer may be its send buffer. Otherwise (or when a buffer is on the
     * heap, or the machine cannot stream) a fold into my receive buffer and temporal copies from there.
     * The caller must hold every rank's published buffers.
     */
    public void foldIntoEveryRecv(long dstOffset, long elements, boolean nonTemporal) {
        StreamingFold f = nonTemporal ? streamingFold() : null;
        if (f != null) {
            addEveryRecv(f, dstOffset);
            if (addStreamingSources(f)) {
                f.run(dtype.ordinal(), op.ordinal(), elements);
                return;
            }
        }
        foldInto(recv, dstOffset, elements);
        long bytes = elements * dtype.size();
        for (int q = 0; q < size; q++) {
            if (q != rank) {
                MemorySegment.copy(recv, dstOffset, peerRecv(q), dstOffset, bytes);
            }
        }
    }

    /**
     * Copies {@code bytes} of {@code src@srcOffset} into the receive buffer of EVERY rank at
     * {@code dstOffset} (a push allgather). With {@code nonTemporal}, through the streaming fold with one
     * source: each 1 KiB is read once and streamed to the p destinations [YHCCL §4.1]; otherwise (or with a
     * heap buffer, or no NT path) one copy per destination. A destination that is exactly the source is
     * skipped. The caller must hold every rank's published buffers.
     */
    public void copyIntoEveryRecv(MemorySegment src, long srcOffset, long dstOffset, long bytes, boolean nonTemporal) {
        StreamingFold f = nonTemporal ? streamingFold() : null;
        if (f != null) {
            addEveryRecv(f, dstOffset);
            f.source(src, srcOffset);
            if (f.allNative()) {
                // one source: nothing is folded, so the op code only has to be a valid one for the dtype
                f.run(dtype.ordinal(), Op.SUM.ordinal(), bytes / dtype.size());
                return;
            }
            f.clear();
        }
        for (int q = 0; q < size; q++) {
            Transfers.copy(this, src, srcOffset, recvOf(q), dstOffset, bytes, nonTemporal);
        }
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

    /** Rank q's send buffer: mine, or the one q published (same validity rule as {@link #peerSend}). */
    public MemorySegment sendOf(int q) {
        return q == rank ? send : peerSend(q);
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
        if (bytes == 0) {
            return;
        }
        StreamingFold f = nonTemporal && bytes % dtype.size() == 0 ? streamingFold() : null;
        if (f != null) {
            for (int q = 0; q < size; q++) {
                if (dstOffsets[q] >= 0) {
                    f.destination(recvOf(q), dstOffsets[q]);
                }
            }
            f.source(src, srcOffset);
            if (f.allNative()) {
                // one source: nothing is folded, so the op code only has to be a valid one for the dtype
                f.run(dtype.ordinal(), Op.SUM.ordinal(), bytes / dtype.size());
                return;
            }
            f.clear();
        }
        for (int q = 0; q < size; q++) {
            if (dstOffsets[q] >= 0) {
                Transfers.copy(this, src, srcOffset, recvOf(q), dstOffsets[q], bytes, nonTemporal);
            }
        }
    }

    /** Rank q's receive buffer: mine, or the one q published. */
    public MemorySegment recvOf(int q) {
        return q == rank ? recv : peerRecv(q);
    }

    /** Every rank's receive buffer at {@code dstOffset} as a destination of {@code f}. */
    private void addEveryRecv(StreamingFold f, long dstOffset) {
        for (int q = 0; q < size; q++) {
            f.destination(recvOf(q), dstOffset);
        }
    }

    /** This rank's streaming fold, created at first use; null when the machine cannot stream. */
    private StreamingFold streamingFold() {
        if (!StreamingFold.available()) {
            return null;
        }
        if (streaming == null) {
            streaming = new StreamingFold(size, foldSources.length);
        }
        streaming.clear();
        return streaming;
    }

    /** Adds the fold's sources; false (and the fold cleared) when one of them or a destination is on the heap. */
    private boolean addStreamingSources(StreamingFold f) {
        for (int i = 0; i < foldCount; i++) {
            f.source(foldSources[i], foldOffsets[i]);
        }
        if (f.allNative()) {
            return true;
        }
        f.clear();
        return false;
    }

    /** Folds {@code n} elements at byte {@code delta} of every added source into {@code into} at 0, 16 sources a pass. */
    private void foldStrip(MemorySegment into, long delta, long n) {
        int k = foldCount;
        int first = Math.min(k, Reducer.MAX_SOURCES);
        for (int i = 0; i < first; i++) {
            passSources[i] = foldSources[i];
            passOffsets[i] = foldOffsets[i] + delta;
        }
        reducer.reduceMany(into, 0, passSources, passOffsets, first, n);
        for (int next = first; next < k; ) {
            int take = Math.min(Reducer.MAX_SOURCES - 1, k - next);
            passSources[0] = into;
            passOffsets[0] = 0;
            for (int i = 0; i < take; i++) {
                passSources[1 + i] = foldSources[next + i];
                passOffsets[1 + i] = foldOffsets[next + i] + delta;
            }
            reducer.reduceMany(into, 0, passSources, passOffsets, 1 + take, n);
            next += take;
        }
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
        ctrl.publish(ctrl.offset(rank, line), Stamp.of(seq, step), check);
    }

    /** Publishes {@code step} on {@code peer}'s {@code line}; for lines with one designated writer per round (dissemination). */
    public void publishTo(int peer, int line, long step) {
        ctrl.publish(ctrl.offset(peer, line), Stamp.of(seq, step), check);
    }

    /** Waits until {@code peer}'s {@code line} reaches {@code step} of this collective; returns the stamp read. */
    public long await(int peer, int line, long step) {
        return awaitStamp(ctrl.offset(peer, line), Stamp.of(seq, step), peer, line);
    }

    /**
     * Waits until my own {@code line}, which rank {@code writer} publishes to (dissemination, recursive
     * doubling), reaches {@code step}.
     */
    public long awaitFrom(int writer, int line, long step) {
        return awaitStamp(ctrl.offset(rank, line), Stamp.of(seq, step), writer, line);
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
        long off = ctrl.offset(peer, line);
        long v = ctrl.stampAcquire(off);
        if (!Stamp.reached(v, Stamp.of(seq, step))) {
            return false;
        }
        verify(off, v, peer);
        return true;
    }

    /** Atomically adds {@code delta} to team-wide counter line {@code line}; returns the new value (full fence). */
    public long addToGlobal(int line, long delta) {
        return ctrl.addAndGet(ctrl.globalOffset(line), delta);
    }

    /** Waits until team-wide counter {@code line} reaches {@code target} (counters carry no check word). */
    public void awaitGlobal(int line, long target) {
        long off = ctrl.globalOffset(line);
        if (!Stamp.reached(ctrl.stampAcquire(off), target)) {
            awaitSlow(off, target, -1, line);
        }
    }

    private long awaitStamp(long off, long target, int peer, int line) {
        long v = ctrl.stampAcquire(off);
        if (!Stamp.reached(v, target)) {
            v = awaitSlow(off, target, peer, line);
        }
        verify(off, v, peer);
        return v;
    }

    /**
     * Compares the call {@code peer} made in this sequence slot with mine, given stamp {@code v} just
     * acquired at {@code off}. A stamp of this collective carries the peer's check word on the same line.
     * A later stamp means the peer has already moved on (it did not need to wait for me, e.g. as a bcast
     * root): then its ANNOUNCE payload half for this sequence number still holds what it called — it is
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
            long d = control.get(LONG, payload);
            long n = control.get(LONG, payload + 8);
            if (Signature.check(d, n, seq) != check) {
                throw mismatch(peer);
            }
        }
    }

    private long awaitSlow(long off, long target, int peer, int line) {
        long timeout = team.timeoutNanos();
        long start = System.nanoTime();
        long nextScan = start + SCAN_INTERVAL_NANOS;
        for (int idle = 0; ; idle++) {
            wait.idle(idle);
            long v = ctrl.stampAcquire(off);
            if (Stamp.reached(v, target)) {
                return v;
            }
            if (team.isAborted()) {
                throw team.abortedException(rank);
            }
            if (idle % CLOCK_EVERY == 0 || idle > 4096) {
                long now = System.nanoTime();
                if (now - nextScan >= 0) {
                    scanAnnounces();
                    nextScan = now + SCAN_INTERVAL_NANOS;
                }
                if (now - start > timeout) {
                    throw timeout(peer, line, now - start);
                }
            }
        }
    }

    /** Looks at every rank's ANNOUNCE line: a rank in this sequence slot with another call is a mismatch. */
    private void scanAnnounces() {
        for (int q = 0; q < size; q++) {
            if (q == rank || seenAnnounce[q] == seq) {
                continue;
            }
            long off = ctrl.offset(q, ControlBlock.ANNOUNCE);
            long v = ctrl.stampAcquire(off);
            if (Stamp.seq(v) >= seq) {          // q entered this collective (and maybe left it): compare its call
                verify(off, v, q);
                seenAnnounce[q] = seq;
            }
        }
    }

    private CollectiveMismatchException mismatch(int peer) {
        String mine = Signature.describe(descriptor, signatureCount);
        String theirs = describePeerCall(peer, seq);
        CollectiveMismatchException e = new CollectiveMismatchException("collective mismatch in collective #" + seq
                + ": rank " + rank + " called " + mine + " but rank " + peer + " called " + theirs);
        if (team.abort(e, rank)) {
            return e;
        }
        return (CollectiveMismatchException) (team.abortState().cause() instanceof CollectiveMismatchException
                ? team.abortedException(rank) : e);
    }

    /** What {@code peer} announced for collective {@code s}, read from its ANNOUNCE payload (best effort). */
    private String describePeerCall(int peer, long s) {
        long off = ctrl.offset(peer, ControlBlock.ANNOUNCE);
        long v = ctrl.stampAcquire(off);
        long payload = ControlBlock.payloadOffset(off, s);
        long d = control.get(LONG, payload);
        long n = control.get(LONG, payload + 8);
        VarHandle.loadLoadFence();
        if (Stamp.seq(v) != s || ctrl.stampOpaque(off) != v) {
            return "a different collective (it has moved on to #" + Stamp.seq(ctrl.stampOpaque(off)) + ")";
        }
        return Signature.describe(d, n);
    }

    private RuntimeException timeout(int peer, int line, long waitedNanos) {
        List<Integer> missing = new ArrayList<>();
        StringBuilder last = new StringBuilder();
        for (int q = 0; q < size; q++) {
            long off = ctrl.offset(q, ControlBlock.ANNOUNCE);
            long entered = Stamp.seq(ctrl.stampAcquire(off));
            if (entered < seq) {
                missing.add(q);
                last.append(last.isEmpty() ? "" : ", ").append("rank ").append(q).append(" last entered #")
                        .append(entered);
            }
        }
        String waitingFor = peer >= 0 ? "rank " + peer + " (" + ctrl.lineName(line) + " line)" : "the central counter";
        String msg = Signature.describe(descriptor, signatureCount) + " (collective #" + seq + ", algorithm " + algorithm
                + ") timed out on rank " + rank + " after " + (waitedNanos / 1_000_000) + " ms waiting for " + waitingFor
                + "; ranks that have not entered it: " + missing + (last.isEmpty() ? "" : " (" + last + ")");
        CollectiveTimeoutException e = new CollectiveTimeoutException(msg, missing);
        if (team.abort(e, rank)) {
            return e;
        }
        return team.abortedException(rank);
    }
}
