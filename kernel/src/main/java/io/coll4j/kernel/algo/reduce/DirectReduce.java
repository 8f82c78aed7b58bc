package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.bcast.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Direct reduce: every rank folds a share of the result straight into the root's receive buffer. The
 * vector is cut into p blocks of whole cache lines ({@link Tiles}); rank i reads block i of every rank's
 * send buffer in place (thread ranks share one address space — no copy-in [YHCCL §3.5]) and folds it
 * in ONE k-ary pass into block i of the root's receive buffer. All p cores work on the reduction
 * instead of the root alone or a tree's log p levels, and no partial result is ever stored.
 *
 * <p>Data access volume per node: p·s loads and s stores — s·(p + 1), against s·(3p + 1) for the MA
 * reduce [YHCCL Table 3], which copies inputs into shared memory and the result out of it.
 *
 * <p>Streaming: when W = p·s + s (send buffers and the root's receive buffer) exceeds C [YHCCL §4.2],
 * the root's buffer is not in cache and not re-read by the collective, so a temporal fold into it would
 * read every line first (RFO) — s more DRAM traffic, a third more than the (p+1)·s minimum at p = 2.
 * Each rank then folds {@link #STAGE_BYTES} at a time into a private staging buffer in its scratch (in
 * L1/L2) and copies it out with non-temporal stores. In cache the fold writes the root's buffer directly.
 *
 * <p>Protocol: await every rank's ANNOUNCE (send buffers and the root's receive buffer are published
 * with it), fold my block, publish DONE, await every rank's DONE — peers read my send buffer and write
 * the root's receive buffer until then. Two flag rounds whatever p is.
 *
 * <p>In place at the root (send == recv) is safe: block i of the root's buffer is read and written only
 * by owner i, by one fold with exact aliasing of destination and source (each element read before it
 * is written), or in streaming mode by a staged strip copied back after it was folded.
 *
 * <p>Reduction order: the scalar left fold x0 op x1 op … op x(p−1), ascending rank order — bitwise the
 * reference, so it needs no separate reproducible mode. Memory: {@link #STAGE_BYTES} of scratch per
 * rank in streaming mode, nothing else.
 */
public final class DirectReduce extends AbstractAlgorithm {
    public static final String NAME = "direct";
    /**
     * Staging strip in streaming mode: large enough that a non-temporal copy's fixed cost (downcall,
     * sfence drain, ~0.2 µs) is small against its 64 KiB, small enough to stay in L2 with the p source
     * strips being read.
     */
    static final long STAGE_BYTES = 64 * 1024;

    public DirectReduce() {
        super(Collective.REDUCE, NAME, "every rank folds its block of all send buffers straight into the root's buffer",
                "[YHCCL §3.5, §4.2]");
    }

    /** W: the p send buffers and the root's receive buffer. */
    static long workingSet(int p, long bytes) {
        return (long) p * bytes + bytes;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        boolean stream = ws > m.cacheCapacity();
        // the k-ary fold, counted as TiledAllreduce does: p + 1 streams of s/p bytes
        double fold = m.reduceTime((p + 1L) * block, ws);
        // streaming: the staged strips go out with NT stores
        double out = stream ? CopyCost.copyOut(m, block, ws) : 0;
        // DRAM: the send buffers read once, the root's buffer written once (NT: no RFO)
        double dram = CopyCost.dram(m, (p + 1L) * bytes, ws);
        double sync = 2 * CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1);
        return sync + Math.max(fold + out, dram);
    }

    static boolean streaming(CollectiveCall call) {
        return call.size() > 1 && call.copy().useNonTemporal(workingSet(call.size(), call.bytes()), false);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (!streaming(call)) {
            return 0;
        }
        Tiles t = Tiles.of(call.count(), call.size(), call.dtype().size());
        return Math.min(STAGE_BYTES, t.length(call.rank()) * call.dtype().size());
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
        int root = call.root();
        int es = call.dtype().size();
        boolean stream = streaming(call);
        // acquire: every send buffer and the root's receive buffer, published with the announces
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
            }
        }
        Tiles tiles = Tiles.of(call.count(), p, es);
        MemorySegment dst = r == root ? call.recv() : call.peerRecv(root);
        long start = tiles.start(r) * es;
        long end = tiles.end(r) * es;
        long strip = stream ? STAGE_BYTES : Math.max(es, end - start);
        for (long off = start; off < end; off += strip) {
            long len = Math.min(strip, end - off);
            call.foldStart();
            for (int q = 0; q < p; q++) {
                call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
            }
            if (stream) {
                call.foldInto(call.scratch(), 0, len / es);
                Transfers.copy(call, call.scratch(), 0, dst, off, len, true);
            } else {
                call.foldInto(dst, off, len / es);
            }
        }
        // release: my block of the root's buffer is written and I no longer read any send buffer
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
