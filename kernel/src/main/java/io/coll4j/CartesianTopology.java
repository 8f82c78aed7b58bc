package io.coll4j;

import java.util.Arrays;

/**
 * A Cartesian process grid over the ranks of a team ({@code MPI_Cart_create} without reordering): rank r sits at the
 * row-major coordinates of r in a grid of {@code dims}, each dimension periodic or not. It names each rank's neighbours
 * for the neighborhood collectives ({@link Neighborhood}, {@link PointToPoint#neighborAllgather}) in
 * MPI's order: for every dimension d, the neighbour at −1 then the one at +1 ({@code MPI_Cart_shift(d, 1)}'s source and
 * destination); off a non-periodic edge the neighbour is {@link PointToPoint#PROC_NULL}. Immutable; one object may serve
 * every rank of the team.
 */
public final class CartesianTopology implements NeighborTopology {
    private final int[] dims;
    private final boolean[] periodic;
    private final int size;

    private CartesianTopology(int[] dims, boolean[] periodic) {
        this.dims = dims;
        this.periodic = periodic;
        int n = 1;
        for (int d : dims) {
            n = Math.multiplyExact(n, d);
        }
        this.size = n;
    }

    /**
     * A grid of {@code dims} (each ≥ 1; their product is the number of ranks it covers), periodic where
     * {@code periodic[d]}.
     *
     * @throws IllegalArgumentException for no dimension, a dimension below 1, or arrays of different lengths
     */
    public static CartesianTopology of(int[] dims, boolean[] periodic) {
        if (dims == null || periodic == null || dims.length == 0 || dims.length != periodic.length) {
            throw new IllegalArgumentException("dims and periodic must be non-empty and of the same length");
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 1) {
                throw new IllegalArgumentException("dims[" + i + "] must be >= 1, got " + dims[i]);
            }
        }
        return new CartesianTopology(dims.clone(), periodic.clone());
    }

    /** The number of ranks the grid covers (the product of its dimensions). */
    @Override
    public int size() {
        return size;
    }

    /** The number of dimensions. */
    public int ndims() {
        return dims.length;
    }

    /** The number of neighbours of every rank: 2 × ndims (PROC_NULL included). */
    public int neighborCount() {
        return 2 * dims.length;
    }

    /** The coordinates of {@code rank}, row-major ({@code MPI_Cart_coords}). */
    public int[] coords(int rank) {
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is out of range: the grid has ranks 0.." + (size - 1));
        }
        int[] c = new int[dims.length];
        for (int d = dims.length - 1; d >= 0; d--) {
            c[d] = rank % dims[d];
            rank /= dims[d];
        }
        return c;
    }

    /** The rank at {@code coords}, wrapped in periodic dimensions; PROC_NULL off a non-periodic edge. */
    public int rank(int[] coords) {
        if (coords == null || coords.length != dims.length) {
            throw new IllegalArgumentException("coords must have " + dims.length + " entries");
        }
        int r = 0;
        for (int d = 0; d < dims.length; d++) {
            int c = coords[d];
            if (c < 0 || c >= dims[d]) {
                if (!periodic[d]) {
                    return PointToPoint.PROC_NULL;
                }
                c = Math.floorMod(c, dims[d]);
            }
            r = r * dims[d] + c;
        }
        return r;
    }

    /**
     * The neighbours of {@code rank} in MPI's order: index 2d is the neighbour at −1 in dimension d, 2d + 1 the one at
     * +1 (PROC_NULL off a non-periodic edge).
     */
    public int[] neighbors(int rank) {
        int[] c = coords(rank);
        int[] out = new int[2 * dims.length];
        for (int d = 0; d < dims.length; d++) {
            int keep = c[d];
            c[d] = keep - 1;
            out[2 * d] = rank(c);
            c[d] = keep + 1;
            out[2 * d + 1] = rank(c);
            c[d] = keep;
        }
        return out;
    }

    /** {@link #neighbors}: a grid receives from the neighbours it sends to. */
    @Override
    public int[] sources(int rank) {
        return neighbors(rank);
    }

    /** {@link #neighbors}. */
    @Override
    public int[] destinations(int rank) {
        return neighbors(rank);
    }

    @Override
    public String toString() {
        return "CartesianTopology" + Arrays.toString(dims) + " periodic " + Arrays.toString(periodic);
    }
}
