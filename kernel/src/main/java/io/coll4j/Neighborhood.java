package io.coll4j;

import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.p2p.Endpoint;
import io.coll4j.kernel.p2p.NeighborRequest;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * The MPI-3 neighborhood collectives of one rank on a {@link NeighborTopology}: {@link #allgather},
 * {@link #alltoall}, {@link #allgatherv}, {@link #alltoallv}, each blocking and non-blocking ({@code i…}, a
 * {@link Request}). Obtained with {@code rank.p2p().neighborhood(topo)} on every rank of the team, with the same
 * topology; every rank calls the same collectives in the same order, as in MPI.
 *
 * <p>Block i of a receive buffer comes from {@code topo.sources(me)[i]}; an alltoall's block i goes to
 * {@code topo.destinations(me)[i]}. A {@link PointToPoint#PROC_NULL} neighbour (off a non-periodic grid edge) sends
 * and receives nothing: its receive block is left as it was. Each collective is one receive per in-edge and one send
 * per out-edge of {@link PointToPoint}'s messages, posted at once (receives first) and completed together, so it
 * costs what those messages cost (docs/design.md, "Point-to-point"): at most one copy per block, by the receiver
 * from the sender's buffer above the eager limit. The library's own tags keep its messages apart from the user's:
 * a grid tags each block by its direction (so a rank that is both neighbours of a dimension, on a periodic
 * dimension of 2, tells them apart); a graph's repeated edges between one pair are matched in list order.
 *
 * <p>Counts of the v-forms are in elements of the {@link DType}, displacements in elements from the buffer's start,
 * one entry per in-edge (receive side) or out-edge (send side), PROC_NULL entries included. Bad arguments are an
 * {@link IllegalArgumentException} before anything is sent; a block that arrives with another size than its receive
 * expects is this rank's {@link CollectiveMismatchException} (shorter) or {@link MessageTruncatedException} (longer).
 */
public final class Neighborhood {
    /** Grid blocks are tagged by direction: below every user tag and ANY_TAG, so no user receive matches them. */
    private static final int GRID_TAG = -1000;
    /** Every graph block: matched in order per pair (non-overtaking), as MPI matches repeated edges. */
    private static final int GRAPH_TAG = -999;

    private final PointToPoint p2p;
    private final Endpoint ep;
    private final int id;
    private final NeighborTopology topo;
    private final int[] sources;
    private final int[] destinations;
    private final boolean grid;

    Neighborhood(PointToPoint p2p, Endpoint ep, int id, int teamSize, NeighborTopology topo) {
        if (topo == null) {
            throw new IllegalArgumentException("topo must not be null");
        }
        if (topo.size() != teamSize) {
            throw new IllegalArgumentException("the topology covers " + topo.size() + " ranks, the team has " + teamSize);
        }
        this.p2p = p2p;
        this.ep = ep;
        this.id = id;
        this.topo = topo;
        this.sources = topo.sources(id);
        this.destinations = topo.destinations(id);
        this.grid = topo instanceof CartesianTopology;
    }

    public NeighborTopology topology() {
        return topo;
    }

    /** The number of blocks this rank receives (its in-edges, PROC_NULL included). */
    public int indegree() {
        return sources.length;
    }

    /** The number of blocks this rank sends (its out-edges, PROC_NULL included). */
    public int outdegree() {
        return destinations.length;
    }

    // ---------------------------------------------------------------- allgather

    /**
     * {@code MPI_Neighbor_allgather}: the whole of {@code send} to every destination; block i of {@code recv}
     * ({@code send.byteSize()} bytes at {@code i × send.byteSize()}) from source i.
     */
    public void allgather(MemorySegment send, MemorySegment recv) {
        iallgather(send, recv).await();
    }

    /** Non-blocking {@link #allgather}: neither buffer may be touched until the request is complete. */
    public Request iallgather(MemorySegment send, MemorySegment recv) {
        p2p.checkUsable();
        Arguments.readable("send", send, 0, id);
        long block = send.byteSize();
        long[] at = uniform(sources.length, block);
        return exchange("neighbor allgather", send, blocks(destinations.length, 0, block, true), recv, at, uniformSizes(sources.length, block));
    }

    // ---------------------------------------------------------------- alltoall

    /**
     * {@code MPI_Neighbor_alltoall}: block i of {@code send} to destination i, block i of {@code recv} from source i.
     * The block size is {@code send.byteSize() / outdegree()} (which must divide evenly); a rank with no destinations
     * (a graph's sink) takes it from {@code recv.byteSize() / indegree()} instead.
     */
    public void alltoall(MemorySegment send, MemorySegment recv) {
        ialltoall(send, recv).await();
    }

    /** Non-blocking {@link #alltoall}. */
    public Request ialltoall(MemorySegment send, MemorySegment recv) {
        p2p.checkUsable();
        Arguments.readable("send", send, 0, id);
        int out = destinations.length;
        int in = sources.length;
        long block;
        if (out > 0) {
            block = evenBlocks("send", send, out, "destination");
        } else {
            Arguments.writable("recv", recv, 0, id);
            block = in == 0 ? 0 : evenBlocks("recv", recv, in, "source");
        }
        return exchange("neighbor alltoall", send, blocks(out, block, block, false), recv, uniform(in, block),
                uniformSizes(in, block));
    }

    private static long evenBlocks(String name, MemorySegment buf, int k, String per) {
        if (buf.byteSize() % k != 0) {
            throw new IllegalArgumentException(name + " has " + buf.byteSize() + " bytes, not " + k + " equal blocks (one per "
                    + per + ")");
        }
        return buf.byteSize() / k;
    }

    // ---------------------------------------------------------------- v-forms

    /**
     * {@code MPI_Neighbor_allgatherv}: the first {@code sendCount} elements of {@code send} to every destination;
     * {@code recvCounts[i]} elements from source i at element {@code recvDispls[i]} of {@code recv}.
     */
    public void allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] recvDispls,
                           DType dtype) {
        iallgatherv(send, sendCount, recv, recvCounts, recvDispls, dtype).await();
    }

    /** Non-blocking {@link #allgatherv}. */
    public Request iallgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] recvDispls,
                               DType dtype) {
        p2p.checkUsable();
        Arguments.dtype(dtype);
        Arguments.count("sendCount", sendCount);
        long bytes = Arguments.bytes(sendCount, dtype, 1);
        Arguments.readable("send", send, bytes, id);
        long[][] r = vector("recvCounts", recvCounts, "recvDispls", recvDispls, sources.length, dtype);
        return exchange("neighbor allgatherv", send, blocks(destinations.length, 0, bytes, true), recv, r[1], r[0]);
    }

    /**
     * {@code MPI_Neighbor_alltoallv}: {@code sendCounts[i]} elements at element {@code sendDispls[i]} of {@code send}
     * to destination i; {@code recvCounts[i]} elements from source i at element {@code recvDispls[i]} of {@code recv}.
     */
    public void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                          long[] recvDispls, DType dtype) {
        ialltoallv(send, sendCounts, sendDispls, recv, recvCounts, recvDispls, dtype).await();
    }

    /** Non-blocking {@link #alltoallv}. */
    public Request ialltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                              long[] recvDispls, DType dtype) {
        p2p.checkUsable();
        Arguments.dtype(dtype);
        long[][] s = vector("sendCounts", sendCounts, "sendDispls", sendDispls, destinations.length, dtype);
        Arguments.readable("send", send, Arguments.extentBytes("sendCounts", sendCounts, "sendDispls", sendDispls, dtype), id);
        long[][] r = vector("recvCounts", recvCounts, "recvDispls", recvDispls, sources.length, dtype);
        long[][] sendBlocks = new long[destinations.length][];
        for (int i = 0; i < destinations.length; i++) {
            sendBlocks[i] = new long[]{s[1][i], s[0][i]};
        }
        return exchange("neighbor alltoallv", send, sendBlocks, recv, r[1], r[0]);
    }

    // ---------------------------------------------------------------- the exchange

    /**
     * Posts a receive of {@code recvBytes[i]} bytes at {@code recvAt[i]} of {@code recv} from every source i, then a
     * send of block {@code sendBlocks[i]} = {offset, bytes} of {@code send} to every destination i.
     */
    private Request exchange(String what, MemorySegment send, long[][] sendBlocks, MemorySegment recv, long[] recvAt,
                             long[] recvBytes) {
        long extent = 0;
        for (int i = 0; i < recvAt.length; i++) {
            if (recvBytes[i] > 0) {   // PROC_NULL blocks included, as MPI sizes the buffer
                extent = Math.max(extent, recvAt[i] + recvBytes[i]);
            }
        }
        Arguments.writable("recv", recv, extent, id);
        long sendExtent = 0;
        for (long[] b : sendBlocks) {
            sendExtent = Math.max(sendExtent, b[0] + b[1]);
        }
        if (extent > 0 && sendExtent > 0 && Aliasing.overlap(send, sendExtent, recv, extent)) {
            throw new IllegalArgumentException("send and recv overlap: a neighborhood collective cannot work in place");
        }
        NeighborRequest.Builder b = new NeighborRequest.Builder(ep, what);
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] != PointToPoint.PROC_NULL) {
                // a grid's block i comes from the neighbour that sends along the opposite direction, i ^ 1
                b.receive(i, recv.asSlice(recvAt[i], recvBytes[i]), recvBytes[i], sources[i], grid ? GRID_TAG - (i ^ 1) : GRAPH_TAG);
            }
        }
        for (int i = 0; i < destinations.length; i++) {
            if (destinations[i] != PointToPoint.PROC_NULL) {
                long[] blk = sendBlocks[i];
                b.send(send.asSlice(blk[0], blk[1]), blk[1], destinations[i], grid ? GRID_TAG - i : GRAPH_TAG);
            }
        }
        return b.start();
    }

    private static long[] uniform(int n, long block) {
        long[] at = new long[n];
        for (int i = 0; i < n; i++) {
            at[i] = i * block;
        }
        return at;
    }

    private static long[] uniformSizes(int n, long block) {
        long[] s = new long[n];
        java.util.Arrays.fill(s, block);
        return s;
    }

    /** {offset, bytes} of each of {@code n} send blocks: block i at {@code i × stride} (stride 0: all the same). */
    private static long[][] blocks(int n, long stride, long bytes, boolean same) {
        long[][] b = new long[n][];
        for (int i = 0; i < n; i++) {
            b[i] = new long[]{same ? 0 : i * stride, bytes};
        }
        return b;
    }

    /** Checks a v-form's counts and displacements (one per edge, each ≥ 0); returns {bytes[], byte offsets[]}. */
    private static long[][] vector(String countsName, long[] counts, String displsName, long[] displs, int edges, DType dtype) {
        edges(countsName, counts, edges);
        edges(displsName, displs, edges);
        Arguments.extentBytes(countsName, counts, displsName, displs, dtype);   // overflow check
        long es = dtype.size();
        long[] bytes = new long[edges];
        long[] at = new long[edges];
        for (int i = 0; i < edges; i++) {
            bytes[i] = counts[i] * es;
            at[i] = displs[i] * es;
        }
        if (countsName.startsWith("recv")) {
            Arguments.disjointBlocks(countsName, counts, displsName, displs);
        }
        return new long[][]{bytes, at};
    }

    private static void edges(String name, long[] a, int edges) {
        if (a == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (a.length != edges) {
            throw new IllegalArgumentException(name + " has " + a.length + " entries, this rank has " + edges
                    + (name.startsWith("recv") ? " sources" : " destinations") + " in the topology");
        }
        for (int j = 0; j < edges; j++) {
            if (a[j] < 0) {
                throw new IllegalArgumentException(name + "[" + j + "] must be >= 0, got " + a[j]);
            }
        }
    }
}
