package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.span.MessageTransport;

/**
 * The links of a team whose processes share no mapping (an MPI team across hosts, or with
 * {@code -Dcoll4j.mpi.sharedMapping=false}): the rings between this process's ranks in the local team's arena, as
 * {@link MappingLinks} has them, and a {@link MessageTransport} (MPI's) for every rank of another process, which the
 * {@link Endpoint} sends to and polls beside its rings, so one posted and one unexpected queue see both kinds of
 * sources (docs/design.md, "Point-to-point over MPI"). Ranks are the team's global numbers: process × width + local id.
 */
final class TransportLinks extends Links {
    private final MessageTransport transport;

    private TransportLinks(TeamContext context, MessageTransport transport, int processes, int process, long eagerMax) {
        super(context, processes, process, eagerMax);
        this.transport = transport;
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

    /** Only for pairs of this process: the endpoint sends to other processes' ranks through {@link #transport()}. */
    @Override
    Channel open(int source, int dest) {
        return openLocal(source, dest);
    }

    @Override
    Channel incoming(int source, int dest) {
        return localOf(source) < 0 ? null : incomingLocal(source, dest);
    }

    @Override
    MessageTransport transport() {
        return transport;
    }
}
