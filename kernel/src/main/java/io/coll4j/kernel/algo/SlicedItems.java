package io.coll4j.kernel.algo;

import java.lang.foreign.MemorySegment;

/**
 * {@link Steps.Items} that cut a call's {@code count} elements into slices of at most I_max bytes per rank's share
 * ({@link ItemSlicing}), item i being slice i of the whole vector: the shape of the algorithms whose every rank's
 * buffer has the same layout (a bcast's copies, a scan's carried prefix).
 */
public abstract class SlicedItems implements Steps.Items {
    /** The call the items serve. */
    protected final StepCall call;
    /** Its ranks, elements and element size. */
    protected final int p;
    protected final long count;
    protected final int es;
    private final long sliceElements;
    private final long items;

    protected SlicedItems(StepCall call) {
        this.call = call;
        this.p = call.ranks();
        this.count = call.count();
        this.es = call.elementSize();
        this.sliceElements = ItemSlicing.sliceElements(count * es, p, call.maxSliceBytes(), es);
        this.items = ItemSlicing.items(count, sliceElements);
    }

    @Override
    public final long items() {
        return items;
    }

    @Override
    public final void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
        long first = i * sliceElements;
        slice(w, first, Math.min(sliceElements, count - first), send, recv);
    }

    /** Elements {@code first .. first+n−1} of every rank's buffers. */
    protected abstract void slice(ItemWorker w, long first, long n, MemorySegment[] send, MemorySegment[] recv);
}
