package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.PerRankItems;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.PackageCrossing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;


/**
 * Push allreduce: the owner of block i folds block i of every rank's send buffer in ONE k-ary pass
 * and writes the result itself into block i of EVERY rank's receive buffer — with non-temporal
 * stores when W &gt; C, through the native streaming fold, which folds 1 KiB into L1 and streams it
 * out to the p destinations [YHCCL §4.1–4.2]. Thread ranks share one address space, so the owner can
 * write its peers' receive buffers as well as read their send buffers [HMPI §1].
 *
 * <h2>Why, next to {@link DirectAllreduce}</h2>
 * DRAM traffic when W &gt; C: the p·s of send buffers read once and the p·s of receive buffers written
 * once, 2·p·s — the minimum for an allreduce, two copies' worth. The direct allreduce moves s more
 * (the owners' result blocks are read for ownership before the temporal fold writes them, and a
 * streaming fold there would push the results to DRAM just before the peers read them back). There
 * is no hand-over of results at all — only the entry and the exit — so the ranks never wait for each
 * other's slices.
 *
 * <p>In cache (W ≤ C) the owner's temporal stores leave its peers' blocks in its own cache, where a
 * benchmark loop that never reads its results keeps them: the lines then never move, and push looks
 * several times faster than {@link DirectAllreduce} (128 KiB, p = 2: 2.6 against 4.4 µs). With
 * {@code collbench --consume}, which reads every result after each call as an application does, the
 * two are equal within the noise from 128 KiB to 4 MiB (e.g. 1 MiB: 101.7 against 101.6 µs best batch)
 * and push is ahead at 8 MiB (432 against 866 µs), where the direct copy-out already misses the cache a
 * shared LLC leaves. Its model is the same work as the direct allreduce's without the per-slice
 * hand-overs, so the selector prefers it at every size the direct allreduce would get.
 *
 * <h2>Protocol (rank r)</h2>
 * <pre>
 * await every rank's ANNOUNCE        // acquire: every send and receive buffer published
 * fold block r of send_0..send_{p-1} (ascending) into block r of recv_0..recv_{p-1}
 * publish DONE; await every DONE     // nobody reads my send buffer or writes my receive buffer any more
 * </pre>
 * The streaming fold ends with {@code sfence}, so its NT stores are ordered before the DONE release;
 * a peer that acquires my DONE sees its receive block complete.
 *
 * <h2>In place is safe</h2>
 * Block r of any rank's send buffer is read by owner r alone, and owner r writes block r of a
 * receive buffer only after reading the same 1 KiB (or, temporally, the whole block) of every source.
 *
 * <p>Reduction order: every element is the scalar left fold in ascending rank order, computed once
 * and copied — bitwise the reference on every rank. No scratch and no extra memory: only the callers'
 * buffers are touched.
 *
 * <h2>As resumable steps (requests)</h2>
 * The same blocks, one per rank ({@link Steps.Items#perRank}): item q folds block q of send_0..send_{p−1} into
 * block q of every receive buffer. Each rank posts with a stamp of its own and does its own block first, as the
 * blocking protocol's ANNOUNCE and DONE; a rank that waits takes the block of a peer that went off to compute.
 * The item reads every source of its block before it writes that block of any receive buffer (1 KiB at a time
 * streaming), so in place is safe as above; NT stores iff W = 2·p·s exceeds the cache [YHCCL §4.2]; AVG is divided
 * per block once it is folded ({@link Averaging}). Why not the engine's finer slices (about four items per rank,
 * claimed from one shared counter): each item costs a claim and a finish on lines both ranks write, and a request
 * awaited at once paid for them — 64 KiB, p = 2, persistent, best batch on a loaded machine (load 10): 5.2 µs
 * sliced against 2.4 per rank, the blocking push 2.2.
 */
public final class PushAllreduce extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "push";

    public PushAllreduce() {
        super(Collective.ALLREDUCE, NAME, "owners fold their block of all send buffers and write it into every receive buffer (NT iff W > C)",
                "[YHCCL §4.1-4.2]");
    }

    /** W of [YHCCL §4.2]: the p send and the p receive buffers; nothing else is touched. */
    static long workingSet(int p, long bytes) {
        return 2L * p * bytes;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        // one pass over my block [HMPI Eq. 11]: the k-ary fold, plus the writes of the result to the p − 1
        // other receive buffers — more destination streams of the same pass when it streams (W > C), a
        // copy's worth of cached stores in cache
        double fold = m.foldTime(block, p, ws) + (ws > m.cacheCapacity()
                ? m.reduceTime(block, ws) * (p - 1) / 3.0
                : CopyCost.copyOut(m, (long) (p - 1) * block, ws));
        // DRAM: send buffers read once, receive buffers written once (NT: no read for ownership)
        double dram = CopyCost.dram(m, 2L * p * bytes, ws);
        double sync = 2 * CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1);
        return m.callOverhead() + sync + Math.max(fold, dram);
    }

    /**
     * The p − 1 blocks of my result that their owners wrote (with temporal stores in cache, so they are
     * still modified in the owners' caches when I read them); each owner touched its block of every send
     * and every receive buffer, W/p bytes.
     */
    @Override
    public double consumeCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        long block = (bytes + p - 1) / p;
        long ws = workingSet(p, bytes);
        return p == 1 ? 0 : CopyCost.consumedPeerLines(m, bytes - block, ws / p, ws, shape.otherLlcPeerShare());
    }

    /**
     * On several packages [HMPI §2.1]: each package's DRAM serves its ranks, and two all-to-all passes
     * (the owners read their block of every send buffer and write it into every receive buffer) cross packages for the remote peers' share; 2 dependent hand-overs cross at a_β.
     */
    @Override
    public PackageCrossing crossing(MachineModel m, TeamShape shape, long bytes) {
        return new PackageCrossing(CopyCost.allToAllCrossing(shape, bytes, 2), 2);
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
        boolean nt = call.copy().useNonTemporal(workingSet(p, call.bytes()), false);
        // acquire: every rank's send and receive buffer, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        call.foldStart();
        for (int q = 0; q < p; q++) {
            if (q != r) {
                call.record("fold", q);
                call.record("write", q);
            }
            call.foldAdd(q == r ? call.send() : call.peerSend(q), tiles.start(r) * es);
        }
        if (tiles.length(r) > 0) {
            call.foldIntoEveryRecv(tiles.start(r) * es, tiles.length(r), nt);
        }
        // release: my block is in every receive buffer and I no longer read any send buffer; pairs with
        // every rank's await below
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }

    @Override
    public Steps steps(StepCall call) {
        return new Items(call);
    }

    /** The push's resumable items, one block per rank (see the class comment). */
    private static final class Items implements PerRankItems {
        private final StepCall c;
        private final int p;
        private final int es;
        private final Tiles tiles;
        private final boolean nonTemporal;

        Items(StepCall c) {
            this.c = c;
            this.p = c.ranks();
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
            long first = tiles.start(q);
            long n = tiles.length(q);
            if (n == 0) {
                return;
            }
            for (int s = 0; s < p; s++) {
                w.source(s, send[s], first * es);
            }
            for (int d = 0; d < p; d++) {
                w.dest(d, recv[d], first * es);
            }
            c.foldToAll(w, p, n, nonTemporal);
            for (int d = 0; d < p; d++) {
                c.divide(d, recv[d], first * es, n);
            }
        }
    }
}
