package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * The engine's own sliced schedule, for the collectives whose algorithms in the catalogue have no resumable
 * steps yet (allreduce's are {@code PushAllreduce}'s, bcast's {@code DirectBcast}'s, barrier's {@code CentralBarrier}'s,
 * reduce's {@code DirectReduce}'s, reduce-scatter's {@code DirectReduceScatter}'s, allgather's {@code PushAllgather}'s,
 * scan's and exscan's {@code ChainScan}'s):
 * the work is cut into items of whole cache lines
 * ({@link ItemSlicing}), each reading its inputs in place from the ranks' send buffers and writing its output
 * into every receive buffer that needs it:
 * <pre>
 * gather     (q, j)        copy slice j of send_q → block q of recv_root
 * scatter    (q, j)        copy slice j of block q of send_root → recv_q
 * alltoall   (a ≤ b, j)    slice j of block b of send_a → block a of recv_b, and of block a of send_b →
 *                          block b of recv_a, both read before either is written (one item per pair)
 * </pre>
 * Every output element is written by exactly one item, after that item read all of its inputs that the
 * output may alias (a rank's own buffer in place), so in place is safe; stores are non-temporal iff
 * W = 2·p·s exceeds the cache [YHCCL §4.2].
 */
final class EngineItems implements Steps.Items {
    private final Collective collective;
    private final int p;
    private final int root;
    private final long count;
    private final int es;
    private final DType dtype;
    private final Op op;
    private final Reducer reducer;
    private final Copy copy;
    private final long sliceElements;
    private final long itemsPerBlock;
    private final long items;
    private final boolean nonTemporal;

    EngineItems(StepCall c) {
        this.collective = c.collective();
        this.p = c.ranks();
        this.root = c.root();
        this.count = c.count();
        this.es = c.elementSize();
        this.dtype = c.dtype();
        this.op = c.op();
        this.reducer = c.reducer();
        this.copy = c.copy();
        long total = blocked(collective) || collective == Collective.ALLTOALL ? count * es * p : count * es;
        this.nonTemporal = copy.useNonTemporal(2L * p * total, false);
        // per block (reduce-scatter, allgather) or per vector: count elements, cut into slices
        this.sliceElements = ItemSlicing.sliceElements(total, p, c.maxSliceBytes(), es);
        this.itemsPerBlock = ItemSlicing.items(count, sliceElements);
        this.items = blocked(collective) ? itemsPerBlock * p
                : collective == Collective.ALLTOALL ? itemsPerBlock * pairs(p) : itemsPerBlock;
    }

    /** Collectives whose items are (block q, slice j): one block per rank, cut into slices. */
    private static boolean blocked(Collective c) {
        return c == Collective.GATHER || c == Collective.SCATTER;
    }

    /** Unordered pairs (q, s), q ≤ s, of p ranks: the alltoall's items per slice. */
    static long pairs(int p) {
        return (long) p * (p + 1) / 2;
    }

    /** The first rank of pair {@code k} in the order (0,0), (0,1) … (0,p−1), (1,1), (1,2) …. */
    static int pairFirst(int p, long k) {
        int q = 0;
        for (long row = p; k >= row; row--) {
            k -= row;
            q++;
        }
        return q;
    }

    /** The second rank of pair {@code k} (no allocation on the item path). */
    static int pairSecond(int p, long k) {
        int q = pairFirst(p, k);
        return (int) (k - ((long) q * p - (long) q * (q - 1) / 2) + q);
    }

    @Override
    public long items() {
        return items;
    }

    @Override
    public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
        long q = 0;
        long j = i;
        if (blocked(collective) || collective == Collective.ALLTOALL) {
            q = i / itemsPerBlock;
            j = i % itemsPerBlock;
        }
        long first = j * sliceElements;
        long n = Math.min(sliceElements, count - first);
        long bytes = n * es;
        switch (collective) {
            // in place at the root its own block is the same range: copy() skips it
            case GATHER -> ItemWorker.copy(copy, send[(int) q], first * es, recv[root], (q * count + first) * es, bytes, nonTemporal);
            case SCATTER -> ItemWorker.copy(copy, send[root], (q * count + first) * es, recv[(int) q], first * es, bytes, nonTemporal);
            case ALLTOALL -> {
                // pair (a, b): block b of send_a → block a of recv_b and block a of send_b → block b of recv_a, both
                // read before either is written, so a rank in place (recv == send) loses nothing
                int a = pairFirst(p, q);
                int b = pairSecond(p, q);
                long inA = (b * count + first) * es;
                long inB = (a * count + first) * es;
                w.exchange(copy, send[a], inA, recv[b], inB, send[b], inB, recv[a], inA, bytes, bytes, nonTemporal);
            }
            default -> throw new IllegalStateException("no sliced schedule for " + collective);
        }
    }
}
