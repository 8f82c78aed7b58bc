package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;

/**
 * Messages of at most {@link Channel#INLINE_MAX} (40) bytes travel in the flag's own cache line: the sender writes
 * payload, header and stamp into one line, the receiver's acquire of the stamp brings the payload with it. Cost:
 * one line transfer (a_α) plus two copies of at most 40 bytes — the eager protocol of [AMPI §5.3] without the
 * separate buffer line, as the collectives' inline control payloads (docs/design.md, "Control block").
 */
final class InlineProtocol {
    static final int KIND = 0;

    private InlineProtocol() {
    }

    /** Sender: copies the payload into the next slot's line (the caller publishes the slot). */
    static void write(Channel ch, MemorySegment src, long bytes) {
        if (bytes > 0) {
            MemorySegment.copy(src, 0, ch.seg, ch.nextSlot() + Channel.INLINE, bytes);
        }
    }

    /** Receiver: copies the first {@code n} bytes of the arrived message into {@code dst}. */
    static void copyOut(Channel ch, MemorySegment dst, long n) {
        if (n > 0) {
            MemorySegment.copy(ch.seg, ch.headSlot() + Channel.INLINE, dst, 0, n);
        }
    }

    /** Receiver: keeps the arrived, unmatched message in {@code env}'s pooled buffer. */
    static void stash(Channel ch, Envelope env, long bytes) {
        if (bytes > 0) {
            MemorySegment.copy(ch.seg, ch.headSlot() + Channel.INLINE, env.buffer, 0, bytes);
        }
    }
}
