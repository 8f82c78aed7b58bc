package io.coll4j;

/**
 * Who talks to whom in the neighborhood collectives ({@link Neighborhood}): for every rank of a team, the ordered
 * list of ranks it receives from ({@link #sources}, MPI's in-edges) and the ordered list it sends to
 * ({@link #destinations}, the out-edges). Block i of a receive buffer comes from source i, block i of an alltoall's
 * send buffer goes to destination i. Two kinds, as in MPI-3: a {@link CartesianTopology} (the grid neighbours, the
 * same list both ways, {@link PointToPoint#PROC_NULL} off a non-periodic edge) and a {@link GraphTopology} (any
 * directed graph, edges repeated as often as wanted). Immutable; one object serves every rank of the team.
 */
public sealed interface NeighborTopology permits CartesianTopology, GraphTopology {

    /** The number of ranks the topology covers: the size of the team it is used on. */
    int size();

    /** The ranks {@code rank} receives from, in block order (a fresh array; may hold {@link PointToPoint#PROC_NULL}). */
    int[] sources(int rank);

    /** The ranks {@code rank} sends to, in block order (a fresh array; may hold {@link PointToPoint#PROC_NULL}). */
    int[] destinations(int rank);
}
