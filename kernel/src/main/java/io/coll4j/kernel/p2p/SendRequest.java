package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * A send: complete when its message is in the ring (inline and eager protocols) or when the receiver has copied it
 * out of {@link #buffer} (rendezvous), which the receiver's thread signals with {@link #received()}.
 */
public final class SendRequest extends P2pRequest {
    private static final VarHandle RECEIVED;

    static {
        try {
            RECEIVED = MethodHandles.lookup().findVarHandle(SendRequest.class, "receivedCount", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    MemorySegment buffer;
    int kind;
    /** The message is in the ring (its slot published). */
    boolean transmitted;
    /** Rendezvous messages of this (reused) request received so far; the receiver's {@link #received} adds one. */
    @SuppressWarnings("unused")
    private long receivedCount;
    /** The receivedCount this message completes at. */
    private long receivedTarget;
    /**
     * A rendezvous to another process ({@link MappedRendezvousProtocol}): the completion line's offset in the mapping
     * (-1: none held), the generation the receiver writes there, and the staging block's offset (-1: none).
     */
    long ackAt = -1, ackGen, staged = -1;
    /** A send to another process through the transport (TransportProtocol): its token while in flight, else -1. */
    long token = -1;

    SendRequest(Endpoint ep) {
        super(ep);
    }

    void reset(MemorySegment buffer, long bytes, int dest, int tag) {
        this.buffer = buffer;
        this.bytes = bytes;
        this.peer = dest;
        this.tag = tag;
        this.done = false;
        this.transmitted = false;
        this.since = 0;
        this.polls = 0;
        this.next = null;
        this.statusSource = dest;
        this.statusTag = tag;
        this.statusBytes = bytes;
        this.ackAt = -1;
        this.staged = -1;
        this.token = -1;
    }

    /** Sender, before publishing a rendezvous slot: the receive that copies it completes this message. */
    void expectReceive() {
        receivedTarget++;
    }

    /** Receiver's thread: done reading {@link #buffer}. */
    void received() {
        // release: pairs with complete()'s getAcquire; the receiver's reads of the send buffer happen-before the
        // sender's return from the send (and its next writes to the buffer)
        RECEIVED.getAndAddRelease(this, 1L);
    }

    @Override
    boolean complete() {
        if (!transmitted) {
            return false;
        }
        if (kind == TransportProtocol.KIND) {
            return token < 0 || ep.transportSent(this);
        }
        if (kind == MappedRendezvousProtocol.KIND) {
            if (ackAt < 0) {
                return true;                    // completed before: the line and the block are given back
            }
            return ep.received(this);
        }
        if (kind != RendezvousProtocol.KIND) {
            return true;
        }
        // acquire: pairs with received()'s release
        return (long) RECEIVED.getAcquire(this) - receivedTarget >= 0;
    }

    @Override
    String describe() {
        return "send(dest " + peer + ", tag " + tag + ", " + bytes + " bytes)";
    }

    @Override
    List<Integer> waitsFor() {
        return List.of(peer);
    }
}
