package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Direct reduce: every rank folds a share of the result straight into the root's receive buffer. The
 * vector is cut into p blocks of whole cache lines ({@link Tiles}); rank i reads block i of every rank's
 * send buffer in place (thread ranks share one address space — no copy-in [YHCCL §3.5]) and folds it
 * in ONE k-ary pass into block i of the root's receive buffer. All p cores work on the reduction at
 * once — at p = 2 both cores, where a tree has the root fold alone — and no partial result is stored.
 *
 * <p>Data access volume per node: p·s loads and s stores — s·(p + 1), against s·(3p + 1) for the MA
 * reduce [YHCCL Table 3], which copies inputs into shared memory and the result out of it.
 *
 * <p>Stores [YHCCL §4.1–4.2]: in cache (W = p·s + s ≤ C) the fold writes the root's buffer temporally,
 * where the root will read it. Beyond, a temporal store would read every line of the root's buffer for
 * ownership first (s more DRAM traffic), so the fold streams: the native streaming fold folds 1 KiB
 * into L1 and writes it with non-temporal stores ({@link CollectiveCall#foldIntoNonTemporal}). An
 * earlier version staged 64 KiB strips in Java and NT-copied them in a second downcall; that was about
 * 15% slower than the temporal fold, because the sources stopped streaming while a strip was copied
 * out. No strip-mining of the protocol: there is no second phase to overlap.
 *
 * <p>Protocol: await every rank's ANNOUNCE (send buffers and the root's receive buffer are published
 * with it), fold my block, publish DONE, await every rank's DONE — peers read my send buffer and write
 * the root's receive buffer until then. Two flag rounds whatever p is.
 *
 * <p>In place at the root (send == recv) is safe: block i of the root's buffer is read and written only
 * by owner i, in one fold with exact aliasing of destination and source (each element is read before
 * it is written).
 *
 * <p>Reduction order: the scalar left fold x0 op x1 op … op x(p−1), ascending rank order — bitwise the
 * reference, so it needs no separate reproducible mode. Memory: none beyond the caller's buffers.
 */
public final class DirectReduce extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectReduce() {
        super(Collective.REDUCE, NAME, "every rank folds its block of all send buffers straight into the root's buffer",
                "[YHCCL §3.5]");
    }

    /** W: the p send buffers and the root's receive buffer. */
    static long workingSet(int p, long bytes) {
        return (long) p * bytes + bytes;
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
        // DRAM: the send buffers read once, the root's buffer written once (streamed: no read for ownership)
        double dram = CopyCost.dram(m, (p + 1L) * bytes, ws);
        double sync = 2 * CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1);
        return m.callOverhead() + sync + Math.max(fold, dram);
    }

    /** The root reads the p − 1 blocks of its result the other ranks folded into it (each touched p + 1 blocks). */
    @Override
    public double consumeCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        long block = (bytes + p - 1) / p;
        return p == 1 ? 0 : CopyCost.consumedPeerLines(m, bytes - block, (p + 1L) * block, workingSet(p, bytes), shape.otherLlcPeerShare());
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
        int root = call.root();
        int es = call.dtype().size();
        // acquire: every send buffer and the root's receive buffer, published with the announces
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
            }
        }
        Tiles tiles = Tiles.of(call.count(), p, es);
        long n = tiles.length(r);
        if (n > 0) {
            long off = tiles.start(r) * es;
            call.foldStart();
            for (int q = 0; q < p; q++) {
                call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
            }
            MemorySegment dst = r == root ? call.recv() : call.peerRecv(root);
            if (call.copy().useNonTemporal(workingSet(p, call.bytes()), false)) {
                call.foldIntoNonTemporal(dst, off, n);
            } else {
                call.foldInto(dst, off, n);
            }
        }
        // release: my block of the root's buffer is written and I no longer read any send buffer
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
