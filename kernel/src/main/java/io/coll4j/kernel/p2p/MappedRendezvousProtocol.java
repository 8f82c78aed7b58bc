package io.coll4j.kernel.p2p;

import io.coll4j.bindings.copy.Copy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Messages above the crossover between ranks of two processes of a shared mapping ({@link MappingLinks}): the
 * rendezvous of {@link RendezvousProtocol} with offsets in the mapping where the one-JVM ring carries a reference.
 * The slot's inline area holds where the payload lies in the mapping, the offset of the sender's completion line and
 * the generation the receiver writes into it once it has copied the payload [AMPI §5.3.1–§5.3.2: the short message
 * with the buffer's address, the receiver's copy, the message back that completes the send].
 *
 * <p>Where the payload lies: a send buffer in the mapping ({@code rank.allocate} of the team) is read in place — one
 * copy, by the receiver, as in one JVM. Any other buffer (a heap array, the user's own native memory, which the other
 * process cannot address) is first copied by the sender into a block of its region of the mapping, given back when
 * the send completes — two copies, the eager protocol's count without its ring-slot size limit. Cost: one copy
 * (s/b_copy) plus two hand-overs for a mapping buffer, one more copy for any other.
 */
final class MappedRendezvousProtocol {
    static final int KIND = 3;
    /** In the slot's inline area: the payload's offset, the completion line's, and the generation to write there. */
    static final long AT = Channel.INLINE, ACK = Channel.INLINE + 8, GEN = Channel.INLINE + 16;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private MappedRendezvousProtocol() {
    }

    /** Sender: stages the payload if it is not in the mapping and writes the slot's offsets (the caller publishes it). */
    static void write(Channel ch, SendRequest r, P2pMemory memory, Endpoint ep) {
        long at = memory.offsetOf(r.buffer, r.bytes);
        if (at < 0) {
            at = memory.take(r.bytes, false);
            if (at < 0) {
                throw new IllegalStateException("point-to-point: no room in this process's region of the shared mapping"
                        + " to stage a message of " + r.bytes + " bytes to rank " + r.peer + " (a send buffer from"
                        + " rank.allocate is read in place and needs none); Team.builder().sharedMemory(bytes) sizes it");
            }
            MemorySegment.copy(r.buffer, 0, memory.memory(), at, r.bytes);
            r.staged = at;
        }
        r.ackAt = ep.ackLine();
        r.ackGen = ep.nextGeneration();
        long slot = ch.nextSlot();
        ch.seg.set(ValueLayout.JAVA_LONG, slot + AT, at);
        ch.seg.set(ValueLayout.JAVA_LONG, slot + ACK, r.ackAt);
        ch.seg.set(ValueLayout.JAVA_LONG, slot + GEN, r.ackGen);
    }

    /**
     * Receiver: copies the first {@code n} bytes of the payload at {@code at} of the mapping into {@code dst}, then
     * completes the sender's send by writing {@code gen} into its line at {@code ack}.
     */
    static void copyOut(MemorySegment mapping, long at, long ack, long gen, MemorySegment dst, long n, Copy copy) {
        if (n > 0) {
            copy.adaptive(dst, 0, mapping, at, n, 2 * n);
        }
        // release: pairs with SendRequest.complete()'s getAcquire in the sender's process; this copy's reads of the
        // payload happen-before the sender reuses its buffer (or gives back the staging block)
        LONG.setRelease(mapping, ack, gen);
    }

    /** Sender: true once the receiver wrote {@code gen} into the line at {@code ack}. */
    static boolean received(MemorySegment mapping, long ack, long gen) {
        // acquire: pairs with copyOut()'s setRelease
        return (long) LONG.getAcquire(mapping, ack) == gen;
    }
}
