package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.span.MessageTransport;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The links of a team whose processes share no mapping (an MPI team across hosts, or with
 * {@code -Dcoll4j.mpi.sharedMapping=false}): the rings between this process's ranks in the local team's arena, as
 * {@link MappingLinks} has them, and a {@link MessageTransport} (MPI's) for every rank of another process, which the
 * {@link Endpoint} sends to and polls beside its rings, so one posted and one unexpected queue see both kinds of
 * sources (docs/design.md, "Point-to-point over MPI"). Ranks are the team's global numbers: process × width + local id.
 */
final class TransportLinks implements Links {
    private final TeamContext context;
    private final MessageTransport transport;
    private final int width;
    private final int size;
    private final int first;
    private final long eagerMax;
    private final AtomicReferenceArray<Channel> local;
    private final AtomicReferenceArray<Endpoint> endpoints;

    private TransportLinks(TeamContext context, MessageTransport transport, int processes, int process, long eagerMax) {
        this.context = context;
        this.transport = transport;
        this.width = context.size();
        this.size = width * processes;
        this.first = process * width;
        this.eagerMax = eagerMax;
        this.local = new AtomicReferenceArray<>(width * width);
        this.endpoints = new AtomicReferenceArray<>(width);
    }

    /** The crossover every process of the job must use (the transport's messages up to it carry their payload). */
    static long eagerMaxProperty() {
        long e = Long.getLong("coll4j.p2p.eagerMax", MachineModel.P2P_EAGER_MAX_BYTES);
        if (e < Channel.INLINE_MAX) {
            throw new IllegalArgumentException("coll4j.p2p.eagerMax must be >= " + Channel.INLINE_MAX + ", got " + e);
        }
        return e;
    }

    /** The links of the local team {@code context}, made at first use. */
    static TransportLinks of(TeamContext context, MessageTransport transport, int processes, int process, long eagerMax) {
        return context.attachment(TransportLinks.class, () -> new TransportLinks(context, transport, processes, process, eagerMax));
    }

    /** The endpoint of local rank {@code localId}, created by that rank's thread at its first call (as P2pEngine's). */
    Endpoint endpoint(int localId) {
        Endpoint e = endpoints.get(localId);
        if (e == null) {
            e = new Endpoint(this, first + localId, localId);
            if (!endpoints.compareAndSet(localId, null, e)) {
                e = endpoints.get(localId);
            }
        }
        return e;
    }

    /** Only for pairs of this process: the endpoint sends to other processes' ranks through {@link #transport()}. */
    @Override
    public Channel open(int source, int dest) {
        int i = (source - first) * width + localOf(dest);
        Channel ch = local.get(i);
        if (ch == null) {
            ch = new Channel(context.arena().arena(), source, dest, eagerMax);
            // volatile: the receiver's incoming() read sees the channel and its zeroed ring
            if (!local.compareAndSet(i, null, ch)) {
                ch = local.get(i);
            }
        }
        return ch;
    }

    @Override
    public Channel incoming(int source, int dest) {
        int ls = localOf(source);
        return ls < 0 ? null : local.get(ls * width + (dest - first));
    }

    @Override
    public long eagerMax() {
        return eagerMax;
    }

    @Override
    public TeamContext context() {
        return context;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int localOf(int rank) {
        int l = rank - first;
        return l >= 0 && l < width ? l : -1;
    }

    @Override
    public P2pMemory memory() {
        return null;
    }

    @Override
    public MessageTransport transport() {
        return transport;
    }
}
