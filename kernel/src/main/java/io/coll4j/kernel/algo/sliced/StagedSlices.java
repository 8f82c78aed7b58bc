package io.coll4j.kernel.algo.sliced;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * The staged sliced reduction that the {@code staged-sliced} reduce-scatter, allreduce and reduce share
 * (and that {@code ma-sliced} runs under {@code reproducible(true)}, for its rank-ordered fold): every rank
 * copies ALL p blocks of its send buffer, slice by slice, into its own staging slots, and each owner then
 * folds its block from the p ranks' slots in one k-ary pass. This is the DPML-style staging [YHCCL §3.3]
 * contrasts A' with — copy-in s read + s written = <b>2·s per rank, 2·s·p per node</b> (YHCCL's
 * {@code ma-sliced}, {@link MovementAvoidingReduction}, copies in 2·s per node) — kept because its
 * fold order is the rank order and because thread ranks let the owners write results straight into
 * place. The message is cut into p blocks (block b is reduced by rank b, its owner) and every block into
 * slices of {@code I = max(min(s/p, I_max), line)} bytes ({@link Slicing}); step j handles slice j of
 * every block:
 *
 * <pre>
 * every rank r, step j:
 *     if j ≥ 2: await ARRIVE ≥ j−2 of every owner      // nobody still folds from slot j mod 2
 *     copy slice j of each of my p blocks → my slot (j mod 2, b)     (temporal: re-read at once)
 *     publish RELEASE j                                // release: my copies of slice j are staged
 *     await RELEASE ≥ j of every rank
 *     fold slot (j mod 2, r) of ranks 0..p−1 → destination, ONE k-ary pass   (reduceMany)
 *     publish ARRIVE j                                 // release: result slice j of block r is out
 *     allreduce only: copy slice j−1 of every other block from its owner's receive buffer (NT iff W &gt; C)
 * </pre>
 *
 * Double buffering: the copy-in of slice j+1 (into the other slot) overlaps the owners' folds of slice j
 * (the double buffer of YHCCL's pipelined collectives [YHCCL Alg. 3-4]; the overlap is this
 * implementation's), and the allreduce copy-out of slice j−1 overlaps both. The destination is the owner's receive buffer (allreduce: its block; reduce-
 * scatter: all of it) or, for reduce, the root's receive buffer: threads share one address space, so the
 * owners write the root's result straight into place, all cores folding at once.
 *
 * <p>Data-access volume per rank for allreduce of s bytes (YHCCL's DAV, [YHCCL §3.4, Table 2]): copy-in s read + s
 * written, fold p·s/p read (from cache) + s/p written, copy-out (p−1)/p·s read + written: about
 * (3 + 2(p−1)/p)·s plus the fold, 9s per node at p = 2 where {@code direct} needs 5s; it keeps its
 * working set in cache slices and keeps every core's reads sequential. Scratch: 2 slots × p slices × I per rank (≤ 2·p·I_max, independent of s).
 *
 * <p>Reduction order: the fold adds ranks 0, 1, …, p−1 left to right, so every result element is bitwise
 * the scalar rank-ordered fold (also under {@code reproducible(true)}), on every rank and every run.
 *
 * <p>Buffers: peers read only my scratch (reused two collectives later, after the runtime's lag check)
 * and, for allreduce, my receive buffer — so allreduce ends with a DONE round; reduce's root waits for
 * every owner's last ARRIVE (they write its receive buffer). In place is safe: a rank's send range is
 * overwritten (by its own fold, its own copy-out or, for reduce, by the owners) only after its own copy-in
 * of that slice, which precedes its RELEASE for the step.
 */
public final class StagedSlices {
    /** Slots of the staging ring per owner: double buffering. */
    static final int SLOTS = 2;

    private StagedSlices() {
    }

    /** The p blocks of a call: allreduce/reduce split {@code count} at line granularity; reduce-scatter's are equal. */
    static Tiles blocks(CollectiveCall call) {
        int p = call.size();
        if (call.collective() == Collective.REDUCE_SCATTER) {
            return new Tiles(call.count() * p, p, Math.max(1, call.count()));
        }
        return Tiles.of(call.count(), p, call.dtype().size());
    }

    /** I for the call: YHCCL's rule on the largest block, within the team's I_max. */
    static long slice(CollectiveCall call, Tiles blocks) {
        return Slicing.of(blocks.length(0) * call.dtype().size(), 1, call.team().maxSliceBytes()).slice();
    }

    /** Scratch bytes per parity: 2 slots of p slices (fewer slots when there are fewer steps). */
    public static long scratchBytes(CollectiveCall call) {
        int p = call.size();
        if (p == 1 || call.count() == 0) {
            return 0;
        }
        Tiles blocks = blocks(call);
        long slice = slice(call, blocks);
        long steps = Math.ceilDiv(blocks.length(0) * call.dtype().size(), slice);
        return Math.min(SLOTS, steps) * p * slice;
    }

    /** W of [YHCCL §4.2]: the p send and p receive buffers; the slots stay in cache. */
    static long workingSet(int p, long bytes) {
        return 2L * p * bytes;
    }


    /**
     * YHCCL's DAV cost with the model's rates: every rank copies s in (the sources stream from DRAM past
     * the cache), folds its s/p from p in-cache slots, and (allreduce) copies (p−1)/p·s out; DRAM sees the
     * send buffers read and the results written once; two dependent flag rounds per slice.
     */
    public static double cost(MachineModel m, int p, long bytes, Collective c) {
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        long slice = Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice();
        long n = Math.max(1, Math.ceilDiv(block, slice));
        double copyIn = CopyCost.copyIn(m, bytes, ws);
        // the peers staged my slices one step ago, and (allreduce) the owners folded the slices I copy out one
        // step ago, both with temporal stores at any W: each line is pulled from the writer's cache. Beyond the
        // cache the writer has touched about one step's slices since (p staged, p read); in cache the share of
        // the whole call's footprint is kept, which measured closer (docs/measurements.md, "Behind the code
        // comments")
        long step = 2L * p * slice;
        long touched = ws > m.cacheCapacity() ? step : ws / p;
        double fold = m.foldTime(block, p, step) + CopyCost.peerWrittenRecently(m, (p - 1L) * block, touched);
        double copyOut = c == Collective.ALLREDUCE
                ? CopyCost.copyOut(m, bytes - block, ws) + CopyCost.peerWrittenRecently(m, bytes - block, touched) : 0;
        // results: allreduce writes every receive buffer; reduce-scatter the p blocks, reduce the root's buffer
        // once; the folds' temporal stores read their s bytes of destination for ownership first
        long results = c == Collective.ALLREDUCE ? (long) p * bytes : bytes;
        double dram = CopyCost.dram(m, (long) p * bytes + results + bytes, ws);
        // two dependent hand-overs per slice (RELEASE, then ARRIVE), allreduce's DONE round, and the fold's
        // first line of the peers' slots [HMPI §2.1: a + b·m]
        double rounds = 2.0 * n + (c == Collective.ALLREDUCE ? 1 : 0);
        double sync = rounds * (CopyCost.flag(m) + CopyCost.poll(m, p - 1)) + m.lineLatencySameL3();
        return m.callOverhead() + sync + Math.max(copyIn + fold + copyOut, dram);
    }

    /**
     * Bytes between packages on {@code shape} [HMPI §2.1]: the owners fold from every rank's staging (one
     * all-to-all pass); allreduce copies the other blocks from their owners, reduce's owners write the
     * remote share of s into the root's buffer.
     */
    public static double crossingBytes(TeamShape shape, long bytes, Collective c) {
        double out = c == Collective.ALLREDUCE ? CopyCost.allToAllCrossing(shape, bytes, 1)
                : c == Collective.REDUCE ? bytes * shape.remotePeerShare() : 0;
        return CopyCost.allToAllCrossing(shape, bytes, 1) + out;
    }

    /** Dependent hand-overs that cross packages: two per slice (RELEASE, then ARRIVE). */
    public static double crossingRounds(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        long block = (bytes + p - 1) / p;
        return 2.0 * Math.max(1, Math.ceilDiv(block, Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice()));
    }

    /** Runs the call on this rank (reduce-scatter, allreduce or reduce, as the call says). */
    public static void run(CollectiveCall call) {
        int p = call.size();
        Collective c = call.collective();
        if (p == 1) {
            if (c != Collective.REDUCE_SCATTER || call.send() != call.recv()) {
                Transfers.copy(call, call.send(), 0, call.recv(), 0, call.bytes(), false);
            }
            return;
        }
        if (call.count() == 0) {
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
            return;
        }
        int r = call.rank();
        int es = call.dtype().size();
        Tiles blocks = blocks(call);
        long slice = slice(call, blocks);
        long steps = Math.ceilDiv(blocks.length(0) * es, slice);
        boolean allreduce = c == Collective.ALLREDUCE;
        boolean nt = allreduce && call.copy().useNonTemporal(workingSet(p, (long) blocks.count() * es), false);
        MemorySegment mine = call.scratch();
        MemorySegment dst;
        long dstBase;
        if (c == Collective.REDUCE) {
            // acquire: the root's receive buffer, published with its announce
            call.await(call.root(), ControlBlock.ANNOUNCE, 0);
            dst = call.rank() == call.root() ? call.recv() : call.peerRecv(call.root());
            dstBase = blocks.start(r) * es;
            if (r != call.root()) {
                call.record("fold-into", call.root());
            }
        } else {
            dst = call.recv();
            dstBase = c == Collective.REDUCE_SCATTER ? 0 : blocks.start(r) * es;
        }
        for (long j = 0; j < steps; j++) {
            long slot = (j % SLOTS) * p;
            if (j >= SLOTS) {
                for (int i = 1; i < p; i++) {
                    // acquire: pairs with owner (r+i)'s release of ARRIVE j−2: it no longer folds from slot j mod 2
                    call.await((r + i) % p, ControlBlock.ARRIVE, j - SLOTS);
                }
            }
            for (int b = 0; b < p; b++) {
                long len = length(blocks, b, j, slice, es);
                if (len > 0) {
                    Transfers.copy(call, call.send(), blocks.start(b) * es + j * slice, mine, (slot + b) * slice, len, false);
                }
            }
            // release: my slice j of every block is staged; pairs with the owners' await before their fold
            call.publish(ControlBlock.RELEASE, j);
            call.foldStart();
            for (int q = 0; q < p; q++) {
                if (q != r) {
                    call.await(q, ControlBlock.RELEASE, j);
                    if (j == 0) {
                        call.record("fold", q);
                    }
                }
                // q's scratch is valid once a stamp of this collective from q is acquired (the await above)
                call.foldAdd(q == r ? mine : call.peerScratch(q), (slot + r) * slice);
            }
            long len = length(blocks, r, j, slice, es);
            if (len > 0) {
                call.foldInto(dst, dstBase + j * slice, len / es);
            }
            // release: result slice j of my block is written; pairs with the copy-out / the root's final await
            call.publish(ControlBlock.ARRIVE, j);
            if (allreduce && j > 0) {
                copyOut(call, blocks, slice, j - 1, nt);
            }
        }
        if (allreduce) {
            copyOut(call, blocks, slice, steps - 1, nt);
            // release: I no longer read other ranks' receive buffers; pairs with every rank's final await
            call.publish(ControlBlock.DONE, 0);
            call.awaitAllPeers(ControlBlock.DONE, 0);
        } else if (c == Collective.REDUCE && r == call.root()) {
            // acquire: every owner's last result slice is in my receive buffer
            call.awaitAllPeers(ControlBlock.ARRIVE, steps - 1);
        }
    }

    private static long length(Tiles blocks, int b, long j, long slice, int es) {
        long off = j * slice;
        return Math.max(0, Math.min(slice, blocks.length(b) * es - off));
    }

    /** Allgather phase of allreduce: slice j of every other block, from its owner's receive buffer. */
    private static void copyOut(CollectiveCall call, Tiles blocks, long slice, long j, boolean nt) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        for (int i = 1; i < p; i++) {
            int b = (r + i) % p;
            long len = length(blocks, b, j, slice, es);
            // acquire: pairs with owner b's release of ARRIVE j
            call.await(b, ControlBlock.ARRIVE, j);
            if (len > 0) {
                long off = blocks.start(b) * es + j * slice;
                Transfers.copy(call, call.peerRecv(b), off, call.recv(), off, len, nt);
            }
        }
    }
}
