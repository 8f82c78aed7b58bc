package io.coll4j.kernel.algo;

import io.coll4j.bindings.copy.Copy;
import io.coll4j.bindings.copy.NativeOp;
import io.coll4j.bindings.copy.NativeType;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The private tools of one thread that works the resumable {@link Steps} of requests (a rank thread or a team's
 * progress thread): source tables, a strip buffer for folds of more than {@link Reducer#MAX_SOURCES} sources,
 * and a streaming fold. Not thread-safe: one per thread.
 */
public final class ItemWorker {
    /** Bytes of the private strip a fold of more than 16 sources goes through (stays in L1). */
    static final int STRIP_BYTES = 8 * 1024;

    private final int ranks;
    private final MemorySegment[] srcs;
    private final long[] srcOffsets;
    private final MemorySegment[] dsts;
    private final long[] dstOffsets;
    /** The sources' offsets of a tiled {@link #foldToAll}, while its tiles move them. */
    private final long[] tileBase;
    private final MemorySegment[] pass = new MemorySegment[Reducer.MAX_SOURCES];
    private final long[] passOffsets = new long[Reducer.MAX_SOURCES];
    private MemorySegment strip;
    private MemorySegment[] prefixStrips;
    private StreamingFold streaming;

    public ItemWorker(int ranks) {
        this.ranks = ranks;
        this.srcs = new MemorySegment[ranks];
        this.srcOffsets = new long[ranks];
        this.dsts = new MemorySegment[ranks];
        this.dstOffsets = new long[ranks];
        this.tileBase = new long[ranks];
    }

    /** Destination {@code d} of the next {@link #foldToAll}. */
    public void dest(int d, MemorySegment seg, long offset) {
        dsts[d] = seg;
        dstOffsets[d] = offset;
    }

    /** Source {@code i} of the next fold. */
    public void source(int i, MemorySegment seg, long offset) {
        srcs[i] = seg;
        srcOffsets[i] = offset;
    }

    /**
     * Folds sources 0..k−1 (left to right: bitwise the scalar left fold in that order) over
     * {@code elements} elements into {@code dst@dstOffset}, which may be exactly one of the sources.
     */
    public void fold(Reducer reducer, DType dtype, MemorySegment dst, long dstOffset, int k, long elements) {
        if (elements == 0) {
            return;
        }
        if (k <= Reducer.MAX_SOURCES) {
            reducer.reduceMany(dst, dstOffset, srcs, srcOffsets, k, elements);
            return;
        }
        // dst may alias a source beyond the first pass: fold each strip privately, then write it once
        if (strip == null) {
            strip = Arena.ofAuto().allocate(STRIP_BYTES, 64);
        }
        int es = dtype.size();
        long perStrip = STRIP_BYTES / es;
        for (long done = 0; done < elements; done += perStrip) {
            long n = Math.min(perStrip, elements - done);
            long delta = done * es;
            FoldPasses.fold(reducer, strip, srcs, srcOffsets, k, delta, n, pass, passOffsets);
            MemorySegment.copy(strip, 0, dst, dstOffset + delta, n * es);
        }
        Arrays.fill(pass, null);
    }

    /**
     * Folds sources 0..k−1 into destinations 0..nd−1 set by {@link #dest} (one result, written to
     * each). With {@code nonTemporal}, through the native streaming fold (each 1 KiB of every source is
     * read before any destination is written, so a destination may be exactly a source) [YHCCL §4.1];
     * otherwise a fold into the first destination and copies from there.
     */
    public void foldToAll(Reducer reducer, DType dtype, Op op, int nd, int k,
                   long elements, boolean nonTemporal, Copy copy) {
        if (elements == 0 || nd == 0) {
            return;
        }
        // the native streaming fold knows F32..I64 and SUM..BXOR (NativeType, NativeOp); AVG folds as SUM
        // (divided by the caller); any other dtype or op (a user op, MINLOC) folds through the reducer below
        Op fold = op.foldOp();
        boolean nativeOp = fold.ordinal() <= Op.BXOR.ordinal() && dtype.ordinal() <= DType.I64.ordinal();
        if (nonTemporal && nativeOp && StreamingFold.available()) {
            StreamingFold f = streaming();
            for (int d = 0; d < nd; d++) {
                f.destination(dsts[d], dstOffsets[d]);
            }
            for (int i = 0; i < k; i++) {
                f.source(srcs[i], srcOffsets[i]);
            }
            // false: more memory sessions than the native call can hold; folded below instead
            if (f.allNative() && f.run(NativeType.valueOf(dtype.name()), NativeOp.valueOf(fold.name()), elements)) {
                f.clear();
                return;
            }
            f.clear();
        }
        int es = dtype.size();
        long perTile = Fold.EVERY_RECV_TILE_BYTES / es;
        if (nonTemporal || nd == 1 || elements <= perTile) {
            fold(reducer, dtype, dsts[0], dstOffsets[0], k, elements);
            for (int d = 1; d < nd; d++) {
                copy(copy, dsts[0], dstOffsets[0], dsts[d], dstOffsets[d], elements * es, nonTemporal);
            }
            return;
        }
        // Tile by tile, as the blocking push (Fold.intoEveryRecv): each tile copied to the other destinations while
        // it is still in L1. Folding a block larger than L2 first and copying it after read it back from L3: the
        // push as a request at 4 MiB, p = 2 (2 MiB blocks), ran 1.2–1.3x the blocking push. In place is safe as
        // there: every source's tile is read before any destination's tile is written, later tiles are untouched.
        System.arraycopy(srcOffsets, 0, tileBase, 0, k);
        try {
            for (long done = 0; done < elements; done += perTile) {
                long n = Math.min(perTile, elements - done);
                long delta = done * es;
                for (int i = 0; i < k; i++) {
                    srcOffsets[i] = tileBase[i] + delta;
                }
                fold(reducer, dtype, dsts[0], dstOffsets[0] + delta, k, n);
                for (int d = 1; d < nd; d++) {
                    copy(copy, dsts[0], dstOffsets[0] + delta, dsts[d], dstOffsets[d] + delta, n * es, false);
                }
            }
        } finally {
            System.arraycopy(tileBase, 0, srcOffsets, 0, k);
        }
    }

    /**
     * Scan (or, {@code exclusive}, exscan) of {@code elements} elements at byte {@code off} across the ranks'
     * buffers, in rank order: recv_q = send_0 op … op send_q (exclusive: … op send_(q−1); recv_0 untouched),
     * bitwise the scalar left fold. Strip by strip through a private accumulator, each send_q read before
     * recv_q is written, so a rank in place (recv == send) loses nothing.
     */
    public void prefix(Reducer reducer, MemorySegment[] send, MemorySegment[] recv, int p, long off, long elements, int es,
                boolean exclusive) {
        MemorySegment acc = strips(0);
        MemorySegment saved = strips(1);
        long per = STRIP_BYTES / es;
        for (long done = 0; done < elements; done += per) {
            long n = Math.min(per, elements - done);
            long at = off + done * es;
            long bytes = n * es;
            MemorySegment.copy(send[0], at, acc, 0, bytes);
            if (!exclusive) {
                copy(null, send[0], at, recv[0], at, bytes, false);
            }
            for (int q = 1; q < p; q++) {
                if (exclusive) {
                    if (q < p - 1) {
                        MemorySegment.copy(send[q], at, saved, 0, bytes);     // before recv_q (maybe send_q) is written
                    }
                    MemorySegment.copy(acc, 0, recv[q], at, bytes);
                    if (q < p - 1) {
                        reducer.reduceInto(acc, 0, saved, 0, n);
                    }
                } else {
                    reducer.reduceInto(acc, 0, send[q], at, n);
                    MemorySegment.copy(acc, 0, recv[q], at, bytes);
                }
            }
        }
    }

    /**
     * One alltoall(v) pair: {@code abBytes} of {@code inA}@{@code aOff} → {@code outB}@{@code bDst} and
     * {@code baBytes} of {@code inB}@{@code bOff} → {@code outA}@{@code aDst}. Each output may be the other
     * direction's input (a rank in place, whose two directions then have the same length): the input that
     * may be clobbered is read first, through a private strip when both ranks are in place.
     */
    public void exchange(Copy copy, MemorySegment inA, long aOff, MemorySegment outB, long bDst, MemorySegment inB, long bOff,
                  MemorySegment outA, long aDst, long abBytes, long baBytes, boolean nonTemporal) {
        if (inA == inB && aOff == bOff) {
            copy(copy, inA, aOff, outA, aDst, abBytes, nonTemporal);       // a rank's own block: one copy
            return;
        }
        // outA clobbers inA only when rank a is in place, outB clobbers inB only when b is: order the two
        // copies so the input that may be clobbered is read first, and save through the strip only when both are
        if (!Aliasing.sameStart(inA, aOff, outA, aDst)) {
            copy(copy, inB, bOff, outA, aDst, baBytes, nonTemporal);
            copy(copy, inA, aOff, outB, bDst, abBytes, nonTemporal);
            return;
        }
        if (!Aliasing.sameStart(inB, bOff, outB, bDst)) {
            copy(copy, inA, aOff, outB, bDst, abBytes, nonTemporal);
            copy(copy, inB, bOff, outA, aDst, baBytes, nonTemporal);
            return;
        }
        long bytes = abBytes;                   // both in place: abBytes == baBytes
        MemorySegment saved = strips(0);
        for (long done = 0; done < bytes; done += STRIP_BYTES) {
            long n = Math.min(STRIP_BYTES, bytes - done);
            MemorySegment.copy(inA, aOff + done, saved, 0, n);
            copy(copy, inB, bOff + done, outA, aDst + done, n, nonTemporal);
            copy(copy, saved, 0, outB, bDst + done, n, nonTemporal);
        }
    }

    /** Strip {@code i} (0 or 1) of the private prefix/exchange buffers, allocated on first use. */
    private MemorySegment strips(int i) {
        if (prefixStrips == null) {
            MemorySegment both = Arena.ofAuto().allocate(2L * STRIP_BYTES, 64);
            prefixStrips = new MemorySegment[]{both.asSlice(0, STRIP_BYTES), both.asSlice(STRIP_BYTES, STRIP_BYTES)};
        }
        return prefixStrips[i];
    }

    /** Copies {@code bytes}; a range onto itself (in place) is skipped; non-temporal only between native segments. */
    public static void copy(Copy copy, MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes,
                     boolean nonTemporal) {
        if (bytes == 0 || Aliasing.sameStart(src, srcOffset, dst, dstOffset)) {
            return;
        }
        if (nonTemporal && src.isNative() && dst.isNative() && Copy.nativeAvailable()) {
            copy.copy(dst, dstOffset, src, srcOffset, bytes, true);
        } else {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes);
        }
    }

    private StreamingFold streaming() {
        if (streaming == null) {
            streaming = new StreamingFold(ranks, Math.max(ranks, Reducer.MAX_SOURCES));
        }
        streaming.clear();
        return streaming;
    }

    /** Drops references to the last fold's buffers (so a finished collective's buffers are not kept alive). */
    public void forget() {
        Arrays.fill(srcs, null);
        Arrays.fill(dsts, null);
    }
}
