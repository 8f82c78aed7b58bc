package io.coll4j.kernel.algo.reducescatterv;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

/**
 * Reduce-scatter-v of a whole vector of at most 48 bytes through the flag lines: every rank copies its send
 * vector into the payload of its ARRIVE line and publishes it; every rank then folds its block out of the p
 * payloads (ascending rank order, bitwise the scalar left fold) and returns. One hand-over — flag and data
 * travel in one cache line (the small-message path of the flat broadcast, [PAMI §3.4]) — where the direct
 * algorithm needs two (the ANNOUNCEs, then the DONE round that protects the send buffers it reads): nobody
 * reads a user buffer but its owner. A payload of parity s is rewritten at s + 2, after the runtime's lag
 * check has seen every rank enter s + 1.
 *
 * <p>The selector offers it only for vectors that fit ({@link #supports}, decided on the total of
 * {@code recvCounts}, the same on every rank); forced on a larger one it runs {@link DirectReduceScatterV}.
 */
public final class InlineReduceScatterV extends AbstractAlgorithm {
    public static final String NAME = "inline";
    private static final DirectReduceScatterV LARGE = new DirectReduceScatterV();

    public InlineReduceScatterV() {
        super(Collective.REDUCE_SCATTER_V, NAME, "vectors <= 48 B: every rank's vector in its flag line, each folds its block from the lines",
                "[PAMI §3.4]");
    }

    @Override
    public boolean supports(int ranks, long count, DType dtype, Op op) {
        return Transfers.inline(count * dtype.size());
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (!Transfers.inline(bytes)) {
            return LARGE.cost(m, p, bytes) + CopyCost.flag(m);
        }
        return m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, p - 1);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long es = call.dtype().size();
        BlockLayout me = call.blocks();
        long total = me.recvTotal(p) * es;
        if (!Transfers.inline(total)) {
            LARGE.run(call);
            return;
        }
        Transfers.copy(call, call.send(), 0, call.control(), call.inlinePayload(r, ControlBlock.ARRIVE), total, false);
        // release: my vector in my payload; pairs with every peer's await below
        call.publish(ControlBlock.ARRIVE, 0);
        call.awaitAllPeers(ControlBlock.ARRIVE, 0);
        long off = me.recvDispl(r) * es;
        call.foldStart();
        for (int q = 0; q < p; q++) {
            call.foldAdd(call.control(), call.inlinePayload(q, ControlBlock.ARRIVE) + off);
        }
        call.foldInto(call.recv(), 0, call.count());
    }
}
