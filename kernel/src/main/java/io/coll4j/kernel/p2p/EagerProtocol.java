package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;

/**
 * Messages above {@link Channel#INLINE_MAX} and up to the crossover ({@link P2pEngine#eagerMax()}) are copied by
 * the sender into its slot's data area of the pair's ring and by the receiver out of it, so a send completes without
 * waiting for its receive [AMPI §5.3: the eager copy through an intermediate buffer; §2.1: copy-in/copy-out through
 * statically allocated shared buffers]. Cost: two copies of s bytes in cache plus one hand-over (a_α + 2·s/b_copy);
 * the second copy is what the rendezvous protocol saves, the hand-over back what it pays.
 */
final class EagerProtocol {
    static final int KIND = 1;

    private EagerProtocol() {
    }

    /** Sender: copies the payload into the next slot's data area (the caller publishes the slot). */
    static void write(Channel ch, MemorySegment src, long bytes) {
        MemorySegment.copy(src, 0, ch.seg, ch.nextData(), bytes);
    }

    /** Receiver: copies the first {@code n} bytes of the arrived message into {@code dst}. */
    static void copyOut(Channel ch, MemorySegment dst, long n) {
        if (n > 0) {
            MemorySegment.copy(ch.seg, ch.headData(), dst, 0, n);
        }
    }

    /** Receiver: keeps the arrived, unmatched message in {@code env}'s pooled buffer (frees the ring slot). */
    static void stash(Channel ch, Envelope env, long bytes) {
        MemorySegment.copy(ch.seg, ch.headData(), env.buffer, 0, bytes);
    }
}
