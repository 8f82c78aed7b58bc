package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Direct (single-copy) allgather: every rank copies block j straight from rank j's send buffer into
 * block j of its receive buffer — one copy per block per receiver, p·b bytes per rank, the minimum for
 * thread ranks [HMPI §1]. Peers read my send buffer until they publish DONE, so every rank waits for all
 * DONEs before returning. In place (my send buffer is block r of my receive buffer) my own block is not
 * copied.
 *
 * <p>Every rank copies the blocks in the same ascending order 0, 1, …, p−1 (its own in its turn), so
 * the p readers of block j read it at about the same time: when the working set exceeds the cache, the
 * first reader of a line brings it into the shared L3 and the others hit it there — HMPI's synergistic
 * prefetching [HMPI §2.2] — and a send buffer comes from DRAM about once instead of up to p times, as
 * long as the readers stay within the cache of each other. With blocks larger than their share of the
 * cache they do not reliably: at 64 MiB per rank (p = 2, 32 MiB blocks) {@link PushAllgather}, which
 * reads every block exactly once, was 15–20% faster (4.2 against 5.0–5.1 ms), so the model counts p
 * reads of every block there. (A rotated order, rank r starting at block r+1, spreads the readers of a block out in
 * time, so a large block is evicted between its reads.) Readers that drift apart re-synchronise by
 * themselves: the one behind hits L3 and catches up, so no lock-step strip-mining is needed. Copy-out
 * uses non-temporal stores iff W = p·b + p·p·b exceeds the cache [YHCCL §4.2], which also keeps the
 * send buffers' lines in L3 for the slower readers instead of the receive buffers'.
 */
public final class DirectAllgather extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectAllgather() {
        super(Collective.ALLGATHER, NAME, "each rank copies every block straight from its owner", "[HMPI §1, §2.2]");
    }

    /** W: the p send buffers (block bytes each) and the p receive buffers (p blocks each). */
    static long workingSet(int p, long block) {
        return (long) p * block * (1 + p);
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long block = bytes / p;
        long ws = workingSet(p, block);
        // every rank copies p blocks; DRAM: every receive buffer written, each send buffer read once while
        // synergy holds — while a block fits its share of the cache, so that a reader a few MiB behind still
        // hits the first one's lines — and by every reader beyond (see the class comment)
        long sendReads = block > m.cacheCapacity() / p ? (long) p * bytes : (long) p * block;
        // two hand-overs on the critical path, as in the direct reduce: the peers' ANNOUNCEs before the first
        // copy and the DONE round before returning (peers read my send buffer until then); the pipelined
        // allgather, which copies through scratch, defers its DONE to the next use of the slot
        return CopyCost.exchange(m, p, bytes, ws, CopyCost.copyOut(m, bytes, ws), sendReads + (long) p * bytes);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long block = call.bytes();
        boolean nt = call.copy().useNonTemporal(workingSet(p, block), false);
        for (int j = 0; j < p; j++) {
            if (j == r) {
                Transfers.copy(call, call.send(), 0, call.recv(), r * block, block, nt);
                continue;
            }
            // acquire: rank j's send buffer is ready and published with its announce
            call.await(j, ControlBlock.ANNOUNCE, 0);
            call.record("copy", j);
            Transfers.copy(call, call.peerSend(j), 0, call.recv(), j * block, block, nt);
        }
        if (p == 1) {
            return;
        }
        // release: I no longer read other ranks' send buffers
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
