package io.coll4j.jcstress;

import io.coll4j.kernel.sync.ControlBlock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The central barrier's arrival: each rank writes its data (plain) and atomically increments the team
 * counter ({@link ControlBlock#addAndGet}, volatile RMW). The rank whose increment completes the count
 * must see the other rank's data — the property that lets every rank leave the barrier knowing every
 * write made before it. Checked causality: the first RMW's release → the second RMW's acquire.
 * Result: (my increment returned 2 ? 1 : 0, the other's data I read when it did).
 */
@JCStressTest
@Outcome(id = {"1, 1", "0, 0"}, expect = ACCEPTABLE, desc = "the last arriver sees the other's data")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the last arriver misses data written before the other arrived")
@State
public class CentralCounterTest {
    private static final Arena ARENA = Arena.ofAuto();
    private final ControlBlock ctrl = new ControlBlock(ARENA, 2, 1);
    private final long counter = ctrl.globalOffset(ControlBlock.CENTRAL);
    private int x;
    private int y;

    @Actor
    public void rank0(II_Result r) {
        x = 1;
        if (ctrl.addAndGet(counter, 1) == 2) {
            r.r1 = 1;
            r.r2 = y;
        }
    }

    @Actor
    public void rank1(II_Result r) {
        y = 1;
        if (ctrl.addAndGet(counter, 1) == 2) {
            r.r1 = 1;
            r.r2 = x;
        }
    }
}
