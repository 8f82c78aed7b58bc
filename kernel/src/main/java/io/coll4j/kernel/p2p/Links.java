package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.span.MessageTransport;

/**
 * Where an {@link Endpoint}'s rings come from: {@link P2pEngine} on a team of one process (every ring in the team's
 * arena), {@link MappingLinks} on a team that spans the processes of a shared mapping (the rings between this
 * process's ranks in the arena, those to and from the other processes' ranks in the mapping). Ranks are the team's
 * (global) numbers; {@link TransportLinks} on a team whose processes share no mapping (MPI's messages to the other
 * processes' ranks). Ranks are the team's (global) numbers; the endpoint's matching is the same for both, so a receive from ANY_SOURCE sees every ring.
 */
interface Links {
    /** The ring from {@code source} to {@code dest}, created by the sender (its own thread) if need be. */
    Channel open(int source, int dest);

    /** The ring from {@code source} to {@code dest}, or null while the sender has not created it. */
    Channel incoming(int source, int dest);

    long eagerMax();

    /** The local team (this process's ranks). */
    TeamContext context();

    /** Ranks of the team (of every process). */
    int size();

    /** The local id of team rank {@code rank}, or -1 when it belongs to another process. */
    int localOf(int rank);

    /** The mapping between the processes, or null on a team of one process. */
    P2pMemory memory();

    /** The transport to the ranks of other processes when they share no mapping ({@link TransportLinks}), or null. */
    default MessageTransport transport() {
        return null;
    }
}
