package io.coll4j.kernel.span.shm;

import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * The movement-avoiding allreduce of staged buffers (heap arrays, the user's own native memory): a reduce-scatter
 * into shared slices, then an allgather out of them [YHCCL §3.3, §3.4], slice by slice through the slots.
 *
 * <p>Round r: every process copies slice r of its vector into its slot (the copy-in: s per process over the whole
 * call, as {@link Ops.Fold}'s); once every process arrived, process i folds only block i (1/P of the slice, in
 * 64-byte units) of every process's slice, in ascending process order, and writes it after the slice in its own slot
 * (the result area). Its peers copy that block out in round r + 1 — their arrival there says every fold of round r
 * is written — and the last slice's blocks after every peer's done of the last round ({@link #holdsResults}). Per
 * process and call: copy-in s, fold reads s (P blocks of s/P) and writes s/P, copy-out s; the replicated fold of
 * {@link Ops.Fold} reads P·s and writes s. Unlike YHCCL's A′ [YHCCL §3.2, Thm 3.1: 2s of copies per node], every
 * process copies in its whole vector, its own block included: the fold then reads only the mapping's native memory
 * (the reducers run on native segments, {@link Mapping#foldScratch}).
 *
 * <p>Slots: the result area of round r sits in the slot of r's parity, after the slice; the owner writes it again in
 * round r + 2, after every peer arrived there, so after their copy-out in round r + 1. The slice is therefore
 * P/(P + 1) of the slot's data bytes ({@link #sliceBytes}). The fold order is {@link Ops.Fold}'s (ascending process
 * order, element by element), so every process's result is bitwise the replicated fold's and reproducible mode
 * holds. Built-in ops only ({@link StagedAllreduce}): a user op that throws in one process would leave its block of
 * every process's result unwritten. A push (every buffer in the mapping) is {@link Ops.Fold}'s.
 */
final class MaSlicedFold extends Ops.Fold {
    /** The previous round's slice, whose folded blocks sit in every process's result area: where it starts, its length (0: none). */
    private long heldFrom;
    private long heldLen;
    private long heldRound;

    MaSlicedFold(Channel ch, int[] members, int me, long desc, Ops.Pieces mine, MemorySegment dst, Reducer reducer,
                 int esize) {
        super(ch, members, me, desc, mine, "allreduce (ma-sliced)", dst, 0, 0, mine.total, reducer, esize);
        this.cap = sliceBytes(ch.m.slotBytes, members.length);
    }

    /**
     * The bytes of a slice, a multiple of 64, such that the slice and the largest block of it (⌈units/P⌉ 64-byte
     * units) fit a slot after its header.
     */
    static long sliceBytes(long slotBytes, int processes) {
        long units = (slotBytes - Mapping.SLOT_HEADER) / 64;
        return Math.max(1, (units - 1) * processes / (processes + 1)) * 64;
    }

    /** Where process q's block of a slice of {@code len} bytes starts: 64-byte units split evenly, the last ends at len. */
    static long blockStart(long len, int q, int processes) {
        long units = (len + 63) / 64;
        return Math.min(len, units * q / processes * 64);
    }

    private long resultAt(int q, long round) {
        return ch.slot(members[q], round) + Mapping.SLOT_HEADER + cap;
    }

    @Override
    void consume(MemorySegment seg) {
        // every peer arrived at this round after its fold of the previous one: every block of that slice is written
        copyOut(seg);
        long from = off[0];
        long len = n[0];
        int k = members.length;
        for (int p = 1; p < k; p++) {
            if (off[p] != from || n[p] != len) {
                throw new IllegalStateException("shared mapping: " + what + ": process " + members[p]
                        + " contributed a different length");
            }
        }
        long a = blockStart(len, me, k);
        long b = blockStart(len, me + 1, k);
        if (a < b) {
            fold(seg, resultAt(me, ch.round), a, (b - a) / esize);
        }
        heldFrom = from;
        heldLen = len;
        heldRound = ch.round;
    }

    /** Folds bytes [a, a + count·esize) of this round's slices, in ascending process order, into the mapping at out. */
    private void fold(MemorySegment seg, long out, long a, long count) {
        // one pass over the first 16 sources, then out with the next 15 (as Ops.Fold)
        int k = members.length;
        int p = 0;
        int j = 0;
        for (; p < k && j < srcs.length; p++, j++) {
            srcs[j] = seg;
            srcOffs[j] = data[p] + a;
        }
        reducer.reduceMany(seg, out, srcs, srcOffs, j, count);
        while (p < k) {
            srcs[0] = seg;
            srcOffs[0] = out;
            j = 1;
            for (; p < k && j < srcs.length; p++, j++) {
                srcs[j] = seg;
                srcOffs[j] = data[p] + a;
            }
            reducer.reduceMany(seg, out, srcs, srcOffs, j, count);
        }
    }

    /** Copies every process's folded block of the held slice into this process's receive buffer. */
    private void copyOut(MemorySegment seg) {
        if (heldLen == 0) {
            return;
        }
        int k = members.length;
        for (int q = 0; q < k; q++) {
            long a = blockStart(heldLen, q, k);
            long b = blockStart(heldLen, q + 1, k);
            if (a < b) {
                MemorySegment.copy(seg, resultAt(q, heldRound), dst, dstOff + (heldFrom - lo) + a, b - a);
            }
        }
        heldLen = 0;
    }

    @Override
    boolean holdsResults() {
        return true;
    }

    /** After every peer's done of the last round: their folds of the last slice are written. */
    @Override
    void finish() {
        copyOut(ch.seg());
        super.finish();
    }
}
