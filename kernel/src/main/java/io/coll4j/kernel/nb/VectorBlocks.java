package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The sliced schedule of a non-blocking v-collective: every rank's {@link VectorCall} and the work items
 * cut from the blocks they describe. The blocked collectives' items (block q, slice j) and alltoall's
 * (pair a ≤ b, slice j) of {@link EngineItems}, with each block's count and place taken from the calls:
 * <pre>
 * gatherv            (q, j)    slice j of send_q → recv_root at the root's recvDispls[q]
 * scatterv           (q, j)    slice j of send_root at the root's sendDispls[q] → recv_q
 * allgatherv         (q, j)    slice j of send_q → every recv_s at rank s's recvDispls[q]
 * reduce-scatter-v   (q, j)    fold slice j of block q (at recvCounts[0] + … + recvCounts[q−1]) of every send → recv_q
 * alltoallv          (a ≤ b, j) slice j of send_a's block for b → recv_b's block from a, and back; both read
 *                               before either is written
 * </pre>
 * The number of items is fixed when the exchange is created, by its creator, which may not know every
 * block (a gatherv's non-root rank knows only its own count). So every block is cut into the same number
 * K of slices, K chosen from the largest block the creator knows (about four per block, at most I_max
 * each, as {@link ItemSlicing#sliceBytes}); a block's slice is ⌈count/K⌉ elements in whole cache lines. A
 * block larger than the creator guessed gets larger items, never wrong ones. Every output element is
 * written by exactly one item after that item read what it may alias, so the in-place forms the blocking
 * methods accept are safe here too (alltoallv in place has equal counts both ways, hence equal slices).
 *
 * <p>Matching: the calls are checked against each other by the last rank to join, before anyone can
 * post ({@link #mismatch}): the counts a root or a peer expects must be the ones each rank sends.
 */
final class VectorBlocks implements Steps.Items {
    private final StepCall c;
    private final Collective collective;
    private final int p;
    private final int root;
    private final int es;
    private final Copy copy;
    private final VectorCall[] calls;
    private final long slices;
    private final long items;
    private final boolean nonTemporal;
    /** Reduce-scatter-v: where block q starts in every send (prefix sums of the creator's recvCounts). */
    private final long[] blockStarts;

    VectorBlocks(StepCall c, VectorCall creator) {
        this.c = c;
        this.collective = c.collective();
        this.p = c.ranks();
        this.root = c.root();
        this.es = c.elementSize();
        this.copy = c.copy();
        long maxSliceBytes = c.maxSliceBytes();
        this.calls = new VectorCall[p];
        long largest = creator.largestBlock() * es;
        long sliceBytes = ItemSlicing.sliceBytes(largest * p, p, maxSliceBytes);
        this.slices = Math.max(1, (largest + sliceBytes - 1) / sliceBytes);
        this.items = slices * (collective == Collective.ALLTOALLV ? EngineItems.pairs(p) : p);
        this.nonTemporal = copy.useNonTemporal(2L * p * largest * p, false);
        if (collective == Collective.REDUCE_SCATTER_V) {
            long[] counts = creator.recvCounts();
            this.blockStarts = new long[p];
            for (int q = 1; q < p; q++) {
                blockStarts[q] = blockStarts[q - 1] + counts[q - 1];
            }
        } else {
            this.blockStarts = null;
        }
    }

    @Override
    public long items() {
        return items;
    }

    void register(int rank, VectorCall call) {
        calls[rank] = call;
    }

    /**
     * Null when the calls of all ranks agree, else what differs (the blocking forms' mismatches). Call
     * once every rank has registered (the last joiner, which sees every registration through the join counter).
     */
    String mismatch() {
        switch (collective) {
            case GATHERV, SCATTERV -> {
                long[] rootCounts = collective == Collective.GATHERV ? calls[root].recvCounts() : calls[root].sendCounts();
                for (int q = 0; q < p; q++) {
                    if (calls[q].own() != rootCounts[q]) {
                        return "rank " + q + " " + (collective == Collective.GATHERV ? "sends " : "receives ") + calls[q].own()
                                + " elements but the root's " + (collective == Collective.GATHERV ? "recvCounts[" : "sendCounts[")
                                + q + "] = " + rootCounts[q];
                    }
                }
            }
            case ALLGATHERV, REDUCE_SCATTER_V -> {
                for (int q = 1; q < p; q++) {
                    if (!Arrays.equals(calls[q].recvCounts(), calls[0].recvCounts())) {
                        return "recvCounts differ between rank 0 " + Arrays.toString(calls[0].recvCounts()) + " and rank " + q
                                + " " + Arrays.toString(calls[q].recvCounts());
                    }
                }
            }
            case ALLTOALLV -> {
                for (int a = 0; a < p; a++) {
                    for (int b = 0; b < p; b++) {
                        if (calls[a].sendCounts()[b] != calls[b].recvCounts()[a]) {
                            return "rank " + a + " sends " + calls[a].sendCounts()[b] + " elements to rank " + b
                                    + ", which expects recvCounts[" + a + "] = " + calls[b].recvCounts()[a];
                        }
                    }
                }
            }
            default -> throw new IllegalStateException(collective + " is not a v-collective");
        }
        return null;
    }

    /** Elements of a block's slice: ⌈count/K⌉ in whole cache lines. */
    private long slice(long count) {
        long line = Math.max(1, 64 / es);
        long s = (count + slices - 1) / slices;
        return (s + line - 1) / line * line;
    }

    /** Executes item {@code i} over the ranks' registered buffers (see the class comment). */
    @Override
    public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
        long k = i / slices;
        long j = i % slices;
        if (collective == Collective.ALLTOALLV) {
            alltoallv(w, EngineItems.pairFirst(p, k), EngineItems.pairSecond(p, k), j, send, recv);
            return;
        }
        int q = (int) k;
        long count = switch (collective) {
            case GATHERV -> calls[root].recvCounts()[q];
            case SCATTERV -> calls[root].sendCounts()[q];
            case ALLGATHERV -> calls[q].own();
            default -> calls[0].recvCounts()[q];
        };
        long s = slice(count);
        long first = j * s;
        long n = Math.max(0, Math.min(s, count - first));
        if (n == 0) {
            return;
        }
        long bytes = n * es;
        switch (collective) {
            // in place at the root its own block is the same range: copy() skips it
            case GATHERV -> ItemWorker.copy(copy, send[q], first * es, recv[root],
                    (calls[root].recvDispls()[q] + first) * es, bytes, nonTemporal);
            case SCATTERV -> ItemWorker.copy(copy, send[root], (calls[root].sendDispls()[q] + first) * es, recv[q],
                    first * es, bytes, nonTemporal);
            case ALLGATHERV -> {
                for (int d = 0; d < p; d++) {
                    ItemWorker.copy(copy, send[q], first * es, recv[d], (calls[d].recvDispls()[q] + first) * es, bytes,
                            nonTemporal);
                }
            }
            default -> {
                long from = (blockStarts[q] + first) * es;
                for (int src = 0; src < p; src++) {
                    w.source(src, send[src], from);
                }
                w.dest(0, recv[q], first * es);
                c.foldToAll(w, 1, n, nonTemporal);
                c.divide(q, recv[q], first * es, n);
            }
        }
    }

    /** Slice j of pair (a, b): a's block for b → b's block from a, and b's block for a → a's block from b. */
    private void alltoallv(ItemWorker w, int a, int b, long j, MemorySegment[] send, MemorySegment[] recv) {
        VectorCall ca = calls[a];
        VectorCall cb = calls[b];
        long ab = ca.sendCounts()[b];
        long ba = cb.sendCounts()[a];
        long sAB = slice(ab);
        long sBA = slice(ba);
        long fAB = Math.min(j * sAB, ab);
        long fBA = Math.min(j * sBA, ba);
        long nAB = Math.max(0, Math.min(sAB, ab - fAB));
        long nBA = Math.max(0, Math.min(sBA, ba - fBA));
        // a rank in place has equal counts both ways (its send layout is its receive layout), hence equal
        // slices: its input and output ranges of this item are the same range, which exchange() reads first
        w.exchange(copy, send[a], (ca.sendDispls()[b] + fAB) * es, recv[b], (cb.recvDispls()[a] + fAB) * es,
                send[b], (cb.sendDispls()[a] + fBA) * es, recv[a], (ca.recvDispls()[b] + fBA) * es,
                nAB * es, nBA * es, nonTemporal);
    }
}
