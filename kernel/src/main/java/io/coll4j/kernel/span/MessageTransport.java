package io.coll4j.kernel.span;

import java.lang.foreign.MemorySegment;

/**
 * Point-to-point messages between ranks of processes that share no mapping (an MPI team across hosts, or with
 * {@code -Dcoll4j.mpi.sharedMapping=false}): what a {@link ProcessSpan} offers the kernel's point-to-point engine
 * ({@code kernel.p2p.TransportLinks}), which matches what arrives here in the same queues as the messages of its own
 * process's ranks (docs/design.md, "Point-to-point over MPI"). Ranks are the team's global numbers (process × width +
 * local id). Each local rank's thread calls the methods for its own messages only; the transport keeps the messages
 * from one rank to another in the order sent ({@link #poll} returns them in that order) and never delivers one twice.
 */
public interface MessageTransport {
    /** A message that arrived for a local rank ({@link #poll}); one per local rank, reused. */
    final class Arrival {
        public int source;
        public int tag;
        public long bytes;
        /** A message up to the crossover: its payload, valid until the next poll for this local rank; else null. */
        public MemorySegment payload;
        /** A larger message: its handle for {@link #receive} (the payload stays with the transport until then); else -1. */
        public long handle = -1;
    }

    /**
     * Starts sending {@code bytes} of {@code buf} from global rank {@code source} to {@code dest} with {@code tag};
     * returns a token for {@link #sent}, or -1 when the send is already complete (the buffer may be reused).
     */
    long send(int source, int dest, int tag, MemorySegment buf, long bytes);

    /** True once the send of {@code token} is complete (its buffer may be reused); the token is then spent. */
    boolean sent(long token);

    /**
     * The next message that arrived for local rank {@code localRank}, in {@code into}; false when none has. Messages
     * from one source come in the order sent.
     */
    boolean poll(int localRank, Arrival into);

    /**
     * Receives the larger message {@code handle} of {@code bytes} for local rank {@code localRank} into {@code buf}, of
     * which the first {@code n} bytes are taken (n &lt; bytes: truncated, the rest dropped); returns a token for
     * {@link #received}, or -1 when the payload is already in {@code buf}.
     */
    long receive(int localRank, long handle, long bytes, MemorySegment buf, long n);

    /** True once the receive of {@code token} is complete (the payload in its buffer); the token is then spent. */
    boolean received(long token);
}
