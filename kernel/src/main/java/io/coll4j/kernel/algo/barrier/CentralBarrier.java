package io.coll4j.kernel.algo.barrier;

import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Oversubscription;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Central counter barrier, the baseline barrier (docs/design.md, "Algorithm catalogue"): every rank atomically increments one team-wide
 * counter and waits until it reaches a multiple of p.
 *
 * <p>Protocol: the counter counts arrivals at central barriers only and never resets; the k-th central
 * barrier's arrivals return values in ((k−1)p, kp], so an arrival with value v waits for
 * ⌈v/p⌉·p. The increment is a volatile read-modify-write (full fence): every write a rank made before
 * the barrier happens-before the acquire-load that observes the final count.
 *
 * <p>Cost: p serialised atomic increments on one line (each a line transfer) plus one broadcast of
 * the line to p−1 waiters: ~ (p + 1)·a.
 *
 * <p>As resumable steps (requests): no items at all — the engine's posted counter is the central counter (each
 * post a volatile RMW on one line, never reset), and a round is complete once it reaches r·p.
 */
public final class CentralBarrier extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "central";

    public CentralBarrier() {
        super(Collective.BARRIER, NAME, "one atomic counter, every rank spins on it", "coll4j baseline");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return m.callOverhead() + (p + 1) * m.lineLatencySameL3();
    }

    /** Oversubscribed: the last arrival releases everyone at once [{@link Oversubscription}]. */
    @Override
    public int waitRounds(int ranks) {
        return 1;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (p == 1) {
            return;
        }
        long v = call.addToGlobal(ControlBlock.CENTRAL, 1);
        long target = ((v - 1) / p + 1) * p;
        call.awaitGlobal(ControlBlock.CENTRAL, target);
    }

    @Override
    public Steps steps(StepCall call) {
        return NO_ITEMS;
    }

    private static final Steps.Items NO_ITEMS = new Steps.Items() {
        @Override
        public long items() {
            return 0;
        }

        @Override
        public void item(ItemWorker w, long i, java.lang.foreign.MemorySegment[] send, java.lang.foreign.MemorySegment[] recv) {
            throw new IllegalStateException("a central barrier has no items");
        }
    };
}
