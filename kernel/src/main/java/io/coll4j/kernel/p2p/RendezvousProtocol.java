package io.coll4j.kernel.p2p;

import io.coll4j.bindings.copy.Copy;

import java.lang.foreign.MemorySegment;

/**
 * Messages above the crossover: the slot carries only the size and a reference to the sender's request; the
 * receiver, once a receive matches, copies straight from the sender's buffer into its own — one copy — and then
 * completes the sender's request [AMPI §5.3.1–§5.3.2: the short message with the send buffer's address, the
 * receiver's direct user-space copy, the message back that completes the send request]. The copy streams (NT
 * stores) iff the working set, send and receive buffer, exceeds the cache C [YHCCL §4.2, Alg. 1]: a receive buffer
 * is treated as not re-read soon, as the collectives' copy-outs are. Cost: two hand-overs (the envelope there, the
 * completion back: 2·a_α) plus one copy of s bytes (s/b_copy, or DRAM 2s with NT stores beyond the cache), against
 * the eager protocol's one hand-over and two copies; an unmatched rendezvous message keeps the sender waiting (its
 * send completes when a receive matches, as MPI allows for a standard-mode send).
 */
final class RendezvousProtocol {
    static final int KIND = 2;

    private RendezvousProtocol() {
    }

    /** Sender: puts the request (its buffer) in the next slot's reference (the caller publishes the slot). */
    static void write(Channel ch, SendRequest req) {
        ch.refs[ch.nextIndex()] = req;
    }

    /** Receiver: copies the first {@code n} bytes from the sender's buffer into {@code dst}, then releases the sender. */
    static void copyOut(SendRequest sender, MemorySegment dst, long n, Copy copy) {
        if (n > 0) {
            copy.adaptive(dst, 0, sender.buffer, 0, n, 2 * n);
        }
        sender.received();     // last touch of the sender's request and buffer
    }
}
