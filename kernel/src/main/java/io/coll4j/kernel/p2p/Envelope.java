package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;

/**
 * An arrived message no receive had matched yet (an entry of the unexpected queue [AMPI §5.2]). Pooled per rank,
 * with a buffer of the crossover's size for an eager payload allocated once, so a steady stream of unexpected
 * messages allocates nothing; a rendezvous message keeps only the sender's request. The pool keeps
 * {@code Endpoint.POOL_KEEP} buffers; a deeper backlog's envelopes are dropped once received.
 */
final class Envelope {
    int source;
    int tag;
    int kind;
    long bytes;
    /** Eager and inline payloads: the pooled copy (allocated at the first eager stash of this envelope). */
    MemorySegment buffer;
    /** Rendezvous: the sender's request, whose buffer the matching receive copies from. */
    SendRequest rendezvous;
    /** Rendezvous from another process: the payload's and the completion line's offsets in the mapping, and the generation. */
    long at, ack, gen;
    /** Its buffer is not the team arena's (the pool was full): the envelope is dropped, not pooled, once received. */
    boolean overflow;
    /** Next in the unexpected queue or the free list. */
    Envelope next;
}
