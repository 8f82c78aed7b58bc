package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * Flat small-message allreduce: every rank writes its vector into the inline payload of its own ARRIVE
 * line and publishes it (one hand-over carries data and flag, [HMPI §2]: padded per-rank flag lines), then
 * waits for every peer's ARRIVE line and folds the p values in rank order straight into its receive
 * buffer. It is after PAMI's flat (star) broadcast, in which the root writes and bumps one monotonically
 * increasing counter per task [PAMI §3.4], run in all directions at once. (PAMI's own shared-memory
 * allreduce is a reduce followed by a broadcast [PAMI §3.4]; this is not that.)
 *
 * <p>Why it exists beside {@code dissemination}: it has one round. A rank waits for nobody's fold, only
 * for each peer to have run once; on a team with more ranks than cores, where every round of recursive
 * doubling waits for a partner that is probably descheduled, the whole call is two passes of the
 * scheduler over the ranks (each posts, then each reads) instead of one pass per round. With a core per
 * rank it reads p − 1 lines, which the core's loads overlap. The fold is in rank order, so every rank
 * gets the bits of the scalar reference, reproducible or not.
 *
 * <p>Reuse of a payload half: the half of sequence s is rewritten at s + 2, after the runtime's lag
 * check has seen every rank enter s + 1, i.e. leave s, the only call in which peers read it.
 *
 * <p>The selector offers it only for vectors that fit a line's payload ({@link ControlBlock#INLINE_BYTES},
 * {@link #supports}); forced on a larger one it runs {@link DisseminationAllreduce}.
 *
 * <p>As resumable steps (requests, up to {@link ItemSlicing#STAGE_MAX_BYTES} per rank): the engine's staging
 * region plays the ARRIVE line — each rank copies its vector into its own region and publishes the round in a
 * stamp on the same line — and rank q's part folds the p staged copies in rank order into recv_q. The staged
 * copies are never an alias of a receive buffer, so in place is safe, and a rank's send buffer is free as soon
 * as it posted.
 */
public final class FlatAllreduce extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "flat";
    private static final DisseminationAllreduce LARGE = new DisseminationAllreduce();

    public FlatAllreduce() {
        super(Collective.ALLREDUCE, NAME, "each rank posts its value in its own flag line, all fold the p lines in rank order"
                + " (inline messages)", "after [PAMI §3.4]'s flat bcast, [HMPI §2]");
    }

    @Override
    public boolean supports(int ranks, long count, DType dtype, Op op) {
        return dtype == null || Transfers.inline(count * dtype.size());
    }

    /** One hand-over, then the p − 1 peers' lines polled with overlapping misses; a fold of p inline values. */
    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (!Transfers.inline(bytes)) {
            return LARGE.cost(m, p, bytes) + CopyCost.flag(m);
        }
        if (p == 1) {
            return m.callOverhead();
        }
        return m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, p - 1);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return Transfers.inline(call.bytes()) ? 0 : LARGE.scratchBytes(call);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    /** Inline: the ARRIVE publish carries the value and the check word; nothing else of the call is read. */
    @Override
    public boolean announcesAfterFirstPublish(CollectiveCall call) {
        return Transfers.inline(call.bytes());
    }

    @Override
    public void run(CollectiveCall call) {
        if (!Transfers.inline(call.bytes())) {
            LARGE.run(call);
            return;
        }
        if (Transfers.alone(call)) {
            return;
        }
        int p = call.size();
        int me = call.rank();
        Transfers.copy(call, call.send(), 0, call.control(), call.inlinePayload(me, ControlBlock.ARRIVE), call.bytes(), false);
        // release: my value in my ARRIVE payload; pairs with every peer's await below
        call.publish(ControlBlock.ARRIVE, 0);
        call.foldStart();
        for (int q = 0; q < p; q++) {
            if (q == me) {
                call.foldAdd(call.send(), 0);
            } else {
                call.await(q, ControlBlock.ARRIVE, 0);
                call.record("fold", q);
                call.foldAdd(call.control(), call.inlinePayload(q, ControlBlock.ARRIVE));
            }
        }
        // recv may be send (in place): the fold reads each source element before it writes that element
        call.foldInto(call.recv(), 0, call.count());
    }

    @Override
    public boolean supportsSteps(int ranks, long count, DType dtype, Op op) {
        return dtype == null || count * dtype.size() <= ItemSlicing.STAGE_MAX_BYTES;
    }

    /** The inline cost at any staged size: one hand-over of flag and data, p − 1 staged lines polled. */
    @Override
    public double stepsCost(MachineModel m, TeamShape shape, long bytes) {
        int p = shape.ranks();
        return p == 1 ? m.callOverhead() : m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, p - 1);
    }

    @Override
    public Steps steps(StepCall call) {
        return new Parts(call);
    }

    /** The flat allreduce's parts over the staged vectors (see the class comment). */
    private record Parts(int p, long count, DType dtype, Op op, Reducer reducer, long stagedBytes) implements Steps.Parts {
        Parts(StepCall c) {
            this(c.ranks(), c.count(), c.dtype(), c.op(), c.reducer(), c.count() * c.elementSize());
        }

        @Override
        public void part(ItemWorker w, int q, Steps.Staged in, MemorySegment[] recv) {
            for (int s = 0; s < p; s++) {
                w.source(s, in.segment(), in.at(s));
            }
            w.fold(reducer, dtype, recv[q], 0, p, count);
            Averaging.divide(Collective.ALLREDUCE, op, dtype, q, p, recv[q], 0, count);
        }
    }
}
