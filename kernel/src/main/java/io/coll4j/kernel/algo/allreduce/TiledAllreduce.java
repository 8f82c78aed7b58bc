package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Tiled reduce-broadcast [HMPI §2.4, Eq. 8–11]: "each thread [...] compute[s] sequentially one tile of the final
 * result and then broadcast it to all threads". The vector is cut into p tiles of whole cache lines; rank i waits for
 * every rank's entry (its send buffer is published with the announce), folds tile i of all p send
 * buffers in ONE k-ary pass (ascending rank order) into its scratch and publishes RELEASE; then every
 * rank copies every tile from its owner's scratch into its receive buffer.
 *
 * <p>Reduction order: the scalar left fold x0 op x1 op … op x(p−1), element by element — bitwise the
 * reference, so it needs no separate reproducible mode. In place is safe: rank j writes tile i of its
 * buffer only after owner i has published, i.e. finished reading tile i everywhere, and no other rank
 * reads it. Tile copies start at one's own tile + 1 so the p copies of one tile are spread out in time.
 */
public final class TiledAllreduce extends AbstractAlgorithm {
    public static final String NAME = "tiled";

    public TiledAllreduce() {
        super(Collective.ALLREDUCE, NAME, "each rank reduces one tile of all inputs, then everyone gathers the tiles", "[HMPI §2.4, Eq. 11]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, 2 * bytes);
        }
        long tile = (bytes + p - 1) / p;
        long ws = 2L * p * bytes + bytes;
        // [HMPI Eq. 8-11] announce (a_α), one k = p fold of my tile (all ranks at once in DRAM: p·s read, the
        // s of scratch read for ownership and written back: B_α·(p+2)·s),
        // release (a_α), then every rank copies the p tiles out (NT stores past the cache: B_α·2p·s); the fold
        // starts with a_α for the first line of the peers' send buffers [HMPI §2.1: a + b·m] (the gather's
        // first line arrives with the RELEASE it waited for: the owner wrote both just before)
        double fold = Math.max(m.foldTime(tile, p, ws), m.dramTime((p + 2L) * bytes, ws));
        // my own tile too: the peers read it from my scratch last, and my fold wrote it for ownership again
        double gather = Math.max(CopyCost.copyOut(m, bytes, ws), m.dramTime(2L * p * bytes, ws));
        return m.callOverhead() + 3 * m.lineLatencySameL3() + CopyCost.poll(m, p - 2) + fold + gather;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        Tiles t = Tiles.of(call.count(), call.size(), call.dtype().size());
        return t.length(call.rank()) * call.dtype().size();
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        if (Transfers.alone(call)) {
            return;
        }
        Tiles tiles = Tiles.of(call.count(), p, es);
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        long n = tiles.length(r);
        if (n > 0) {
            long off = tiles.start(r) * es;
            call.foldStart();
            for (int q = 0; q < p; q++) {
                if (q != r) {
                    call.record("fold", q);
                }
                call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
            }
            call.foldInto(call.scratch(), 0, n);
        }
        // release: my tile of the result; pairs with every rank's await in the gather loop
        call.publish(ControlBlock.RELEASE, 0);
        boolean nt = call.copy().useNonTemporal(2L * p * call.bytes() + call.bytes(), false);
        for (int i = 1; i <= p; i++) {
            int j = (r + i) % p;
            long len = tiles.length(j);
            if (j != r) {
                call.await(j, ControlBlock.RELEASE, 0);
                call.record("copy", j);
            }
            if (len > 0) {
                Transfers.copy(call, j == r ? call.scratch() : call.peerScratch(j), 0, call.recv(), tiles.start(j) * es,
                        len * es, nt);
            }
        }
    }
}
