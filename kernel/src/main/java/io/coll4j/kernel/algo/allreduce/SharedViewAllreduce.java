package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.allgather.SharedViewAllgather;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * Allreduce into ONE shared result per node, read by every rank in place [MPI+MPI §4.1]: the one-copy
 * window of MPI+MPI applied to a reduction. The vector is cut into p line-aligned tiles ({@link Tiles});
 * rank i folds tile i of every rank's send buffer, in ascending rank order, in one k-ary pass straight into
 * tile i of the shared result (the holder's scratch); the call returns a read-only view of it
 * ({@code Rank.allreduceShared}). Nothing is copied out.
 *
 * <p>What it saves against {@code direct} (the same fold, then every rank copies the p − 1 other tiles
 * into its own receive buffer): the (p − 1)·s of copy-out per rank — (p − 1)·p·s bytes loaded and stored
 * per node — and p − 1 result vectors of memory. It is what Java code written with a shared result array
 * and a {@code CyclicBarrier} does, with a vectorised fold and one flag round instead of two barriers. The
 * per-element fold order is that of {@code direct}: results are bitwise the same.
 *
 * <p>Protocol: await every ANNOUNCE (acquire: every send buffer, and the holder's scratch), fold my tile,
 * publish ARRIVE 0 (release: my tile of the result is written, and I no longer read anyone's send buffer),
 * await every ARRIVE 0. ARRIVE doubles as DONE: once a rank has seen every ARRIVE, nobody reads its send
 * buffer and the whole result is written. Validity of the view as for {@link SharedViewAllgather}: the
 * holder rewrites that scratch only in collective s + 2, after every rank has entered s + 1. Not chosen by
 * the selector ({@code supports} is false): its result is not in a receive buffer.
 */
public final class SharedViewAllreduce extends AbstractAlgorithm {
    public static final String NAME = "shared-view";
    /** The rank whose scratch holds the shared result (the same as the shared-view allgather's). */
    static final int HOLDER = SharedViewAllgather.HOLDER;

    public SharedViewAllreduce() {
        super(Collective.ALLREDUCE, NAME, "each rank folds its tile of all send buffers into one shared result, read in place (read-only view)",
                "[MPI+MPI §4.1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = (p + 1L) * bytes;
        long tile = (bytes + p - 1) / p;
        double fold = Math.max(m.foldTime(tile, p, ws), CopyCost.dram(m, (p + 1L) * bytes, ws));
        return m.callOverhead() + CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1) + fold;
    }

    /** Never picked for an {@code allreduce} into receive buffers. */
    @Override
    public boolean supports(int ranks, long count, DType dtype, Op op) {
        return false;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.rank() == HOLDER ? call.bytes() : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        if (p > 1) {
            // acquire: every rank's send buffer and the holder's scratch, published with the announces
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        }
        int es = call.dtype().size();
        Tiles tiles = Tiles.of(call.count(), p, es);
        long n = tiles.length(r);
        if (n > 0) {
            long off = tiles.start(r) * es;
            call.foldStart();
            for (int q = 0; q < p; q++) {
                if (q != r) {
                    call.record("fold", q);
                }
                call.foldAdd(call.sendOf(q), off);
            }
            if (r != HOLDER) {
                call.record("write-shared", HOLDER);
            }
            call.foldInto(SharedViewAllgather.shared(call), off, n);
        }
        if (p > 1) {
            // release: my tile of the result is in the shared buffer and I no longer read any send buffer;
            // pairs with every rank's await below
            call.publish(ControlBlock.ARRIVE, 0);
            call.awaitAllPeers(ControlBlock.ARRIVE, 0);
        }
    }

    /** The read-only view of the result of the call that just ran on this rank (empty for 0 elements). */
    public static MemorySegment view(CollectiveCall call) {
        return SharedViewAllgather.viewOf(call, call.bytes());
    }
}
