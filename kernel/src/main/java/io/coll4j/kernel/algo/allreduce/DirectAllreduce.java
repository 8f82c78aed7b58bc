package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.bcast.CopyCost;
import io.coll4j.kernel.algo.bcast.Slicing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Direct allreduce: a reduce-scatter and an allgather with no copy-in, because thread ranks share one
 * address space [YHCCL §3.3–3.4, HMPI §1]. The vector is cut into p blocks of whole cache lines
 * ({@link Tiles}); rank i owns block i. The owner reads block i of every rank's send buffer in place and
 * folds it in ONE k-ary pass; then every rank copies the other blocks straight from their owners.
 * Blocks are strip-mined into slices of I = min(s/p, I_max) ({@link Slicing}), and rank r's copy-out of
 * slice j−1 of the other blocks follows its own fold of slice j, so the copies overlap the owners'
 * folds of later slices and read each result while it is still in cache.
 *
 * <h2>Two modes, decided once per call by the adaptive-copy rule [YHCCL §4.2]</h2>
 * W = 2·p·s + p·{@link #SLOTS}·I (send and receive buffers, the staging rings).
 * <ul>
 *   <li><b>In cache</b> (W ≤ C): the owner folds slice j straight into block i of its own receive buffer,
 *       and peers copy it from there (temporal stores). Nothing is staged.</li>
 *   <li><b>Streaming</b> (W &gt; C): the owner folds slice j into slot j mod 3 of a ring in its scratch,
 *       which stays in its L2; every rank, the owner included, copies the slot into its receive buffer
 *       with non-temporal stores. A temporal fold straight into a receive buffer that is not in cache
 *       would first read every line of it (RFO) and write it back later, s/p bytes more DRAM traffic
 *       per owner — 25% more than the minimum at p = 2 — and NT-writing the fold output instead would
 *       make the p−1 readers fetch it from DRAM. Staging costs one in-cache pass over s/p.</li>
 * </ul>
 *
 * <h2>Data access volume [YHCCL §3, Table 2]</h2>
 * Loads plus stores per node: the folds load p·s and store s, the copy-out loads and stores (p−1)·s
 * each: s·(3p − 1) — 5s at p = 2 (streaming adds the owners' in-cache pass, s more, none of it DRAM),
 * against s·(5p − 1) = 9s for the MA allreduce, whose processes must copy every input into shared
 * memory first. DRAM traffic when streaming: p·s read, p·s written — the minimum (two copies' worth).
 *
 * <h2>Protocol (rank r; n_q = slices of block q; n = n_0, the most)</h2>
 * <pre>
 * await every rank's ANNOUNCE                        // send buffers (and scratch) published
 * for j in 0..n:
 *     if j &lt; n_r:
 *         streaming, j ≥ 3: await DONE ≥ j−3 of every peer  // nobody still reads slot j mod 3
 *         fold slice j of block r of all send buffers, ranks 0..p−1 → slot j mod 3 | recv block r
 *         publish ARRIVE j                           // release: result slice j is ready
 *     if j ≥ 1: for q in 0..p−1 (slice j−1 of block q exists):
 *         q ≠ r: await q's ARRIVE ≥ j−1; copy its slot / recv slice → my recv (NT iff streaming)
 *         q = r, streaming: copy my slot → my recv (NT)
 *         streaming: publish DONE j−1                // release: I no longer read any slot of slice j−1
 * publish DONE n; await DONE ≥ n of every peer       // nobody reads my buffers any more
 * </pre>
 * Every line has one writer and its steps rise in program order (DONE j−1 &lt; DONE n). The ring
 * cannot deadlock: the fold of slice j waits for DONE j−3, which its peers publish after copying
 * slice j−3, which waited only for folds of slice j−3 — every wait points at a smaller slice index.
 * Three slots leave the ranks two slices of slack before the ring holds an owner back.
 *
 * <h2>In place (send == recv on a rank) is safe</h2>
 * Rank j writes slice k of block i of its buffer (which is also its send slice that owner i reads) only
 * after acquiring owner i's ARRIVE k, published after owner i's fold of slice k — the only read of that
 * memory by anyone. The owner's own block is read and written by its own fold alone, with exact
 * aliasing of destination and source, which the k-ary pass allows (every element is read before it is
 * written); in streaming mode the fold writes the ring and the owner copies back after the fold.
 *
 * <p>Reduction order: every element is the scalar left fold x0 op x1 op … op x(p−1) in ascending rank
 * order — bitwise the reference on every rank (they all copy the owner's bits), so no separate
 * reproducible mode is needed.
 *
 * <p>Buffers and memory: peers read my send buffer (folds), my receive buffer (in cache) and my scratch
 * ring (streaming) until they publish their final DONE, so every rank waits for all of them before
 * returning. Extra memory: the ring, 3·I per rank in streaming mode only (scratch, per parity), nothing
 * proportional to the message.
 */
public final class DirectAllreduce extends AbstractAlgorithm {
    public static final String NAME = "direct";
    /** Staging ring slots in streaming mode: two slices of slack between owner and readers. */
    static final int SLOTS = 3;

    public DirectAllreduce() {
        super(Collective.ALLREDUCE, NAME, "owners fold their block of all send buffers in place, slice by slice; everyone copies the blocks straight from their owners",
                "[YHCCL §3.4, §4.2]");
    }

    /** The slice I for blocks of {@code blockBytes}: min(s/p, I_max) in whole lines. */
    static long slice(long blockBytes, long maxSlice) {
        return Slicing.of(blockBytes, 1, maxSlice).slice();
    }

    /** W: p send and p receive buffers of {@code bytes}, and the p staging rings. */
    static long workingSet(int p, long bytes, long slice) {
        return 2L * p * bytes + (long) p * SLOTS * slice;
    }

    private static long slices(long bytes, long slice) {
        return (bytes + slice - 1) / slice;
    }

    /** Streaming mode for this call (same on every rank: it depends on p, count, dtype and the team only). */
    static boolean streaming(CollectiveCall call) {
        if (call.size() == 1) {
            return false;
        }
        Tiles t = Tiles.of(call.count(), call.size(), call.dtype().size());
        long slice = slice(t.perTile() * call.dtype().size(), call.team().maxSliceBytes());
        return call.copy().useNonTemporal(workingSet(call.size(), call.bytes(), slice), false);
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long slice = slice(block, m.defaultMaxSliceBytes());
        long ws = workingSet(p, bytes, slice);
        boolean stream = ws > m.cacheCapacity();
        // the k-ary fold as TiledAllreduce counts it: p + 1 streams of s/p bytes
        double fold = m.reduceTime((p + 1L) * block, ws);
        // copy-out: the p − 1 other blocks, plus my own from the ring when streaming
        double copies = CopyCost.copyOut(m, stream ? bytes : bytes - block, ws);
        // DRAM: every send buffer read once, every receive buffer written once (NT: no RFO)
        double dram = CopyCost.dram(m, 2L * p * bytes, ws);
        // ANNOUNCE, the first ARRIVE, the final DONE; later slices' flags are mostly set when polled
        long n = Math.max(1, slices(block, slice));
        double sync = 3 * CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1) + (n - 1) * CopyCost.poll(m, p - 1) * (stream ? 2 : 1);
        return sync + Math.max(fold + copies, dram);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (!streaming(call)) {
            return 0;
        }
        Tiles t = Tiles.of(call.count(), call.size(), call.dtype().size());
        long block = t.length(call.rank()) * call.dtype().size();
        if (block == 0) {
            return 0;
        }
        long slice = slice(t.perTile() * call.dtype().size(), call.team().maxSliceBytes());
        return Math.min(SLOTS, slices(block, slice)) * slice;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (p == 1) {
            Transfers.copy(call, call.send(), 0, call.recv(), 0, call.bytes(), false);
            return;
        }
        int r = call.rank();
        int es = call.dtype().size();
        Tiles tiles = Tiles.of(call.count(), p, es);
        long slice = slice(tiles.perTile() * es, call.team().maxSliceBytes());
        boolean stream = call.copy().useNonTemporal(workingSet(p, call.bytes(), slice), false);
        long rounds = slices(tiles.length(0) * es, slice);
        long mine = slices(tiles.length(r) * es, slice);
        // acquire: every rank's send buffer and scratch reference, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
                call.record("copy", q);
            }
        }
        for (long j = 0; j <= rounds; j++) {
            if (j < mine) {
                if (stream && j >= SLOTS) {
                    // acquire: pairs with every peer's DONE j−3 — slot j mod 3 is no longer read
                    call.awaitAllPeers(ControlBlock.DONE, j - SLOTS);
                }
                fold(call, tiles, slice, j, stream);
                // release: result slice j (in my ring or my receive buffer); pairs with the peers' copy-out
                call.publish(ControlBlock.ARRIVE, j);
            }
            if (j >= 1) {
                copyOut(call, tiles, slice, j - 1, stream);
            }
        }
        // release: I no longer read any rank's buffers; pairs with every rank's final await
        call.publish(ControlBlock.DONE, rounds);
        call.awaitAllPeers(ControlBlock.DONE, rounds);
    }

    /** Folds slice j of my block of every send buffer, ranks in ascending order, into my ring or receive buffer. */
    private static void fold(CollectiveCall call, Tiles tiles, long slice, long j, boolean stream) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        long off = tiles.start(r) * es + j * slice;
        long len = Math.min(slice, tiles.end(r) * es - off);
        call.foldStart();
        for (int q = 0; q < p; q++) {
            call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
        }
        if (stream) {
            call.foldInto(call.scratch(), (j % SLOTS) * slice, len / es);
        } else {
            call.foldInto(call.recv(), off, len / es);
        }
    }

    /** Copies slice j of every block into my receive buffer (my own only when it was staged). */
    private static void copyOut(CollectiveCall call, Tiles tiles, long slice, long j, boolean stream) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        MemorySegment recv = call.recv();
        for (int q = 0; q < p; q++) {
            long off = tiles.start(q) * es + j * slice;
            long len = Math.min(slice, tiles.end(q) * es - off);
            if (len <= 0) {
                continue;
            }
            long slot = (j % SLOTS) * slice;
            if (q == r) {
                if (stream) {
                    Transfers.copy(call, call.scratch(), slot, recv, off, len, true);
                }
                continue;
            }
            // acquire: pairs with owner q's ARRIVE j — its result slice is complete
            call.await(q, ControlBlock.ARRIVE, j);
            if (stream) {
                Transfers.copy(call, call.peerScratch(q), slot, recv, off, len, true);
            } else {
                Transfers.copy(call, call.peerRecv(q), off, recv, off, len, false);
            }
        }
        if (stream) {
            // release: I no longer read slot j mod 3 of any ring; pairs with the owners' await before slice j+3
            call.publish(ControlBlock.DONE, j);
        }
    }
}
