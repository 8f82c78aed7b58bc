package io.coll4j.kernel.algo;

import io.coll4j.bindings.copy.NativeOp;
import io.coll4j.bindings.copy.NativeType;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.HeapArraySum;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rank's element-wise folds, {@code dst = s0 op s1 op … op s(k−1)} left to right, and how each one is
 * carried out: one k-ary Vector pass ({@link Reducer#reduceMany}) for up to 16 sources, strip mining
 * beyond, or the native streaming fold ({@link StreamingFold}) when the result should bypass the cache.
 * Every path gives the bits of the scalar left fold in the order the sources were added. One instance
 * per rank (owned by its {@link CollectiveCall}); it allocates nothing per call.
 */
final class Fold {
    /** Bytes of the private strip buffer a fold of more than 16 sources goes through (fits L1 with its sources' lines). */
    static final int STRIP_BYTES = 8 * 1024;

    private static final NativeType[] NATIVE_TYPE = new NativeType[DType.values().length];
    private static final NativeOp[] NATIVE_OP = new NativeOp[Op.values().length];

    static {
        for (DType t : DType.values()) {
            NATIVE_TYPE[t.ordinal()] = NativeType.valueOf(t.name());
        }
        for (Op o : Op.values()) {
            NATIVE_OP[o.ordinal()] = NativeOp.valueOf(o.name());
        }
    }

    private final CollectiveCall call;
    private final MemorySegment[] sources;
    private final long[] offsets;
    private final MemorySegment[] passSources = new MemorySegment[Reducer.MAX_SOURCES];
    private final long[] passOffsets = new long[Reducer.MAX_SOURCES];
    private int count;
    private MemorySegment strip;
    /** The heap strip of {@link #intoNativeThroughHeapStrip}, an array of {@link #heapStripType}'s type. */
    private MemorySegment heapStrip;
    private DType heapStripType;
    private StreamingFold streaming;

    Fold(CollectiveCall call, int ranks) {
        this.call = call;
        this.sources = new MemorySegment[Math.max(ranks + 1, Reducer.MAX_SOURCES)];
        this.offsets = new long[sources.length];
    }

    void start() {
        count = 0;
    }

    void add(MemorySegment seg, long offset) {
        sources[count] = seg;
        offsets[count] = offset;
        count++;
    }

    /** See {@link CollectiveCall#foldInto}. */
    void into(MemorySegment dst, long dstOffset, long elements) {
        if (elements == 0) {
            return;     // a 0-element call may have no scratch (dst null): nothing to fold
        }
        int k = count;
        Reducer reducer = call.reducer();
        if (k <= Reducer.MAX_SOURCES) {
            // SUM over heap arrays (rank.allreduce(float[] …)) as array loops C2 vectorises; the reducer's
            // own heap path is the per-element scalar loop, 5x slower for a 4 MiB f32 allreduce
            if (!dst.isNative() && HeapArraySum.reduceMany(call.dtype(), call.op(), dst, dstOffset, sources, offsets, k, elements)) {
                return;
            }
            if (dst.isNative() && !sources[0].isNative() && intoNativeThroughHeapStrip(dst, dstOffset, elements)) {
                return;
            }
            reducer.reduceMany(dst, dstOffset, sources, offsets, k, elements);
            return;
        }
        if (strip == null) {
            strip = Arena.ofAuto().allocate(STRIP_BYTES, 64);
        }
        int es = call.dtype().size();
        long perStrip = STRIP_BYTES / es;
        for (long done = 0; done < elements; done += perStrip) {
            long n = Math.min(perStrip, elements - done);
            foldStrip(reducer, strip, done * es, n);
            MemorySegment.copy(strip, 0, dst, dstOffset + done * es, n * es);
        }
    }

    /** See {@link CollectiveCall#foldIntoNonTemporal}. */
    void intoNonTemporal(MemorySegment dst, long dstOffset, long elements) {
        StreamingFold f = streamingFold();
        if (f != null) {
            f.destination(dst, dstOffset);
            if (addStreamingSources(f) && f.run(nativeType(), NATIVE_OP[call.op().ordinal()], elements)) {
                return;
            }
        }
        into(dst, dstOffset, elements);
    }

    /** See {@link CollectiveCall#foldIntoEveryRecv}. */
    void intoEveryRecv(long dstOffset, long elements, boolean nonTemporal) {
        StreamingFold f = nonTemporal ? streamingFold() : null;
        if (f != null) {
            addEveryRecv(f, dstOffset);
            if (addStreamingSources(f) && f.run(nativeType(), NATIVE_OP[call.op().ordinal()], elements)) {
                return;
            }
        }
        MemorySegment recv = call.recv();
        into(recv, dstOffset, elements);
        long bytes = elements * call.dtype().size();
        for (int q = 0; q < call.size(); q++) {
            if (q != call.rank()) {
                MemorySegment.copy(recv, dstOffset, call.peerRecv(q), dstOffset, bytes);
            }
        }
    }

    /** See {@link CollectiveCall#copyIntoEveryRecv}. */
    void copyIntoEveryRecv(MemorySegment src, long srcOffset, long dstOffset, long bytes, boolean nonTemporal) {
        StreamingFold f = nonTemporal ? streamingFold() : null;
        if (f != null) {
            addEveryRecv(f, dstOffset);
            f.source(src, srcOffset);
            // one source: nothing is folded, so the op only has to be a valid one for the type
            if (f.allNative() && f.run(nativeType(), NativeOp.SUM, bytes / call.dtype().size())) {
                return;
            }
            f.clear();
        }
        for (int q = 0; q < call.size(); q++) {
            Transfers.copy(call, src, srcOffset, recvOf(q), dstOffset, bytes, nonTemporal);
        }
    }

    /** See {@link CollectiveCall#copyIntoRecvsAt}. */
    void copyIntoRecvsAt(MemorySegment src, long srcOffset, long[] dstOffsets, long bytes, boolean nonTemporal) {
        if (bytes == 0) {
            return;
        }
        StreamingFold f = nonTemporal && bytes % call.dtype().size() == 0 ? streamingFold() : null;
        if (f != null) {
            for (int q = 0; q < call.size(); q++) {
                if (dstOffsets[q] >= 0) {
                    f.destination(recvOf(q), dstOffsets[q]);
                }
            }
            f.source(src, srcOffset);
            // one source: nothing is folded, so the op only has to be a valid one for the type
            if (f.allNative() && f.run(nativeType(), NativeOp.SUM, bytes / call.dtype().size())) {
                return;
            }
            f.clear();
        }
        for (int q = 0; q < call.size(); q++) {
            if (dstOffsets[q] >= 0) {
                Transfers.copy(call, src, srcOffset, recvOf(q), dstOffsets[q], bytes, nonTemporal);
            }
        }
    }

    private NativeType nativeType() {
        return NATIVE_TYPE[call.dtype().ordinal()];
    }

    /** Rank q's receive buffer: mine, or the one q published. */
    private MemorySegment recvOf(int q) {
        return q == call.rank() ? call.recv() : call.peerRecv(q);
    }

    /** Every rank's receive buffer at {@code dstOffset} as a destination of {@code f}. */
    private void addEveryRecv(StreamingFold f, long dstOffset) {
        for (int q = 0; q < call.size(); q++) {
            f.destination(recvOf(q), dstOffset);
        }
    }

    /** This rank's streaming fold, created at first use; null when the machine cannot stream. */
    private StreamingFold streamingFold() {
        if (!StreamingFold.available()) {
            return null;
        }
        if (streaming == null) {
            streaming = new StreamingFold(call.size(), sources.length);
        }
        streaming.clear();
        return streaming;
    }

    /** Adds the fold's sources; false (and the fold cleared) when one of them or a destination is on the heap. */
    private boolean addStreamingSources(StreamingFold f) {
        for (int i = 0; i < count; i++) {
            f.source(sources[i], offsets[i]);
        }
        if (f.allNative()) {
            return true;
        }
        f.clear();
        return false;
    }

    /**
     * Heap-array sources, native destination (e.g. {@code allreduceShared} over {@code float[]}s): the array
     * loops of {@link HeapArraySum} into an L1-sized heap strip of the dtype's array type, each strip then
     * copied out, instead of the reducer's per-element heap path (~20x slower). False, nothing written, when
     * HeapArraySum does not take these sources.
     */
    private boolean intoNativeThroughHeapStrip(MemorySegment dst, long dstOffset, long elements) {
        int k = count;
        int es = call.dtype().size();
        int per = STRIP_BYTES / es;
        if (heapStrip == null || heapStrip.byteSize() != STRIP_BYTES || heapStripType != call.dtype()) {
            heapStrip = HeapArraySum.stripFor(call.dtype(), call.op(), per);
            heapStripType = call.dtype();
        }
        if (heapStrip == null) {
            return false;
        }
        for (long done = 0; done < elements; done += per) {
            long n = Math.min(per, elements - done);
            for (int i = 0; i < k; i++) {
                passSources[i] = sources[i];
                passOffsets[i] = offsets[i] + done * es;
            }
            if (!HeapArraySum.reduceMany(call.dtype(), call.op(), heapStrip, 0, passSources, passOffsets, k, n)) {
                if (done == 0) {
                    return false;
                }
                throw new IllegalStateException("heap strip fold declined after its first strip");
            }
            MemorySegment.copy(heapStrip, 0, dst, dstOffset + done * es, n * es);
        }
        return true;
    }

    /** Folds {@code n} elements at byte {@code delta} of every added source into {@code into} at 0, 16 sources a pass. */
    private void foldStrip(Reducer reducer, MemorySegment into, long delta, long n) {
        FoldPasses.fold(reducer, into, sources, offsets, count, delta, n, passSources, passOffsets);
    }
}
