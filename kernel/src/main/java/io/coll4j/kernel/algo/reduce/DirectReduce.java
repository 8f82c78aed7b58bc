package io.coll4j.kernel.algo.reduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

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
 *
 * <h2>As resumable steps (requests)</h2>
 * The same blocks, one per rank ({@link Steps.Items#perRank}): item q folds block q of send_0..send_{p−1} into
 * block q of the root's receive buffer, NT as above; a rank posts, does its own block, and a rank that waits takes
 * a late peer's. Up to {@link ItemSlicing#STAGE_MAX_BYTES} per rank the contributions travel in the ranks' staged
 * lines instead ({@link Steps.Parts}): the root's part folds the p staged copies in rank order, the others have
 * nothing to compute, so a non-root's request completes once it posted — one hand-over, where the blocks in place
 * would cost a post and a DONE for a vector that is one block anyway. AVG is divided once a block (or the root's
 * part) is folded ({@link Averaging}). The fold order is rank order on both shapes, as above.
 */
public final class DirectReduce extends AbstractAlgorithm implements Resumable {
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

    /** Staged: one hand-over, the root polls the p − 1 staged lines; in place: the blocking protocol's cost. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        return ItemSlicing.staged(bytes) ? ItemSlicing.stagedCost(m, shape.ranks() - 1) : cost(m, shape, bytes);
    }

    @Override
    public Steps steps(StepCall call) {
        return ItemSlicing.staged(call.count() * call.elementSize()) ? new Parts(call) : new Items(call);
    }

    /** The root folds the staged vectors (see the class comment). */
    private record Parts(int p, int root, long count, DType dtype, Op op, Reducer reducer, long stagedBytes)
            implements Steps.Parts {
        Parts(StepCall c) {
            this(c.ranks(), c.root(), c.count(), c.dtype(), c.op(), c.reducer(), c.count() * c.elementSize());
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            if (q != root) {
                return;
            }
            for (int s = 0; s < p; s++) {
                w.source(s, in.segment(), in.at(s));
            }
            w.fold(reducer, dtype, recv[q], 0, p, count);
            Averaging.divide(Collective.REDUCE, op, dtype, q, p, recv[q], 0, count);
        }
    }

    /** Block q of every send buffer folded into the root's buffer, one item per rank (see the class comment). */
    private static final class Items implements PerRankItems {
        private final StepCall c;
        private final int p;
        private final int root;
        private final int es;
        private final Tiles tiles;
        private final boolean nonTemporal;

        Items(StepCall c) {
            this.c = c;
            this.p = c.ranks();
            this.root = c.root();
            this.es = c.elementSize();
            this.tiles = Tiles.of(c.count(), p, es);
            this.nonTemporal = c.copy().useNonTemporal(workingSet(p, c.count() * es), false);
        }

        @Override
        public int ranks() {
            return p;
        }

        @Override
        public void item(ItemWorker w, long i, MemorySegment[] send, MemorySegment[] recv) {
            int q = (int) i;
            long off = tiles.start(q) * es;
            long n = tiles.length(q);
            if (n == 0) {
                return;
            }
            for (int s = 0; s < p; s++) {
                w.source(s, send[s], off);
            }
            w.dest(0, recv[root], off);
            c.foldToAll(w, 1, n, nonTemporal);
            c.divide(root, recv[root], off, n);
        }
    }
}
