package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.PackageCrossing;
import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Direct allreduce: a reduce-scatter and an allgather with no copy-in, because thread ranks share one
 * address space [YHCCL §3.3–3.4, HMPI §1]. The vector is cut into p blocks of whole cache lines
 * ({@link Tiles}); rank i owns block i. The owner reads block i of every rank's send buffer in place,
 * folds it in ONE k-ary pass and writes the result once, into block i of its own receive buffer; then
 * every rank copies the other blocks straight from their owners' receive buffers. Blocks are
 * strip-mined into slices of I = min(s/p, I_max) ({@link Slicing}); after folding each slice a rank
 * copies every result slice its owner has published meanwhile, so the copies overlap the owners' folds
 * of later slices and read each result while it is still in the owner's L2 or the shared L3.
 *
 * <h2>Data access volume [YHCCL §3, Table 2]</h2>
 * Loads plus stores per node: the folds load p·s and store s, the copy-out loads and stores (p−1)·s
 * each: s·(3p − 1) — 5s at p = 2 — against s·(5p − 1) = 9s for the MA allreduce, whose processes must
 * first copy every input into shared memory. DRAM traffic when W = 2·p·s exceeds the cache C: the p·s
 * of send buffers read once, the p·s of receive buffers written once, plus the owners' blocks read for
 * ownership (RFO) before the temporal fold writes them — p·s·2 + s, s more than the minimum.
 *
 * <h2>Stores [YHCCL §4.2]</h2>
 * The copy-out goes through the adaptive copy: non-temporal iff W &gt; C (a receive buffer is not
 * re-read by the collective). The fold's output is re-read at once by the p−1 copiers, so it is written
 * temporally. For W &gt; C {@link PushAllreduce} is the better schedule: the owner streams its result
 * into every receive buffer itself, which saves the s of RFO traffic and every per-slice hand-over.
 *
 * <h2>Protocol (rank r; n_q = slices of block q, n = n_0 the most)</h2>
 * <pre>
 * await every rank's ANNOUNCE                     // send and receive buffers published
 * for j in 0..n_r−1:
 *     streaming: copy out (waiting) every slice &lt; j − L   // bounded lag, see below
 *     fold slice j of block r of all send buffers, ranks 0..p−1 → my recv block r
 *     publish ARRIVE j                              // release: result slice j is ready
 *     copy out (not waiting) every slice whose owner has published it, in order
 * copy out (waiting) the rest
 * publish DONE; await every rank's DONE            // nobody reads my buffers any more
 * copy out = for slices k = 0, 1, …, for owners q ≠ r ascending: acquire q's ARRIVE ≥ k,
 *            copy q.recv slice k of block q → my recv (NT iff W &gt; C)
 * </pre>
 * Every line has one writer and its steps rise in program order. Waits point only at folds, and a fold
 * waits for nothing but the copy-out of earlier slices, so there is no cycle. A rank whose peers are
 * behind (descheduled on a shared or oversubscribed machine) keeps folding its own slices instead of
 * idling, and copies theirs when they arrive; when W &gt; C it stays at most L = C / (4·p·I) slices
 * ahead of its copy-out, so the results it has yet to copy are still in the LLC. All ranks copy in the
 * same order, so the p−1 readers of a result slice read it at about the same time [HMPI §2.2].
 *
 * <h2>In place (send == recv on a rank) is safe</h2>
 * Rank j writes slice k of block i of its buffer — which is also the send slice owner i reads — only
 * after acquiring owner i's ARRIVE k, which owner i publishes after its fold of slice k: that fold is
 * the only read of the memory by anyone. The owner's own block is read and written by its own fold
 * alone, with exact aliasing of destination and source, which the k-ary pass allows (every element is
 * read before it is written), and no other rank reads that block of the owner's send buffer.
 *
 * <p>Reduction order: every element is the scalar left fold x0 op x1 op … op x(p−1) in ascending rank
 * order, computed once and copied — bitwise the reference on every rank, so no separate reproducible
 * mode is needed.
 *
 * <p>Buffers and memory: peers read my send buffer (folds) and my receive buffer (copy-out) until they
 * publish DONE, so every rank waits for all DONEs before returning. No scratch: nothing but the
 * caller's buffers is touched, so no extra memory at all, let alone proportional to p × message size.
 */
public final class DirectAllreduce extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectAllreduce() {
        super(Collective.ALLREDUCE, NAME, "owners fold their block of all send buffers in place, slice by slice; everyone copies the blocks straight from their owners",
                "[YHCCL §3.4, §4.2]");
    }

    /** The slice I for blocks of {@code blockBytes}: min(s/p, I_max) in whole lines. */
    static long slice(long blockBytes, long maxSlice) {
        return Slicing.of(blockBytes, 1, maxSlice).slice();
    }

    /** W of [YHCCL §4.2]: the p send and the p receive buffers; nothing else is touched. */
    static long workingSet(int p, long bytes) {
        return 2L * p * bytes;
    }

    private static long slices(long bytes, long slice) {
        return (bytes + slice - 1) / slice;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        // the k-ary fold of my block, counted as TiledAllreduce counts it [HMPI Eq. 11]: p + 1 streams of s/p bytes
        double fold = m.foldTime(block, p, ws);
        // copy-out of the p − 1 other blocks (NT iff W > C), which their owners folded during this call
        double copies = CopyCost.copyOutPeerWritten(m, bytes - block, ws / p, ws);
        // DRAM: send buffers read once, receive buffers written once, the owners' blocks read for ownership
        double dram = CopyCost.dram(m, 2L * p * bytes + bytes, ws);
        // ANNOUNCE, the first ARRIVE and the DONE round; later slices' flags are mostly set when polled
        long n = Math.max(1, slices(block, slice(block, m.defaultMaxSliceBytes())));
        double sync = 3 * CopyCost.flag(m) + (n + 2) * CopyCost.poll(m, p - 1);
        return m.callOverhead() + sync + Math.max(fold + copies, dram);
    }

    /**
     * On several packages [HMPI §2.1]: each package's DRAM serves its ranks, and two all-to-all passes
     * (the owners read their block of every send buffer, every rank copies the other blocks from their owners) cross packages for the remote peers' share; 3 dependent hand-overs cross at a_β.
     */
    @Override
    public PackageCrossing crossing(MachineModel m, TeamShape shape, long bytes) {
        return new PackageCrossing(CopyCost.allToAllCrossing(shape, bytes, 2), 3);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (Transfers.alone(call)) {
            return;
        }
        int r = call.rank();
        int es = call.dtype().size();
        Tiles tiles = Tiles.of(call.count(), p, es);
        long slice = slice(tiles.perTile() * es, call.team().maxSliceBytes());
        boolean nt = call.copy().useNonTemporal(workingSet(p, call.bytes()), false);
        long rounds = slices(tiles.length(0) * es, slice);
        long mine = slices(tiles.length(r) * es, slice);
        // acquire: every rank's send and receive buffer, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
                call.record("copy", q);
            }
        }
        long lag = nt ? maxLag(call.copy().cacheCapacity(), p, slice) : Long.MAX_VALUE;
        long end = rounds * p;                       // copy cursor: slice c / p of block c % p is next
        long cursor = 0;
        for (long j = 0; j < mine; j++) {
            if (j > lag) {
                // bounded lag: the results I have yet to copy must still be in cache
                cursor = copyOut(call, tiles, slice, cursor, (j - lag) * p, nt, true);
            }
            fold(call, tiles, slice, j);
            // release: result slice j is in my receive buffer; pairs with the peers' copy-out
            call.publish(ControlBlock.ARRIVE, j);
            cursor = copyOut(call, tiles, slice, cursor, end, nt, false);
        }
        copyOut(call, tiles, slice, cursor, end, nt, true);
        // release: I no longer read any rank's buffers; pairs with every rank's final await
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }

    /**
     * How many slices a rank's copy-out may fall behind its own folds when W &gt; C: the owners' results
     * not yet copied, at most lag + 1 slices of each of p blocks, stay within a quarter of the cache.
     */
    static long maxLag(long cacheCapacity, int p, long slice) {
        return Math.max(1, cacheCapacity / (4L * p * slice));
    }

    /** Folds slice j of my block of every send buffer, ranks in ascending order, into my receive buffer. */
    private static void fold(CollectiveCall call, Tiles tiles, long slice, long j) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        long off = tiles.start(r) * es + j * slice;
        long len = Math.min(slice, tiles.end(r) * es - off);
        call.foldStart();
        for (int q = 0; q < p; q++) {
            call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
        }
        call.foldInto(call.recv(), off, len / es);
    }

    /**
     * Copies result slices from their owners' receive buffers into mine, in the order slice 0 of blocks
     * 0..p−1, slice 1 of blocks 0..p−1, …, from {@code cursor} (slice cursor / p of block cursor % p) up
     * to {@code limit}; my own block is skipped. With {@code wait} it waits for each owner's ARRIVE,
     * otherwise it stops at the first slice not yet published. Returns the new cursor.
     */
    private static long copyOut(CollectiveCall call, Tiles tiles, long slice, long cursor, long limit, boolean nt,
                                boolean wait) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        MemorySegment recv = call.recv();
        for (; cursor < limit; cursor++) {
            long j = cursor / p;
            int q = (int) (cursor % p);
            long off = tiles.start(q) * es + j * slice;
            long len = Math.min(slice, tiles.end(q) * es - off);
            if (q == r || len <= 0) {
                continue;
            }
            if (wait) {
                // acquire: pairs with owner q's ARRIVE j — its result slice is complete
                call.await(q, ControlBlock.ARRIVE, j);
            } else if (!call.test(q, ControlBlock.ARRIVE, j)) {
                break;
            }
            Transfers.copy(call, call.peerRecv(q), off, recv, off, len, nt);
        }
        return cursor;
    }
}
