package io.coll4j.kernel.p2p;

import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.MessageStatus;
import io.coll4j.MessageTruncatedException;
import io.coll4j.WaitStrategy;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.span.MessageTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * One rank's half of point-to-point: its posted receives and unexpected messages (the two matching queues of
 * [AMPI §5.2]), its sends waiting for ring space, and the progress loop that drains its incoming rings. Only the
 * rank's own thread touches it, so there are no locks: peers reach it only through the rings (and a rendezvous
 * sender's request).
 *
 * <p><b>Matching (MPI's rules).</b> A message is matched by the earliest posted receive whose source and tag match
 * it (wildcards allowed); a receive takes the earliest unexpected message it matches. Each ring is drained in order
 * and a receive searches the unexpected queue before the ring, so two messages from one source that the same receive
 * could match are received in the order sent (non-overtaking, per source, tag and team). Invariant: no posted receive
 * matches an unexpected message.
 *
 * <p><b>No allocation on the hot path</b> [AMPI §5.2]: queue links are fields of the requests and envelopes
 * themselves; envelopes and their payload buffers are pooled; the blocking calls reuse one send and one receive
 * request per rank. An {@code isend}/{@code irecv} allocates its request (the caller holds it).
 */
public final class Endpoint {
    /** Wildcard source or tag (PointToPoint.ANY_SOURCE, ANY_TAG). */
    public static final int ANY = -1;
    /** How often a wait looks for peers whose body returned (they will never send). */
    private static final long SCAN_NANOS = 1_000_000;
    /**
     * A wait reads the clock (its timeout, deadline and scan for returned peers) at its first idle round and then
     * every 64th: {@code System.nanoTime} costs ~40 ns here (kvm-clock's vDSO), as long as a line hand-over, and read
     * at every round it made each poll of the ring ~2.5x as long as the PAUSE alone (docs/measurements.md,
     * 2026-11-29). 64 rounds are a few microseconds: the timeout and the bounded await stay that exact.
     */
    private static final int CLOCK_EVERY = 64;
    /**
     * A wait polls this many rounds back to back before it hands its idle rounds to the team's wait strategy (whose
     * first rounds are a PAUSE each): a message already in flight arrives within a line hand-over, and a PAUSE
     * between two polls delays seeing it by up to the PAUSE's length, of the order of a hand-over (docs/design.md,
     * "Point-to-point"). Open MPI's progress loop and the line ping-pong floor poll without PAUSE. 256 rounds are a
     * few microseconds; after them the strategy's spin, yield and park apply as before. Not on a team whose strategy
     * is for more ranks than cores ({@link #hotPolls}). {@code -Dcoll4j.p2p.hotPolls=N} sets another count (0: the
     * strategy from the first idle round).
     */
    static final int HOT_POLLS = Integer.getInteger("coll4j.p2p.hotPolls", 256);

    /** The team's number of this rank (global on a team that spans processes). */
    final int rank;
    /** Its number in the local team ({@link #context}): the same unless the team spans processes. */
    private final int localRank;
    private final Links links;
    /** The mapping between the processes (remote rings, rendezvous by offset), or null on a team of one process. */
    private final P2pMemory memory;
    /** The transport to other processes' ranks when they share no mapping (TransportLinks), or null. */
    private final MessageTransport remote;
    private final MessageTransport.Arrival arrival = new MessageTransport.Arrival();
    private final TeamContext context;
    private final int size;
    private final Copy copy;
    private final long eagerMax;
    private final Channel[] in;
    private final Channel[] out;
    private RecvRequest postedHead, postedTail;
    private Envelope unexpectedHead, unexpectedTail;
    private Envelope free;
    /** Envelopes in {@link #free}. */
    private int pooled;
    /** Envelopes given a payload buffer from the team's arena. */
    private int teamBuffers;
    /** Envelopes (with their buffers) kept for reuse: a ring's worth of unexpected messages per peer is the usual backlog. */
    static final int POOL_KEEP = Channel.SLOTS;
    private final SendRequest[] pendingHead, pendingTail;
    private int pending;
    private SendRequest blockingSend;
    private RecvRequest blockingRecv;
    private RecvRequest probeWait;
    private MemorySegment replaceScratch;
    private long lastScan;
    /**
     * {@link #HOT_POLLS}, or 0 under the oversubscribed and yielding strategies: there the rank waited for may be
     * waiting for this core, and those strategies give it up after a few spins on purpose.
     */
    private final int hotPolls;

    Endpoint(Links links, int rank, int localRank) {
        this.links = links;
        this.rank = rank;
        this.localRank = localRank;
        this.memory = links.memory();
        this.remote = links.transport();
        this.context = links.context();
        this.size = links.size();
        this.copy = context.copy();
        this.eagerMax = links.eagerMax();
        this.in = new Channel[size];
        this.out = new Channel[size];
        this.pendingHead = new SendRequest[size];
        this.pendingTail = new SendRequest[size];
        this.blockingSend = new SendRequest(this);
        this.blockingRecv = new RecvRequest(this);
        this.probeWait = new RecvRequest(this);
        WaitStrategy w = context.waitStrategy();
        this.hotPolls = w == WaitStrategy.backoffOversubscribed() || w == WaitStrategy.yielding() ? 0 : HOT_POLLS;
    }

    int size() {
        return size;
    }

    /** The largest message sent eagerly (the crossover) in bytes. */
    public long eagerMax() {
        return eagerMax;
    }

    // ------------------------------------------------------------------ calls (the rank's thread; arguments checked)

    /** Blocking send: returns when the buffer may be reused (in the ring, or copied out by the receiver). */
    public void send(MemorySegment buf, long bytes, int dest, int tag) {
        SendRequest r = blockingSend;
        r.reset(buf, bytes, dest, tag);
        startSend(r);
        if (!r.complete()) {
            try {
                await(r, 0, false);
            } catch (RuntimeException e) {
                blockingSend = new SendRequest(this);      // the failed one stays failed; the next call needs a fresh one
                throw e;
            }
        }
    }

    public SendRequest isend(MemorySegment buf, long bytes, int dest, int tag) {
        SendRequest r = new SendRequest(this);
        r.reset(buf, bytes, dest, tag);
        startSend(r);
        return r;
    }

    /** Blocking receive into {@code buf} ({@code capacity} bytes); returns the (reused) request holding the status. */
    public RecvRequest recv(MemorySegment buf, long capacity, int source, int tag) {
        RecvRequest r = blockingRecv;
        r.reset(buf, capacity, source, tag);
        try {
            startRecv(r);
            await(r, 0, false);
        } catch (RuntimeException e) {
            blockingRecv = new RecvRequest(this);
            throw e;
        }
        return r;
    }

    public RecvRequest irecv(MemorySegment buf, long capacity, int source, int tag) {
        RecvRequest r = new RecvRequest(this);
        r.reset(buf, capacity, source, tag);
        startRecv(r);
        return r;
    }

    /** Send and receive at once (deadlock-free against a peer doing the same); returns the receive's request. */
    public RecvRequest sendrecv(MemorySegment send, long sendBytes, int dest, int sendTag,
                                MemorySegment recv, long capacity, int source, int recvTag) {
        RecvRequest r = blockingRecv;
        SendRequest s = blockingSend;
        r.reset(recv, capacity, source, recvTag);
        s.reset(send, sendBytes, dest, sendTag);
        try {
            startRecv(r);
            startSend(s);
            await(s, 0, false);
            await(r, 0, false);
        } catch (RuntimeException e) {
            blockingRecv = new RecvRequest(this);
            blockingSend = new SendRequest(this);
            throw e;
        }
        return r;
    }

    /**
     * Sends the first {@code bytes} of {@code buf} and receives into the whole of it: the message is received into a
     * scratch buffer of this rank and copied into {@code buf} once the send is complete.
     */
    public RecvRequest sendrecvReplace(MemorySegment buf, long bytes, int dest, int sendTag, int source, int recvTag) {
        long capacity = buf.byteSize();
        if (replaceScratch == null || replaceScratch.byteSize() < capacity) {
            replaceScratch = Arena.ofAuto().allocate(Math.max(capacity, 64), 64);
        }
        RecvRequest r = sendrecv(buf, bytes, dest, sendTag, replaceScratch, capacity, source, recvTag);
        MemorySegment.copy(replaceScratch, 0, buf, 0, r.statusBytes);
        return r;
    }

    /** A matching message not yet received, or null (MPI_Iprobe). */
    public MessageStatus iprobe(int source, int tag) {
        progress();
        Envelope e = findUnexpected(source, tag, false);
        return e == null ? null : new MessageStatus(e.source, e.tag, e.bytes);
    }

    /** Waits for a matching message and returns its status without receiving it (MPI_Probe). */
    public MessageStatus probe(int source, int tag) {
        RecvRequest w = probeWait;
        w.reset(null, 0, source, tag);
        w.probe = true;
        try {
            for (int idle = 0; ; idle++) {
                if (progress()) {
                    idle = 0;
                }
                Envelope e = findUnexpected(source, tag, false);
                if (e != null) {
                    return new MessageStatus(e.source, e.tag, e.bytes);
                }
                checkSometimes(w, idle);
                idle(w, idle);
            }
        } catch (RuntimeException e) {
            probeWait = new RecvRequest(this);
            throw e;
        }
    }

    // ------------------------------------------------------------------ sends

    private void startSend(SendRequest r) {
        int d = r.peer;
        if (pendingHead[d] == null && trySend(r)) {
            return;
        }
        // behind the messages already waiting for this destination: non-overtaking
        if (pendingHead[d] == null) {
            pendingHead[d] = r;
        } else {
            pendingTail[d].next = r;
        }
        pendingTail[d] = r;
        pending++;
    }

    /** Puts {@code r}'s message in the ring to its destination if there is a free slot. */
    private boolean trySend(SendRequest r) {
        int d = r.peer;
        if (remote != null && links.localOf(d) < 0) {
            r.kind = TransportProtocol.KIND;
            r.token = remote.send(rank, d, r.tag, r.buffer, r.bytes);
            r.transmitted = true;
            return true;
        }
        Channel ch = out[d];
        if (ch == null) {
            ch = out[d] = links.open(rank, d);
        }
        if (!ch.hasRoom()) {
            return false;
        }
        long b = r.bytes;
        if (b <= Channel.INLINE_MAX) {
            r.kind = InlineProtocol.KIND;
            InlineProtocol.write(ch, r.buffer, b);
        } else if (b <= eagerMax) {
            r.kind = EagerProtocol.KIND;
            EagerProtocol.write(ch, r.buffer, b);
        } else if (ch.remote) {
            r.kind = MappedRendezvousProtocol.KIND;
            MappedRendezvousProtocol.write(ch, r, memory, this);
        } else {
            r.kind = RendezvousProtocol.KIND;
            r.expectReceive();
            RendezvousProtocol.write(ch, r);
        }
        ch.publish(r.tag, r.kind, b);
        r.transmitted = true;
        return true;
    }

    /** Sends what waits for ring space, in order per destination. */
    private boolean flush() {
        boolean did = false;
        for (int d = 0; d < size && pending > 0; d++) {
            SendRequest r;
            while ((r = pendingHead[d]) != null && trySend(r)) {
                pendingHead[d] = (SendRequest) r.next;
                r.next = null;
                pending--;
                did = true;
            }
            if (pendingHead[d] == null) {
                pendingTail[d] = null;
            }
        }
        return did;
    }

    // ------------------------------------------------------------------ receives

    private void startRecv(RecvRequest r) {
        Envelope e = findUnexpected(r.peer, r.tag, true);
        if (e != null) {
            deliver(e, r);
            recycle(e);
            return;
        }
        // posted without draining the rings: a message that is already there meets it at the next progress (its
        // wait or test), matched against the posted receives in post order, so posting stays local to this core
        if (postedHead == null) {
            postedHead = r;
        } else {
            postedTail.next = r;
        }
        postedTail = r;
    }

    /**
     * Drains every incoming ring (matching each message against the posted receives, or stashing it as unexpected) and
     * sends what waits for ring space. True when anything moved.
     */
    boolean progress() {
        boolean did = pending != 0 && flush();
        for (int s = 0; s < size; s++) {
            Channel ch = in[s];
            if (ch == null) {
                ch = links.incoming(s, rank);
                if (ch == null) {
                    continue;
                }
                in[s] = ch;
            }
            // at most a ring's worth per pass, so one busy sender cannot keep this loop from the others
            for (int k = 0; k < Channel.SLOTS && ch.arrived(); k++) {
                arrive(ch);
                did = true;
            }
        }
        if (remote != null) {
            for (int k = 0; k < Channel.SLOTS && remote.poll(localRank, arrival); k++) {
                arriveRemote(arrival);
                did = true;
            }
        }
        return did;
    }

    /** A message from another process's rank through the transport (TransportProtocol): as {@link #arrive}. */
    private void arriveRemote(MessageTransport.Arrival a) {
        RecvRequest r = takePosted(a.source, a.tag);
        if (r != null) {
            long n = Math.min(a.bytes, r.bytes);
            if (a.payload == null) {
                r.token = remote.receive(localRank, a.handle, a.bytes, r.buffer, n);
            } else if (n > 0) {
                MemorySegment.copy(a.payload, 0, r.buffer, 0, n);
            }
            matched(r, a.source, a.tag, a.bytes);
            return;
        }
        Envelope e = envelope(a.source, a.tag, a.payload == null ? TransportProtocol.KIND : EagerProtocol.KIND, a.bytes);
        if (a.payload == null) {
            e.at = a.handle;
        } else {
            if (e.buffer == null) {
                e.buffer = stashBuffer(e);
            }
            MemorySegment.copy(a.payload, 0, e.buffer, 0, a.bytes);
        }
        unexpected(e);
    }

    /** The message at the head of {@code ch} has arrived: deliver it to the earliest matching receive, or stash it. */
    private void arrive(Channel ch) {
        int source = ch.source;
        int tag = ch.headTag();
        int kind = ch.headKind();
        long bytes = ch.headBytes();
        RecvRequest r = takePosted(source, tag);
        if (r != null) {
            long n = Math.min(bytes, r.bytes);
            switch (kind) {
                case InlineProtocol.KIND -> InlineProtocol.copyOut(ch, r.buffer, n);
                case EagerProtocol.KIND -> EagerProtocol.copyOut(ch, r.buffer, n);
                case MappedRendezvousProtocol.KIND -> MappedRendezvousProtocol.copyOut(memory.memory(),
                        ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.AT),
                        ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.ACK),
                        ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.GEN), r.buffer, n, copy);
                default -> RendezvousProtocol.copyOut((SendRequest) ch.headRef(), r.buffer, n, copy);
            }
            matched(r, source, tag, bytes);
        } else {
            Envelope e = envelope(source, tag, kind, bytes);
            if (kind == RendezvousProtocol.KIND) {
                e.rendezvous = (SendRequest) ch.headRef();
            } else if (kind == MappedRendezvousProtocol.KIND) {
                e.at = ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.AT);
                e.ack = ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.ACK);
                e.gen = ch.seg.get(ValueLayout.JAVA_LONG, ch.headSlot() + MappedRendezvousProtocol.GEN);
            } else {
                if (e.buffer == null) {
                    e.buffer = stashBuffer(e);
                }
                if (kind == InlineProtocol.KIND) {
                    InlineProtocol.stash(ch, e, bytes);
                } else {
                    EagerProtocol.stash(ch, e, bytes);
                }
            }
            unexpected(e);
        }
        ch.consume();
    }

    /** An envelope from the pool (or new: the pool grows with the backlog of unexpected messages, up to POOL_KEEP). */
    private Envelope envelope(int source, int tag, int kind, long bytes) {
        Envelope e = free;
        if (e != null) {
            free = e.next;
            e.next = null;
            pooled--;
        } else {
            e = new Envelope();
        }
        e.source = source;
        e.tag = tag;
        e.kind = kind;
        e.bytes = bytes;
        return e;
    }

    /** Appends {@code e} to the unexpected queue (arrival order: the non-overtaking rule's). */
    private void unexpected(Envelope e) {
        if (unexpectedHead == null) {
            unexpectedHead = e;
        } else {
            unexpectedTail.next = e;
        }
        unexpectedTail = e;
    }

    private RecvRequest takePosted(int source, int tag) {
        P2pRequest prev = null;
        for (RecvRequest r = postedHead; r != null; r = (RecvRequest) r.next) {
            if (r.matches(source, tag)) {
                if (prev == null) {
                    postedHead = (RecvRequest) r.next;
                } else {
                    prev.next = r.next;
                }
                if (postedTail == r) {
                    postedTail = (RecvRequest) prev;
                }
                r.next = null;
                return r;
            }
            prev = r;
        }
        return null;
    }

    /** The earliest unexpected message {@code source}/{@code tag} matches, removed from the queue when {@code take}. */
    private Envelope findUnexpected(int source, int tag, boolean take) {
        Envelope prev = null;
        for (Envelope e = unexpectedHead; e != null; e = e.next) {
            if ((source == ANY || source == e.source) && (tag == e.tag || (tag == ANY && e.tag >= 0))) {
                if (take) {
                    if (prev == null) {
                        unexpectedHead = e.next;
                    } else {
                        prev.next = e.next;
                    }
                    if (unexpectedTail == e) {
                        unexpectedTail = prev;
                    }
                    e.next = null;
                }
                return e;
            }
            prev = e;
        }
        return null;
    }

    private void deliver(Envelope e, RecvRequest r) {
        long n = Math.min(e.bytes, r.bytes);
        if (e.kind == RendezvousProtocol.KIND) {
            RendezvousProtocol.copyOut(e.rendezvous, r.buffer, n, copy);
        } else if (e.kind == MappedRendezvousProtocol.KIND) {
            MappedRendezvousProtocol.copyOut(memory.memory(), e.at, e.ack, e.gen, r.buffer, n, copy);
        } else if (e.kind == TransportProtocol.KIND) {
            r.token = remote.receive(localRank, e.at, e.bytes, r.buffer, n);
        } else if (n > 0) {
            MemorySegment.copy(e.buffer, 0, r.buffer, 0, n);
        }
        matched(r, e.source, e.tag, e.bytes);
    }

    /**
     * A payload buffer for a new envelope: from the team's arena for the first {@link #POOL_KEEP} (kept, with their
     * envelopes, until the team closes), beyond that from an automatic arena, so a burst of unexpected messages does
     * not hold its native memory for the team's lifetime: such an envelope is dropped when its message is received,
     * and the collector frees its buffer.
     */
    private MemorySegment stashBuffer(Envelope e) {
        if (teamBuffers < POOL_KEEP) {
            teamBuffers++;
            return context.arena().arena().allocate(eagerMax, 64);
        }
        e.overflow = true;
        return Arena.ofAuto().allocate(eagerMax, 64);
    }

    private void recycle(Envelope e) {
        e.rendezvous = null;
        if (e.overflow || (e.buffer == null && pooled >= 4 * POOL_KEEP)) {
            return;                             // beyond the pool: left to the collector
        }
        e.next = free;
        free = e;
        pooled++;
    }

    /** Envelopes whose payload buffer lives in the team's arena (at most {@link #POOL_KEEP}), for tests. */
    public int teamEnvelopeBuffers() {
        return teamBuffers;
    }

    /** Envelopes in the free list, for tests. */
    public int pooledEnvelopes() {
        return pooled;
    }

    private void matched(RecvRequest r, int source, int tag, long bytes) {
        r.statusSource = source;
        r.statusTag = tag;
        r.statusBytes = bytes;
        r.matched = true;
        if (bytes > r.bytes) {
            // MPI_ERR_TRUNCATE: this receive fails, the message is consumed, the sender completes, nothing else is lost
            r.record(new MessageTruncatedException(rank, source, tag, bytes, r.bytes));
        }
    }

    // ------------------------------------------------------------------ waiting

    /** Waits for {@code r} (until {@code deadline} when bounded); the loop of every blocking call and request wait. */
    boolean await(P2pRequest r, long deadline, boolean bounded) {
        r.throwIfFailed();
        if (r.done) {
            return true;
        }
        try {
            for (int idle = 0; ; idle++) {
                if (r.complete()) {
                    return r.finish();
                }
                if (progress()) {
                    idle = 0;
                    if (r.complete()) {
                        return r.finish();
                    }
                }
                if (checkSometimes(r, idle) && bounded && System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (idle >= hotPolls) {
                    idle(r, idle - hotPolls);
                } else if (Thread.currentThread().isInterrupted()) {
                    idle(r, 0);                 // throws: the interrupt is seen at once, as in the strategy's rounds
                }
            }
        } catch (RuntimeException e) {
            throw r.fail(e);
        }
    }

    private void idle(P2pRequest r, int idle) {
        Thread self = Thread.currentThread();
        if (self.isInterrupted()) {
            // checked before idling: with the flag set a parking strategy returns at once and the loop spins
            CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + rank + " (thread "
                    + self.getName() + ") was interrupted while waiting in " + r.describe() + "; the team is aborted", localRank);
            throw failAndAbort(r, e);
        }
        context.waitStrategy().idle(idle);
    }

    /**
     * {@link #check} at {@code count} 0 and every {@link #CLOCK_EVERY}th count (true then: the caller may read the
     * clock too), the abort flag alone in between.
     */
    boolean checkSometimes(P2pRequest r, int count) {
        if ((count & (CLOCK_EVERY - 1)) == 0) {
            check(r);
            return true;
        }
        if (context.isAborted()) {
            throw context.abortedException(localRank);
        }
        return false;
    }

    /** Abort, timeout and peers that returned: what ends a wait that nothing will complete. */
    void check(P2pRequest r) {
        if (context.isAborted()) {
            throw context.abortedException(localRank);
        }
        long now = System.nanoTime();
        if (r.since == 0) {
            r.since = now;
            return;
        }
        long waited = now - r.since;
        if (waited > context.timeoutNanos()) {
            throw failAndAbort(r, new CollectiveTimeoutException("rank " + rank + " waited " + waited / 1_000_000
                    + " ms (the team timeout) in " + r.describe() + " without a match" + where(r.waitsFor()),
                    r.waitsFor()));
        }
        if (memory != null) {
            try {
                memory.checkPeers(r.describe());
            } catch (RuntimeException e) {
                progress();                     // what a peer sent before it closed its team is in the rings
                if (!r.complete()) {
                    throw failAndAbort(r, e);
                }
            }
        }
        if (context.anyReturned() && now - lastScan > SCAN_NANOS) {
            lastScan = now;
            List<Integer> peers = r.waitsFor();
            for (int p : peers) {
                int l = links.localOf(p);
                if (l < 0 || !context.hasReturned(l)) {
                    return;                     // another process's rank: its process's liveness is checked above
                }
            }
            progress();                         // what they sent before returning is in the rings by now
            if (r.complete() || (r instanceof RecvRequest rr && rr.probe && findUnexpected(rr.peer, rr.tag, false) != null)) {
                return;
            }
            throw failAndAbort(r, new CollectiveTimeoutException("rank " + rank + " waits in " + r.describe()
                    + " but the team.run body of " + (peers.size() == 1 ? "rank " + peers.get(0) : "every other rank")
                    + " returned without a matching " + (r instanceof SendRequest ? "receive" : "send"), peers));
        }
    }

    private RuntimeException failAndAbort(P2pRequest r, RuntimeException e) {
        RuntimeException f = r.record(e);
        context.abort(e, localRank);
        return f;
    }

    /** Where the named ranks' threads are (the top frames of one, as the collectives' timeouts say). */
    private String where(List<Integer> ranks) {
        if (ranks.size() != 1) {
            return "";
        }
        int p = ranks.get(0);
        if (links.localOf(p) < 0) {
            return "; rank " + p + " is in another process";
        }
        Thread t = context.thread(links.localOf(p));
        if (t == null) {
            return "; rank " + p + " has no thread";
        }
        StringBuilder b = new StringBuilder("; rank " + p + " (thread " + t.getName() + ") is at");
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(4, st.length); i++) {
            b.append(i == 0 ? " " : " < ").append(st[i]);
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ rendezvous across processes

    /** Free completion lines of this rank's rendezvous sends to other processes (offsets in the mapping). */
    private long[] ackFree = new long[0];
    private int ackFreeCount;
    private long generation;

    /**
     * A completion line for a rendezvous send to another process: 64 bytes of this process's region, from a page
     * taken 64 lines at a time and reused, so a steady stream of large sends takes no block per message for it.
     */
    long ackLine() {
        if (ackFreeCount == 0) {
            long page = memory.take(4096, true);
            if (page < 0) {
                throw new IllegalStateException("point-to-point: no room in this process's region of the shared mapping"
                        + " for the completion lines of large sends; Team.builder().sharedMemory(bytes) sizes it");
            }
            if (ackFree.length < 64) {
                ackFree = new long[64];
            }
            for (int i = 0; i < 64; i++) {
                ackFree[ackFreeCount++] = page + 64L * i;
            }
        }
        return ackFree[--ackFreeCount];
    }

    /** A generation never written into any completion line before (they only grow, so a line's old value never matches). */
    long nextGeneration() {
        return ++generation;
    }

    /** True once {@code r}'s receiver copied it; then gives back its completion line and its staging block. */
    boolean received(SendRequest r) {
        MemorySegment mapping = memory.memory();
        if (!MappedRendezvousProtocol.received(mapping, r.ackAt, r.ackGen)) {
            return false;
        }
        if (ackFreeCount == ackFree.length) {
            ackFree = java.util.Arrays.copyOf(ackFree, 2 * ackFree.length);
        }
        ackFree[ackFreeCount++] = r.ackAt;
        r.ackAt = -1;
        if (r.staged >= 0) {
            memory.give(r.staged, r.bytes);
            r.staged = -1;
        }
        return true;
    }

    /** True once the transport's send of {@code r} is complete. */
    boolean transportSent(SendRequest r) {
        if (!remote.sent(r.token)) {
            return false;
        }
        r.token = -1;
        return true;
    }

    /** True once the transport's receive into {@code r} is complete. */
    boolean transportReceived(RecvRequest r) {
        if (!remote.received(r.token)) {
            return false;
        }
        r.token = -1;
        return true;
    }

    // ------------------------------------------------------------------ for requests

    /** An aborted team sends and receives nothing more: every call throws the abort's exception. */
    public void checkAborted() {
        if (context.isAborted()) {
            throw context.abortedException(localRank);
        }
    }

    void checkThread() {
        if (!isOwnerThread()) {
            throw new IllegalStateException("a point-to-point request of rank " + rank + " is progressed by that rank's"
                    + " thread only, not " + Thread.currentThread().getName());
        }
    }

    boolean isOwnerThread() {
        return context.thread(localRank) == Thread.currentThread();
    }

    long timeoutNanos() {
        return context.timeoutNanos();
    }

    void abort(RuntimeException e) {
        context.abort(e, localRank);
    }

    MessageStatus status(int source, int tag, long bytes) {
        return new MessageStatus(source, tag, bytes);
    }
}
