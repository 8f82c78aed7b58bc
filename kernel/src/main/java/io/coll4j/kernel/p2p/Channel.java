package io.coll4j.kernel.p2p;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The ring of messages from one rank to another (one writer, one reader), in the team's shared native memory. It is
 * created by the sender at its first message to that receiver, so a team pays only for the pairs that talk.
 *
 * <pre>
 * slot k (k = seq mod SLOTS), 128 bytes apart (the adjacent-line prefetcher pairs lines):
 *    0  stamp  long   seq + 1 of the message in the slot; getAcquire / setRelease (the flag)
 *    8  tag    int    plain, written before the stamp's release
 *   12  kind   int    InlineProtocol.KIND, EagerProtocol.KIND or RendezvousProtocol.KIND
 *   16  bytes  long   the message's size
 *   24  inline 40 B   the payload of messages of at most 40 bytes: it travels in the flag's cache line
 * HEAD line (128 bytes): long, messages the receiver has consumed; written by the receiver with setRelease
 * DATA: SLOTS × dataStride bytes, slot k's eager payload at k × dataStride
 * </pre>
 *
 * Stamps only grow (message sequence numbers on this pair, from 1), so nothing is reset and a slot's old stamp is
 * never mistaken for a new one; the receiver waits for {@code head + 1} in slot {@code head mod SLOTS}. A rendezvous
 * message carries a reference to the sender's request in {@link #refs}, a plain array element written before the
 * stamp's release and read after its acquire (as {@code TeamContext}'s buffer slots).
 */
final class Channel extends ChannelReceiverSide {
    /** Slots per ring: messages in flight per pair before a sender queues (a power of two; OSU's bandwidth window fits). */
    static final int SLOTS = 64;
    static final long SLOT_STRIDE = 128;
    static final long STAMP = 0, TAG = 8, KIND = 12, BYTES = 16, INLINE = 24;
    /** Payload bytes that fit in the slot's first cache line beside the header. */
    static final long INLINE_MAX = 64 - INLINE;
    private static final long HEAD_LINE = SLOTS * SLOT_STRIDE;
    /**
     * In the head line's second half (never written by the receiver): the sender's crossover, written once before a
     * ring between processes is published, so a receiver whose process was started with another
     * {@code coll4j.p2p.eagerMax} (another ring geometry) fails instead of misreading the ring.
     */
    static final long EAGER_MAX_AT = HEAD_LINE + 64;
    private static final long DATA = HEAD_LINE + 128;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    Channel(Arena arena, int source, int dest, long eagerMax) {
        super(source, dest, (eagerMax + 63) & ~63L,
                arena.allocate(DATA + SLOTS * ((eagerMax + 63) & ~63L), 4096), false);
    }

    /**
     * A ring between ranks of two processes in {@code seg}, {@link #footprint} zeroed bytes of the shared mapping
     * ({@link MappingLinks}): the sender and the receiver each hold a Channel object of their own over the same bytes
     * (each through its process's view of the mapping), and a rendezvous slot carries offsets in the mapping instead
     * of a reference ({@link MappedRendezvousProtocol}).
     */
    Channel(MemorySegment seg, int source, int dest, long eagerMax) {
        super(source, dest, (eagerMax + 63) & ~63L, seg, true);
    }

    /** Bytes of native memory one channel takes with eager messages of at most {@code eagerMax} bytes. */
    static long footprint(long eagerMax) {
        return DATA + SLOTS * ((eagerMax + 63) & ~63L);
    }

    // ------------------------------------------------------------------ sender

    /** Sender: true when a slot is free (reads the receiver's head only when the cached one says full). */
    boolean hasRoom() {
        if (tail - headSeen < SLOTS) {
            return true;
        }
        // acquire: pairs with consume()'s setRelease of HEAD; the receiver's reads of the slot (and of its data, and
        // of the rendezvous buffer it referenced) happen-before this sender rewrites them
        headSeen = (long) LONG.getAcquire(seg, HEAD_LINE);
        return tail - headSeen < SLOTS;
    }

    /** Sender: offset of the slot the next message goes to. */
    long nextSlot() {
        return (tail & (SLOTS - 1)) * SLOT_STRIDE;
    }

    /** Sender: offset of the eager data area of the next message. */
    long nextData() {
        return DATA + (tail & (SLOTS - 1)) * dataStride;
    }

    /** Sender: index of the next slot (for {@link #refs}). */
    int nextIndex() {
        return (int) (tail & (SLOTS - 1));
    }

    /** Sender: publishes the next slot, whose payload (inline, data or ref) is written. */
    void publish(int tag, int kind, long bytes) {
        long off = nextSlot();
        seg.set(ValueLayout.JAVA_INT, off + TAG, tag);
        seg.set(ValueLayout.JAVA_INT, off + KIND, kind);
        seg.set(ValueLayout.JAVA_LONG, off + BYTES, bytes);
        tail++;
        // release: pairs with arrived()'s getAcquire; the header, the inline payload, the data area and refs[k]
        // written above are visible to the receiver that sees this stamp
        LONG.setRelease(seg, off + STAMP, tail);
    }

    // ------------------------------------------------------------------ receiver

    /** Receiver: true when the next message has arrived. */
    boolean arrived() {
        // acquire: pairs with publish()'s setRelease of the stamp
        return (long) LONG.getAcquire(seg, headSlot() + STAMP) == head + 1;
    }

    /** Receiver: offset of the slot of the next message (valid after {@link #arrived()}). */
    long headSlot() {
        return (head & (SLOTS - 1)) * SLOT_STRIDE;
    }

    /** Receiver: offset of the eager data of the next message. */
    long headData() {
        return DATA + (head & (SLOTS - 1)) * dataStride;
    }

    int headTag() {
        return seg.get(ValueLayout.JAVA_INT, headSlot() + TAG);
    }

    int headKind() {
        return seg.get(ValueLayout.JAVA_INT, headSlot() + KIND);
    }

    long headBytes() {
        return seg.get(ValueLayout.JAVA_LONG, headSlot() + BYTES);
    }

    /** Receiver: the rendezvous request of the next message. */
    Object headRef() {
        return refs[(int) (head & (SLOTS - 1))];
    }

    /** Receiver: the next message has been delivered or stashed; frees its slot for the sender. */
    void consume() {
        int k = (int) (head & (SLOTS - 1));
        if (refs[k] != null) {
            refs[k] = null;
        }
        head++;
        // release: pairs with hasRoom()'s getAcquire; everything this receiver read of the slot happens-before the
        // sender's reuse of it
        LONG.setRelease(seg, HEAD_LINE, head);
    }
}

/*
 * The Channel object's fields, in three groups 128 bytes apart (and from the objects before and after it) (HotSpot lays a superclass's fields out before its
 * subclass's, so the padding classes between them keep the groups on separate cache lines and line pairs): the
 * read-only ones (the segment and its geometry), the sender's (tail, headSeen) and the receiver's (head). Before,
 * the three counters shared one line: the receiver's poll read head from the line the sender had just written tail
 * into, so every message paid a second, serialised line transfer before its stamp could even be read, and one more
 * back when the receiver's consume wrote head (docs/design.md, "Point-to-point", and measurements.md, 2026-11-29).
 */

/** Padding before the read-only fields: the object allocated before this one is the sender's, maybe written hot. */
abstract class ChannelPad0 {
    @SuppressWarnings("unused")
    private long o00, o01, o02, o03, o04, o05, o06, o07, o08, o09, o10, o11, o12, o13, o14, o15;
}

/** Read-only after construction (both sides read them: the receiver at every poll). */
abstract class ChannelFixed extends ChannelPad0 {
    final int source;
    final int dest;
    final MemorySegment seg;
    final long dataStride;
    /** Per slot: the rendezvous sender's request (see Channel's class comment). */
    final Object[] refs = new Object[Channel.SLOTS];
    /** The ring lies in a mapping between processes: its rendezvous slots carry offsets, never {@link #refs}. */
    final boolean remote;

    ChannelFixed(int source, int dest, long dataStride, MemorySegment seg, boolean remote) {
        this.source = source;
        this.dest = dest;
        this.dataStride = dataStride;
        this.seg = seg;
        this.remote = remote;
    }
}

abstract class ChannelPad1 extends ChannelFixed {
    @SuppressWarnings("unused")
    private long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;

    ChannelPad1(int source, int dest, long dataStride, MemorySegment seg, boolean remote) {
        super(source, dest, dataStride, seg, remote);
    }
}

/** The sender's counters: written by the sender only. */
abstract class ChannelSenderSide extends ChannelPad1 {
    /** Messages written. */
    long tail;
    /** The receiver's head as last read (the ring is full when tail − headSeen = SLOTS). */
    long headSeen;

    ChannelSenderSide(int source, int dest, long dataStride, MemorySegment seg, boolean remote) {
        super(source, dest, dataStride, seg, remote);
    }
}

abstract class ChannelPad2 extends ChannelSenderSide {
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;

    ChannelPad2(int source, int dest, long dataStride, MemorySegment seg, boolean remote) {
        super(source, dest, dataStride, seg, remote);
    }
}

/** The receiver's counter: written by the receiver only, followed by padding against the next object. */
abstract class ChannelReceiverSide extends ChannelPad2 {
    /** Messages consumed. */
    long head;
    @SuppressWarnings("unused")
    private long r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11, r12, r13, r14, r15;

    ChannelReceiverSide(int source, int dest, long dataStride, MemorySegment seg, boolean remote) {
        super(source, dest, dataStride, seg, remote);
    }
}
