package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.span.MessageTransport;

/**
 * The point-to-point engine of one team (docs/design.md, "Point-to-point"): one {@link Endpoint} per rank, and the
 * rings between ranks ({@link Channel}), created by a sender at its first message to a receiver. Created at the
 * team's first point-to-point call (a {@link TeamContext#attachment}); a sub-team has its own, so its messages use its
 * own rank numbers and never match the parent's.
 *
 * <p>Protocols by size s: {@link InlineProtocol} (s ≤ 40 B, in the flag's line), {@link EagerProtocol} (s ≤
 * {@link #eagerMax()}, through the ring's data area), {@link RendezvousProtocol} (larger: one copy by the receiver
 * straight from the sender's buffer). The crossover is {@link MachineModel#P2P_EAGER_MAX_BYTES} unless
 * {@code -Dcoll4j.p2p.eagerMax=N} sets another (tests reach every protocol with small messages).
 */
public final class P2pEngine extends Links {
    public P2pEngine(TeamContext context) {
        this(context, Long.getLong("coll4j.p2p.eagerMax", MachineModel.P2P_EAGER_MAX_BYTES));
    }

    P2pEngine(TeamContext context, long eagerMax) {
        super(context, 1, 0, eagerMax);
    }

    /**
     * The endpoint of local rank {@code localId} of the local team {@code context} of a team spanning the
     * {@code processes} processes of a shared mapping ({@link MappingLinks}), created by that rank's thread.
     */
    public static Endpoint acrossProcesses(TeamContext context, P2pMemory memory, int processes, int localId) {
        return MappingLinks.of(context, memory, processes).endpoint(localId);
    }

    /**
     * The endpoint of local rank {@code localId} of the local team {@code context} of a team spanning
     * {@code processes} processes that share no mapping, process {@code process} of them, the other processes' ranks
     * reached through {@code transport} ({@link TransportLinks}), created by that rank's thread.
     */
    public static Endpoint overTransport(TeamContext context, MessageTransport transport, int processes, int process,
                                         long eagerMax, int localId) {
        return TransportLinks.of(context, transport, processes, process, eagerMax).endpoint(localId);
    }

    /** The crossover of this process ({@code -Dcoll4j.p2p.eagerMax}, else the model's), checked. */
    public static long eagerMaxOfProcess() {
        return TransportLinks.eagerMaxProperty();
    }

    /** The team's engine, created at its first use. */
    public static P2pEngine of(TeamContext context) {
        return context.attachment(P2pEngine.class, () -> new P2pEngine(context));
    }

    /** The ring from {@code source} to {@code dest}, created (by the sender) if need be: every rank is local. */
    @Override
    Channel open(int source, int dest) {
        return openLocal(source, dest);
    }

    /** The ring from {@code source} to {@code dest}, or null while nothing was ever sent on it. */
    @Override
    Channel incoming(int source, int dest) {
        return incomingLocal(source, dest);
    }
}
