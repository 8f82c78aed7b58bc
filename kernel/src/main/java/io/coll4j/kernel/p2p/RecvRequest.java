package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** A receive: complete when a message matched it and was copied into {@link #buffer} (or failed to fit). */
public final class RecvRequest extends P2pRequest {
    MemorySegment buffer;
    boolean matched;
    /** The wait of a blocking probe (never posted): its messages say probe. */
    boolean probe;
    /** The transport's receive of a large message from another process in flight (TransportProtocol), or -1. */
    long token = -1;

    RecvRequest(Endpoint ep) {
        super(ep);
    }

    void reset(MemorySegment buffer, long capacity, int source, int tag) {
        this.buffer = buffer;
        this.bytes = capacity;
        this.peer = source;
        this.tag = tag;
        this.done = false;
        this.matched = false;
        this.probe = false;
        this.token = -1;
        this.since = 0;
        this.polls = 0;
        this.next = null;
    }

    /**
     * True when a message from {@code source} with {@code tag} matches this receive. {@code ANY_TAG} matches the
     * users' tags (≥ 0) only: negative tags are the library's own (the neighborhood collectives), never taken by a
     * wildcard, as MPI keeps a collective's messages in another context.
     */
    boolean matches(int source, int tag) {
        return (peer == Endpoint.ANY || peer == source) && (this.tag == tag || (this.tag == Endpoint.ANY && tag >= 0));
    }

    @Override
    boolean complete() {
        return matched && (token < 0 || ep.transportReceived(this));
    }

    @Override
    String describe() {
        return (probe ? "probe" : "recv") + "(source " + (peer == Endpoint.ANY ? "any" : String.valueOf(peer)) + ", tag "
                + (tag == Endpoint.ANY ? "any" : String.valueOf(tag)) + ", " + bytes + " bytes)";
    }

    @Override
    List<Integer> waitsFor() {
        if (peer != Endpoint.ANY) {
            return List.of(peer);
        }
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < ep.size(); r++) {
            if (r != ep.rank) {
                all.add(r);
            }
        }
        return all;
    }
}
