package io.coll4j;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * A directed graph over the ranks of a team for the neighborhood collectives ({@code MPI_Dist_graph_create_adjacent}
 * without reordering or weights): rank r sends block i to {@code destinations(r)[i]} and receives block i from
 * {@code sources(r)[i]}. An edge may repeat (two blocks between the same pair) and a rank may be its own neighbour.
 * Messages along repeated edges between one pair are matched in list order, as MPI matches them: the k-th occurrence
 * of d in r's destinations is the k-th occurrence of r in d's sources. Immutable; one object serves every rank.
 */
public final class GraphTopology implements NeighborTopology {
    private final int[][] sources;
    private final int[][] destinations;

    private GraphTopology(int[][] sources, int[][] destinations) {
        this.sources = sources;
        this.destinations = destinations;
    }

    /**
     * The graph of {@code destinations} ({@code destinations[r]}: where rank r sends, in block order; its length is
     * the number of ranks). Each rank's sources are derived: the ranks that name it, in ascending rank order, a rank
     * that names it twice twice in a row.
     *
     * @throws IllegalArgumentException for a null list or an entry out of range
     */
    public static GraphTopology of(int[][] destinations) {
        int p = ranks(destinations, "destinations");
        int[] indegree = new int[p];
        for (int r = 0; r < p; r++) {
            for (int d : entries(destinations, r, p, "destinations")) {
                indegree[d]++;
            }
        }
        int[][] sources = new int[p][];
        for (int d = 0; d < p; d++) {
            sources[d] = new int[indegree[d]];
        }
        int[] filled = new int[p];
        for (int r = 0; r < p; r++) {
            for (int d : destinations[r]) {
                sources[d][filled[d]++] = r;
            }
        }
        return new GraphTopology(sources, deepCopy(destinations));
    }

    /**
     * The graph whose rank r receives from {@code sources[r]} and sends to {@code destinations[r]}, both in the
     * caller's block order. The two lists must describe the same edges: r names d as often in its destinations as d
     * names r in its sources.
     *
     * @throws IllegalArgumentException for lists of different lengths, an entry out of range, or an edge listed on
     *                                  one side only (naming it)
     */
    public static GraphTopology adjacent(int[][] sources, int[][] destinations) {
        int p = ranks(destinations, "destinations");
        if (ranks(sources, "sources") != p) {
            throw new IllegalArgumentException("sources lists " + sources.length + " ranks, destinations " + p);
        }
        Map<Long, Integer> edges = new HashMap<>();
        for (int r = 0; r < p; r++) {
            for (int d : entries(destinations, r, p, "destinations")) {
                edges.merge((long) r * p + d, 1, Integer::sum);
            }
        }
        for (int d = 0; d < p; d++) {
            for (int s : entries(sources, d, p, "sources")) {
                edges.merge((long) s * p + d, -1, Integer::sum);
            }
        }
        for (Map.Entry<Long, Integer> e : edges.entrySet()) {
            if (e.getValue() != 0) {
                long s = e.getKey() / p;
                long d = e.getKey() % p;
                throw new IllegalArgumentException("edge " + s + " -> " + d + " is listed " + (e.getValue() > 0
                        ? e.getValue() + " more time(s) in destinations[" + s + "] than in sources[" + d + "]"
                        : -e.getValue() + " more time(s) in sources[" + d + "] than in destinations[" + s + "]"));
            }
        }
        return new GraphTopology(deepCopy(sources), deepCopy(destinations));
    }

    private static int ranks(int[][] lists, String name) {
        if (lists == null || lists.length == 0) {
            throw new IllegalArgumentException(name + " must list at least one rank");
        }
        return lists.length;
    }

    private static int[] entries(int[][] lists, int r, int p, String name) {
        int[] a = lists[r];
        if (a == null) {
            throw new IllegalArgumentException(name + "[" + r + "] must not be null (an empty array: no edges)");
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] < 0 || a[i] >= p) {
                throw new IllegalArgumentException(name + "[" + r + "][" + i + "] = " + a[i] + " is out of range: the graph"
                        + " has ranks 0.." + (p - 1));
            }
        }
        return a;
    }

    private static int[][] deepCopy(int[][] a) {
        int[][] c = new int[a.length][];
        for (int i = 0; i < a.length; i++) {
            c[i] = a[i].clone();
        }
        return c;
    }

    @Override
    public int size() {
        return destinations.length;
    }

    @Override
    public int[] sources(int rank) {
        return sources[check(rank)].clone();
    }

    @Override
    public int[] destinations(int rank) {
        return destinations[check(rank)].clone();
    }

    private int check(int rank) {
        if (rank < 0 || rank >= destinations.length) {
            throw new IllegalArgumentException("rank " + rank + " is out of range: the graph has ranks 0.."
                    + (destinations.length - 1));
        }
        return rank;
    }

    @Override
    public String toString() {
        return "GraphTopology" + Arrays.deepToString(destinations);
    }
}
