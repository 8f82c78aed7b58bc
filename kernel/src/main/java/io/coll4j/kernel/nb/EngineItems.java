package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;

import java.lang.foreign.MemorySegment;

/**
 * The engine's own sliced schedule, left for alltoall, the one collective whose catalogue algorithms have no
 * resumable steps (every other collective's requests run its catalogue algorithm's steps, docs/design.md, "One
 * contract for every form"). Why not theirs: in place, the blocking direct and push alltoall stage a rank's outgoing
 * blocks in its scratch first ({@code AlltoallStaging}), a per-call copy steps cannot own; the pairs below are safe
 * in place without it. The work is cut into items of whole cache lines ({@link ItemSlicing}):
 * <pre>
 * alltoall   (a ≤ b, j)    slice j of block b of send_a → block a of recv_b, and of block a of send_b →
 *                          block b of recv_a, both read before either is written (one item per pair)
 * </pre>
 * Every output element is written by exactly one item, after that item read all of its inputs that the
 * output may alias (a rank's own buffer in place), so in place is safe; stores are non-temporal iff
 * W = 2·p·s exceeds the cache [YHCCL §4.2].
 */
final class EngineItems implements Steps.Items {
    private final int p;
    private final long count;
    private final int es;
    private final Copy copy;
    private final long sliceElements;
    private final long itemsPerBlock;
    private final long items;
    private final boolean nonTemporal;

    EngineItems(StepCall c) {
        if (c.collective() != Collective.ALLTOALL) {
            throw new IllegalStateException("no engine schedule for " + c.collective() + ": its catalogue algorithm has steps");
        }
        this.p = c.ranks();
        this.count = c.count();
        this.es = c.elementSize();
        this.copy = c.copy();
        long total = count * es * p;
        this.nonTemporal = copy.useNonTemporal(2L * p * total, false);
        // per block: count elements, cut into slices
        this.sliceElements = ItemSlicing.sliceElements(total, p, c.maxSliceBytes(), es);
        this.itemsPerBlock = ItemSlicing.items(count, sliceElements);
        this.items = itemsPerBlock * pairs(p);
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
        long q = i / itemsPerBlock;
        long first = i % itemsPerBlock * sliceElements;
        long bytes = Math.min(sliceElements, count - first) * es;
        // pair (a, b): block b of send_a → block a of recv_b and block a of send_b → block b of recv_a, both
        // read before either is written, so a rank in place (recv == send) loses nothing
        int a = pairFirst(p, q);
        int b = pairSecond(p, q);
        long inA = (b * count + first) * es;
        long inB = (a * count + first) * es;
        w.exchange(copy, send[a], inA, recv[b], inB, send[b], inB, recv[a], inA, bytes, bytes, nonTemporal);
    }
}
