package io.coll4j.kernel.algo.reducescatterv;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.reducescatter.DirectReduceScatter;
import io.coll4j.kernel.model.MachineModel;

/**
 * Direct reduce-scatter with per-rank counts: rank i reads its block (at {@code recvCounts[0] + … +
 * recvCounts[i−1]}) of every rank's send buffer in place and folds them in ONE k-ary pass, ascending rank
 * order, straight into its receive buffer — p·c_i reads and c_i writes, the minimum; processes must copy
 * in first [YHCCL §3.3, Table 1]. Uneven blocks make the ranks finish at different times; the call takes
 * as long as the largest block.
 *
 * <p>Stores [YHCCL §4.1–4.2]: when W = p·total + total exceeds the cache the fold streams its result with
 * non-temporal stores ({@link CollectiveCall#foldIntoNonTemporal}), no read for ownership of the receive
 * buffer; in cache it stores temporally. Protocol: await every ANNOUNCE, fold, publish DONE, await every
 * DONE (peers read my send buffer until then). Reduction order: the scalar left fold (bitwise the
 * reference). {@code recvCounts} is the same on every rank (its hash is in the check word).
 */
public final class DirectReduceScatterV extends AbstractAlgorithm {
    public static final String NAME = "direct";

    public DirectReduceScatterV() {
        super(Collective.REDUCE_SCATTER_V, NAME, "each rank folds its block of all send buffers in place, one pass", "[YHCCL §3.3]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return DirectReduceScatter.foldCost(m, p, bytes, bytes / p, (long) p * bytes + bytes);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        long es = call.dtype().size();
        BlockLayout me = call.blocks();
        long total = me.recvTotal(p) * es;
        DirectReduceScatter.foldOwnBlock(call, me.recvDispl(call.rank()) * es, (long) p * total + total);
    }
}
