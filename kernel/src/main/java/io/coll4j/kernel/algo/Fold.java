package io.coll4j.kernel.algo;

import io.coll4j.bindings.copy.NativeOp;
import io.coll4j.bindings.copy.NativeType;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.internal.HeapArrayFold;
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
    /**
     * Bytes of a tile of {@link #intoEveryRecv}'s temporal path: folded into my receive buffer and copied to the
     * peers' from L1, with room left in L1 for the sources' lines of the same tile.
     */
    static final int EVERY_RECV_TILE_BYTES = 8 * 1024;

    private static final NativeType[] NATIVE_TYPE = new NativeType[DType.values().length];
    private static final NativeOp[] NATIVE_OP = new NativeOp[Op.values().length];

    // The C kernel knows F32, F64, I32, I64 and SUM, PROD, MIN, MAX, BAND, BOR, BXOR. The other types and
    // ops (F16, BF16, the pairs, MINLOC/MAXLOC, user ops) fold in Java, through the reducer: the null entries
    // here are what sends them there. U32/U64 fold natively as I32/I64 except for MIN and MAX, the only ops
    // whose bits differ between signed and unsigned.
    static {
        for (DType t : DType.values()) {
            NATIVE_TYPE[t.ordinal()] = nativeName(NativeType.class, t.name());
        }
        for (Op o : Op.values()) {
            NATIVE_OP[o.ordinal()] = nativeName(NativeOp.class, o.name());
        }
    }

    private static <E extends Enum<E>> E nativeName(Class<E> type, String name) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /** The C kernel's type for folding this call's dtype with its op; null when the fold must be Java. */
    private NativeType nativeFoldType() {
        DType t = call.dtype();
        if (t.isUnsigned() && call.op() != Op.MIN && call.op() != Op.MAX) {
            t = t == DType.U32 ? DType.I32 : DType.I64;
        }
        return NATIVE_OP[call.op().ordinal()] == null ? null : NATIVE_TYPE[t.ordinal()];
    }

    /**
     * A C kernel type to copy {@code bytes} with (a one-source "fold" only copies, so any type of a width that
     * divides the bytes does); null when none does.
     */
    private static NativeType copyType(long bytes) {
        return bytes % 8 == 0 ? NativeType.I64 : bytes % 4 == 0 ? NativeType.I32 : null;
    }

    private final CollectiveCall call;
    private final MemorySegment[] sources;
    private final long[] offsets;
    /** The sources' offsets at the start of a tiled fold, which moves {@link #offsets} tile by tile. */
    private final long[] tileBase;
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
        this.tileBase = new long[sources.length];
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
            // heap arrays (rank.allreduce(float[] …)) through the vector pass over the arrays; the reducer's
            // own heap path is the per-element scalar loop, 5x slower for a 4 MiB f32 allreduce. The
            // reducer's op, not the call's: AVG folds as SUM
            if (!dst.isNative() && HeapArrayFold.reduceMany(call.dtype(), reducer.op(), dst, dstOffset, sources, offsets, k, elements)) {
                return;
            }
            if (dst.isNative() && !sources[0].isNative() && intoNativeThroughHeapStrip(reducer.op(), dst, dstOffset, elements)) {
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
            NativeType t = nativeFoldType();
            if (t != null && addStreamingSources(f) && f.run(t, NATIVE_OP[call.op().ordinal()], elements)) {
                return;
            }
            f.clear();
        }
        into(dst, dstOffset, elements);
    }

    /** See {@link CollectiveCall#foldIntoEveryRecv}. */
    void intoEveryRecv(long dstOffset, long elements, boolean nonTemporal) {
        StreamingFold f = nonTemporal ? streamingFold() : null;
        if (f != null) {
            NativeType t = nativeFoldType();
            addEveryRecv(f, dstOffset);
            if (t != null && addStreamingSources(f) && f.run(t, NATIVE_OP[call.op().ordinal()], elements)) {
                return;
            }
            f.clear();
        }
        // Tile by tile, each tile copied to the peers while it is still in L1: folding the whole block first
        // and copying it after made a second pass over a block that had left L2 (docs/measurements.md,
        // "Consumed allreduce and the 64 MiB copy rate").
        MemorySegment recv = call.recv();
        int es = call.dtype().size();
        long perTile = EVERY_RECV_TILE_BYTES / es;
        if (elements <= perTile) {
            intoEveryRecvTile(recv, dstOffset, elements * es, elements);
            return;
        }
        int k = count;
        System.arraycopy(offsets, 0, tileBase, 0, k);
        try {
            for (long done = 0; done < elements; done += perTile) {
                long n = Math.min(perTile, elements - done);
                for (int s = 0; s < k; s++) {
                    offsets[s] = tileBase[s] + done * es;
                }
                intoEveryRecvTile(recv, dstOffset + done * es, n * es, n);
            }
        } finally {
            System.arraycopy(tileBase, 0, offsets, 0, k);
        }
    }

    /**
     * Folds one tile into my receive buffer at {@code at}, then copies it into every peer's at the same offset. In
     * place is safe: the tile of every source is read before any receive buffer's tile is written, and later tiles
     * are not touched.
     */
    private void intoEveryRecvTile(MemorySegment recv, long at, long bytes, long elements) {
        into(recv, at, elements);
        for (int q = 0; q < call.size(); q++) {
            if (q != call.rank()) {
                MemorySegment.copy(recv, at, call.peerRecv(q), at, bytes);
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
            NativeType t = copyType(bytes);
            if (t != null && f.allNative() && f.run(t, NativeOp.SUM, bytes / t.size())) {
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
        NativeType t = copyType(bytes);
        StreamingFold f = nonTemporal && t != null ? streamingFold() : null;
        if (f != null) {
            for (int q = 0; q < call.size(); q++) {
                if (dstOffsets[q] >= 0) {
                    f.destination(recvOf(q), dstOffsets[q]);
                }
            }
            f.source(src, srcOffset);
            // one source: nothing is folded, so the op only has to be a valid one for the type
            if (f.allNative() && f.run(t, NativeOp.SUM, bytes / t.size())) {
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
     * passes of {@link HeapArrayFold} into an L1-sized heap strip of the dtype's array type, each strip then
     * copied out, instead of the reducer's per-element heap path (~20x slower). False, nothing written, when
     * HeapArrayFold does not take these sources.
     */
    private boolean intoNativeThroughHeapStrip(Op op, MemorySegment dst, long dstOffset, long elements) {
        int k = count;
        int es = call.dtype().size();
        int per = STRIP_BYTES / es;
        if (heapStrip == null || heapStrip.byteSize() != STRIP_BYTES || heapStripType != call.dtype()) {
            heapStrip = HeapArrayFold.stripFor(call.dtype(), op, per);
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
            if (!HeapArrayFold.reduceMany(call.dtype(), op, heapStrip, 0, passSources, passOffsets, k, n)) {
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
