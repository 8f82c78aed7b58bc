package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.span.MessageTransport;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Where an {@link Endpoint}'s rings come from: {@link P2pEngine} on a team of one process (every ring in the team's
 * arena), {@link MappingLinks} on a team that spans the processes of a shared mapping (the rings to and from the other
 * processes' ranks in the mapping), {@link TransportLinks} on a team whose processes share no mapping (MPI's messages
 * to the other processes' ranks). Ranks are the team's (global) numbers, process × width + local id; the rings between
 * this process's ranks are the same in all three (here, in the local team's arena), and so is the endpoint's matching,
 * so a receive from ANY_SOURCE sees every source.
 */
abstract class Links {
    final TeamContext context;
    /** Ranks per process. */
    final int width;
    /** Ranks of the team (of every process). */
    final int size;
    /** The team number of this process's local rank 0. */
    final int first;
    final long eagerMax;
    /** The rings between this process's ranks, source-major by local id. */
    private final AtomicReferenceArray<Channel> local;
    /** Each created by its rank's thread at its first call (see {@link #endpoint}). */
    private final AtomicReferenceArray<Endpoint> endpoints;

    Links(TeamContext context, int processes, int process, long eagerMax) {
        if (eagerMax < Channel.INLINE_MAX) {
            throw new IllegalArgumentException("coll4j.p2p.eagerMax must be >= " + Channel.INLINE_MAX + ", got " + eagerMax);
        }
        this.context = context;
        this.width = context.size();
        this.size = width * processes;
        this.first = process * width;
        this.eagerMax = eagerMax;
        this.local = new AtomicReferenceArray<>(width * width);
        this.endpoints = new AtomicReferenceArray<>(width);
    }

    /** The ring from {@code source} to {@code dest}, created by the sender (its own thread) if need be. */
    abstract Channel open(int source, int dest);

    /** The ring from {@code source} to {@code dest}, or null while the sender has not created it. */
    abstract Channel incoming(int source, int dest);

    /** The ring between two ranks of this process, in the local team's arena, created by the sender if need be. */
    final Channel openLocal(int source, int dest) {
        int i = localOf(source) * width + localOf(dest);
        Channel ch = local.get(i);
        if (ch == null) {
            ch = new Channel(context.arena().arena(), source, dest, eagerMax);
            // volatile: the receiver's incomingLocal() read sees the channel and its zeroed ring
            if (!local.compareAndSet(i, null, ch)) {
                ch = local.get(i);
            }
        }
        return ch;
    }

    /** The ring between two ranks of this process, or null while nothing was ever sent on it. */
    final Channel incomingLocal(int source, int dest) {
        return local.get(localOf(source) * width + localOf(dest));
    }

    /**
     * Local rank {@code localId}'s endpoint, created at the first call: by that rank's own thread ({@code Rank.p2p()}
     * checks the caller), so the endpoint, its requests and queues, which that thread writes at every message, sit in
     * its own allocation buffer and share no cache line with another rank's (created together by one thread they were
     * neighbours on the heap).
     */
    public final Endpoint endpoint(int localId) {
        Endpoint e = endpoints.get(localId);
        if (e == null) {
            e = new Endpoint(this, first + localId, localId);
            if (!endpoints.compareAndSet(localId, null, e)) {
                e = endpoints.get(localId);
            }
        }
        return e;
    }

    /** The largest message sent eagerly (the eager/rendezvous crossover) in bytes. */
    public final long eagerMax() {
        return eagerMax;
    }

    /** The local team (this process's ranks). */
    public final TeamContext context() {
        return context;
    }

    /** Ranks of the team (of every process). */
    public final int size() {
        return size;
    }

    /** The local id of team rank {@code rank}, or -1 when it belongs to another process. */
    public final int localOf(int rank) {
        int l = rank - first;
        return l >= 0 && l < width ? l : -1;
    }

    /** The mapping between the processes, or null on a team of one process. */
    P2pMemory memory() {
        return null;
    }

    /** The transport to the ranks of other processes when they share no mapping ({@link TransportLinks}), or null. */
    MessageTransport transport() {
        return null;
    }
}
