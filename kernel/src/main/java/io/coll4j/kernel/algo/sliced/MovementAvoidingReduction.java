package io.coll4j.kernel.algo.sliced;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.Stamp;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * YHCCL's movement-avoiding reduction, algorithm A' [YHCCL §3.2–3.3, Fig. 6; Alg. 2 for allreduce], that
 * the {@code ma-sliced} reduce-scatter, allreduce and reduce share. It is written for ranks that cannot
 * read each other's buffers (processes): a rank reads and writes only its OWN send and receive buffers and
 * the shared slices — never a peer's send or receive buffer.
 *
 * <p>The message is cut into p blocks (block b is the result of rank b, its owner) and every block into
 * slices of {@code I = max(min(s/p, I_max), line)} bytes ({@link Slicing}); chunk c is the slice group
 * {@code G_c} = slice c of every block. Block b's shared slice for chunk c lives in its owner's scratch
 * (slot c mod 2). Chunk c takes p steps; in step j rank r works on block {@code b = (r − 1 − j) mod p}:
 *
 * <pre>
 * every rank r, chunk c, step j = 0 .. p−1, b = (r − 1 − j) mod p, t = c·p + j:
 *   j = 0:      shared[b] ← send_r[b]                 the ONE copy-in of this tree  (temporal: re-read at once)
 *   0 &lt; j &lt; p−1: await ARRIVE ≥ t − 1 of rank r − 1 (it wrote shared[b] in step j − 1)
 *               shared[b] ← shared[b] op send_r[b]     in place, no copy
 *   j = p−1 (b = r): await as above, then
 *               reduce-scatter: recv_r ← shared[r] op send_r[r]    (C = A + B into my receive buffer)
 *               allreduce, reduce: shared[r] ← shared[r] op send_r[r]
 *   publish ARRIVE t                                   // release: my step on shared[b] is written
 * allreduce (every rank), reduce (the root), after chunk c:
 *   for every block b: await ARRIVE ≥ c·p + p − 1 of owner b; recv[b] ← shared[b]   (NT iff W &gt; C)
 *   publish RELEASE c                                  // release: I no longer read slot c mod 2
 * </pre>
 *
 * This is Alg. 2 mirrored (Alg. 2 works on block {@code (r + 1 + j) mod p}): the ranks visit block b in
 * ascending order b + 1, b + 2, …, b − 1 and the owner comes last, so the reduce-scatter's last step is the
 * owner's {@code C = A + B} into its own receive buffer, as in [YHCCL §3.3], and the reduction order is
 * a rotation of the rank order (below).
 *
 * <p><b>Copy-in volume: s/p read + s/p written = 2·s/p per rank, 2·s per node</b> — one slice copy per
 * reduction tree, the minimum of [YHCCL Thm 3.1]. The rest is in-place accumulation: (p − 1) slice
 * reductions of s/p per rank. Allreduce adds Alg. 2's copy-out, s read + s written per rank (2·s·p per node,
 * [YHCCL §3.4]); reduce adds the root's, 2·s [YHCCL §3.5]. DAV per node: reduce-scatter s·(3p − 1)
 * [YHCCL Table 1], allreduce s·(5p − 1) [Table 2], reduce s·(3p + 1) [Table 3]. (Thread ranks that can read
 * each other's buffers need no copy-in at all: {@code direct}.)
 *
 * <p>Synchronisation: one hand-over per step from the left neighbour, c·p + j on its ARRIVE line (the
 * chain r − 1 → r carries every earlier write to shared[b] transitively), so a chunk costs p dependent
 * hand-overs. Shared slots are double-buffered by chunk parity: a step-0 copy into slot c mod 2 waits, for
 * allreduce, until every rank has published RELEASE c − 2 (its copy-out of that slot), for reduce until the
 * root has; reduce-scatter needs no wait (the owner's last read of slot c − 2 precedes its ARRIVE of chunk
 * c − 1 step 0, which the writer awaited in step 1 of chunk c − 1). A rank first writes owner b's scratch
 * after acquiring b's ANNOUNCE (which published that scratch).
 *
 * <p>Reduction order: block b is {@code ((x(b+1) op x(b+2)) op …) op x(b)}, indices mod p — the same
 * operands in the same order on every rank and every run (allreduce ranks copy the one shared result, so
 * all hold the same bits); block p − 1 is exactly the rank-ordered left fold, the others a rotation of it,
 * so float sums differ from the rank-ordered fold in the last bits. With {@code reproducible(true)} the
 * {@code ma-sliced} algorithms run {@link StagedSlices} instead, whose order is the rank-ordered fold.
 *
 * <p>Scratch: 2 slots × I per rank (≤ 2·I_max, independent of s; p·I shared memory per chunk, as
 * [YHCCL §3.3] states). Buffers: peers write and read only my scratch (reused two collectives later, after
 * the runtime's lag check), never my send or receive buffers, so a rank may return as soon as its own
 * part is done. In place is safe: a rank overwrites its send range (its final step, its copy-out) only
 * after it has read that range in the same chunk, and nobody else reads it.
 */
public final class MovementAvoidingReduction {
    /** Slots of the shared slice ring per owner: double buffering by chunk parity. */
    static final int SLOTS = 2;

    private MovementAvoidingReduction() {
    }

    /**
     * I for the call: {@link StagedSlices#slice}'s rule, grown for huge messages so every step number
     * {@code c·p + j} is a publishable stamp step.
     */
    static long slice(CollectiveCall call, Tiles blocks) {
        long blockBytes = blocks.length(0) * call.dtype().size();
        long floor = ((blockBytes * call.size() / (Stamp.MAX_STEP / 2)) / Slicing.LINE + 1) * Slicing.LINE;
        return Math.max(StagedSlices.slice(call, blocks), floor);
    }

    /** Scratch bytes per parity: 2 slots of one slice (fewer when there is only one chunk). */
    public static long scratchBytes(CollectiveCall call) {
        int p = call.size();
        if (p == 1 || call.count() == 0) {
            return 0;
        }
        Tiles blocks = StagedSlices.blocks(call);
        long slice = slice(call, blocks);
        return Math.min(SLOTS, Math.ceilDiv(blocks.length(0) * call.dtype().size(), slice)) * slice;
    }

    /** W of [YHCCL §4.3.1, Alg. 2 line 2]: the p send and p receive buffers; the p·I shared slices stay in cache. */
    static long workingSet(int p, long bytes) {
        return 2L * p * bytes;
    }

    /** Copy-in bytes per rank, read plus written: 2·s/p (one slice per chunk) [YHCCL Thm 3.1]. */
    public static long copyInBytesPerRank(int p, long bytes) {
        return 2 * ((bytes + p - 1) / p);
    }


    /**
     * The model's time: per rank the copy-in of s/p, p − 1 in-place reductions of s/p (reading the send
     * buffer from DRAM once W &gt; C), and allreduce's copy-out of s (reduce: the root's); DRAM sees the send
     * buffers read once and the results written; p dependent hand-overs per chunk.
     */
    public static double cost(MachineModel m, int p, long bytes, Collective c) {
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        long slice = Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice();
        long n = Math.max(1, Math.ceilDiv(block, slice));
        double copyIn = CopyCost.copyIn(m, block, ws);
        double accumulate = (p - 1) * m.reduceTime(block, ws);
        double copyOut = c == Collective.REDUCE_SCATTER ? 0 : CopyCost.copyOut(m, bytes, ws);
        // results: allreduce writes every receive buffer, reduce the root's, reduce-scatter the p blocks (whose
        // temporal stores read the destination for ownership first)
        long results = c == Collective.ALLREDUCE ? (long) p * bytes : c == Collective.REDUCE ? bytes : 2 * bytes;
        double dram = CopyCost.dram(m, (long) p * bytes + results, ws);
        // every peer's ANNOUNCE first (the scratch), then p dependent neighbour hand-overs per chunk; the copy-out
        // polls every owner once per chunk
        double sync = (n * p + 1) * CopyCost.flag(m) + CopyCost.poll(m, p - 1)
                + (c == Collective.REDUCE_SCATTER ? 0 : n * CopyCost.poll(m, p - 1));
        // the root of a reduce copies alone: the others' work overlaps it only partly, so it is on the path
        return m.callOverhead() + sync + Math.max(copyIn + accumulate + copyOut, dram);
    }

    /**
     * Bytes between packages on {@code shape} [HMPI §2.1]: the accumulations read and write the remote
     * owners' shared slices (two all-to-all passes); allreduce's copy-out reads them once more, reduce's
     * root reads the remote share of s.
     */
    public static double crossingBytes(TeamShape shape, long bytes, Collective c) {
        double copyOut = c == Collective.ALLREDUCE ? CopyCost.allToAllCrossing(shape, bytes, 1)
                : c == Collective.REDUCE ? bytes * shape.remotePeerShare() : 0;
        return CopyCost.allToAllCrossing(shape, bytes, 2) + copyOut;
    }

    /** Dependent hand-overs that cross packages: in lock step, every step of every chunk has a crossing ring edge. */
    public static double crossingRounds(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        long block = (bytes + p - 1) / p;
        return (double) Math.max(1, Math.ceilDiv(block, Slicing.of(block, 1, m.defaultMaxSliceBytes()).slice())) * p;
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
        int left = (r - 1 + p) % p;
        int es = call.dtype().size();
        Tiles blocks = StagedSlices.blocks(call);
        long slice = slice(call, blocks);
        long chunks = Math.ceilDiv(blocks.length(0) * es, slice);
        boolean scatter = c == Collective.REDUCE_SCATTER;
        boolean copiesOut = c == Collective.ALLREDUCE || (c == Collective.REDUCE && r == call.root());
        boolean nt = copiesOut && call.copy().useNonTemporal(workingSet(p, (long) blocks.count() * es), false);
        Reducer red = call.reducer();
        MemorySegment send = call.send();
        for (long ch = 0; ch < chunks; ch++) {
            long slot = (ch % SLOTS) * slice;
            for (int j = 0; j < p; j++) {
                int b = Math.floorMod(r - 1 - j, p);
                long len = length(blocks, b, ch, slice, es);
                long src = blocks.start(b) * es + ch * slice;
                if (ch == 0 && b != r) {
                    // acquire: owner b's scratch for this collective, published with its announce
                    call.await(b, ControlBlock.ANNOUNCE, 0);
                    call.record("accumulate", b);
                }
                MemorySegment shared = b == r ? call.scratch() : call.peerScratch(b);
                if (j == 0) {
                    if (ch >= SLOTS) {
                        awaitSlotFree(call, ch - SLOTS);
                    }
                    if (len > 0) {
                        Transfers.copy(call, send, src, shared, slot, len, false);
                    }
                } else {
                    // acquire: pairs with the left neighbour's release of ARRIVE c·p + j − 1 (its step on block b)
                    call.await(left, ControlBlock.ARRIVE, ch * p + j - 1);
                    if (len > 0) {
                        if (j == p - 1 && scatter) {
                            red.reduce(call.recv(), ch * slice, shared, slot, send, src, len / es);
                        } else {
                            red.reduceInto(shared, slot, send, src, len / es);
                        }
                    }
                }
                // release: my step on block b is written; pairs with the right neighbour's await (and the copy-outs)
                call.publish(ControlBlock.ARRIVE, ch * p + j);
            }
            if (copiesOut) {
                copyOut(call, blocks, slice, ch, slot, nt);
            }
        }
    }

    /** Before the copy-in into slot {@code done} mod 2: its readers (allreduce: everyone; reduce: the root) are done. */
    private static void awaitSlotFree(CollectiveCall call, long done) {
        Collective c = call.collective();
        if (c == Collective.ALLREDUCE) {
            for (int q = 0; q < call.size(); q++) {
                if (q != call.rank()) {
                    // acquire: pairs with q's release of RELEASE `done`: it has copied that slot out
                    call.await(q, ControlBlock.RELEASE, done);
                }
            }
        } else if (c == Collective.REDUCE && call.rank() != call.root()) {
            call.await(call.root(), ControlBlock.RELEASE, done);
        }
    }

    /** Alg. 2 lines 13–16: every block's result slice of chunk {@code ch}, from its owner's shared slot. */
    private static void copyOut(CollectiveCall call, Tiles blocks, long slice, long ch, long slot, boolean nt) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        for (int i = 0; i < p; i++) {
            int b = (r + i) % p;
            if (b != r) {
                // acquire: pairs with owner b's release of its last step on block b of chunk ch
                call.await(b, ControlBlock.ARRIVE, ch * p + p - 1);
                if (ch == 0) {
                    call.record("copy-out", b);
                }
            }
            long len = length(blocks, b, ch, slice, es);
            if (len > 0) {
                Transfers.copy(call, b == r ? call.scratch() : call.peerScratch(b), slot, call.recv(),
                        blocks.start(b) * es + ch * slice, len, nt);
            }
        }
        // release: I no longer read slot ch mod 2; pairs with the step-0 copy-ins of chunk ch + 2
        call.publish(ControlBlock.RELEASE, ch);
    }

    private static long length(Tiles blocks, int b, long ch, long slice, int es) {
        long off = ch * slice;
        return Math.max(0, Math.min(slice, blocks.length(b) * es - off));
    }
}
