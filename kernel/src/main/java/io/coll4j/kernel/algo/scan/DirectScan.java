package io.coll4j.kernel.algo.scan;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * Direct scan and exscan: rank r reads the send buffers of ranks 0..r (exscan: 0..r−1) in place and folds
 * them in ONE k-ary pass, ascending rank order, into its receive buffer: no copy-in, one hand-over. None of
 * the seed papers has a scan; this one is coll4j's, built on what thread ranks allow: reading the peers'
 * buffers in place [HMPI §1]. Every rank works at once, so the latency is
 * one ANNOUNCE round and one DONE round; the reads grow with the rank (p(p+1)/2 blocks in all), which is
 * why {@link ChainScan} takes over for large vectors.
 *
 * <p>Protocol: await the ANNOUNCE of every rank I fold (acquire: their send buffers), fold, publish DONE,
 * await the DONE of every higher rank (they read my send buffer until then). In place, when a higher rank
 * still reads my buffer, the result goes to my scratch first and is copied over my buffer after their
 * DONEs. Stores are non-temporal iff W = 2·p·s exceeds the cache [YHCCL §4.2]. Reduction order: the scalar
 * left fold (bitwise the reference); exscan leaves rank 0's receive buffer untouched.
 *
 * <p>As resumable steps (requests, up to {@link ItemSlicing#STAGE_MAX_BYTES} per rank): the engine's staging
 * regions carry the vectors, and rank r's part folds the staged copies of ranks 0..r (exscan: 0..r−1) in one pass:
 * one hand-over of flag and data, and the sources are copies, so in place needs no scratch. Larger requests run
 * {@link ChainScan}'s steps. AVG is divided by the contributions folded into each rank's result ({@link Averaging}).
 */
public final class DirectScan extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "direct";

    public DirectScan(Collective c) {
        super(c, NAME, "each rank folds its predecessors' send buffers in place, one k-ary pass",
                "coll4j (no seed has a scan)");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2L * p * bytes;
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, ws);
        }
        // the last rank folds p vectors; DRAM: p(p+1)/2 reads (synergy is not counted) and p writes
        double fold = Math.max(m.foldTime(bytes, p, ws), m.dramTime((long) p * (p + 1) / 2 * bytes + (long) p * bytes, ws));
        return m.callOverhead() + 3 * m.lineLatencySameL3() + CopyCost.poll(m, p - 2) + fold;
    }

    /** Last rank whose send buffer rank {@code r} folds (−1: none). */
    private static int last(CollectiveCall call) {
        return call.collective() == Collective.EXSCAN ? call.rank() - 1 : call.rank();
    }

    private static boolean staged(CollectiveCall call) {
        return call.inPlace() && call.rank() < call.size() - 1 && last(call) >= 0 && call.count() > 0;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return staged(call) ? call.bytes() : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;          // ANNOUNCEs of every lower rank, DONEs of every higher one
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int last = last(call);
        boolean staged = staged(call);
        if (last >= 0) {
            for (int q = 0; q <= last; q++) {
                if (q != r) {
                    // acquire: rank q's send buffer, published with its announce
                    call.await(q, ControlBlock.ANNOUNCE, 0);
                    call.record("fold", q);
                }
            }
            MemorySegment dst = staged ? call.scratch() : call.recv();
            boolean nt = !staged && call.copy().useNonTemporal(2L * p * call.bytes(), false);
            if (last == 0) {
                Transfers.copy(call, call.sendOf(0), 0, dst, 0, call.bytes(), nt);
            } else {
                call.foldStart();
                for (int q = 0; q <= last; q++) {
                    call.foldAdd(call.sendOf(q), 0);
                }
                if (nt) {
                    call.foldIntoNonTemporal(dst, 0, call.count());
                } else {
                    call.foldInto(dst, 0, call.count());
                }
            }
        }
        if (p == 1) {
            return;
        }
        // release: I no longer read lower ranks' send buffers; pairs with their await below
        call.publish(ControlBlock.DONE, 0);
        for (int q = r + 1; q < p; q++) {
            // acquire: rank q no longer reads my send buffer
            call.await(q, ControlBlock.DONE, 0);
        }
        if (staged) {
            Transfers.copy(call, call.scratch(), 0, call.recv(), 0, call.bytes(), false);
        }
    }

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return dtype == null || ItemSlicing.staged(count * dtype.size());
    }

    /** One hand-over of flag and data, the p − 1 staged lines polled. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        return ItemSlicing.stagedCost(m, shape.ranks() - 1);
    }

    @Override
    public Steps steps(StepCall call) {
        return new Parts(call);
    }

    /** Rank q's part folds the staged vectors 0..q (exscan: 0..q−1) (see the class comment). */
    private record Parts(Collective collective, int p, long count, DType dtype, Op op, Reducer reducer, long stagedBytes)
            implements Steps.Parts {
        Parts(StepCall c) {
            this(c.collective(), c.ranks(), c.count(), c.dtype(), c.op(), c.reducer(), c.count() * c.elementSize());
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            int k = (int) Averaging.contributions(collective, q, p);     // exscan: rank 0's recv is not written
            if (k == 0) {
                return;
            }
            for (int s = 0; s < k; s++) {
                w.source(s, in.segment(), in.at(s));
            }
            w.fold(reducer, dtype, recv[q], 0, k, count);
            Averaging.divide(collective, op, dtype, q, p, recv[q], 0, count);
        }
    }
}
