package io.coll4j.jcstress;

import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.Stamp;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import java.lang.foreign.Arena;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * One round of the dissemination barrier at p = 2 (and of recursive doubling's push): each rank writes
 * its data, then publishes a stamp into the OTHER rank's dissemination line (one fixed writer per line),
 * then looks at its own line once. A rank that sees the other's stamp must see the other's data; the
 * stamp cannot be seen by nobody once both have published and both looked (store-buffering: at least
 * one of them sees the other, because setRelease/getAcquire alone would allow both to miss — the
 * barrier therefore waits (spins) instead of looking once, and here that outcome is merely allowed).
 * Result: (rank0 saw stamp, rank0 saw data, rank1 saw stamp, rank1 saw data).
 */
@JCStressTest
@Outcome(id = {"1, 1, 1, 1", "1, 1, 0, 0", "0, 0, 1, 1"}, expect = ACCEPTABLE, desc = "whoever sees the stamp sees the data")
@Outcome(id = "0, 0, 0, 0", expect = ACCEPTABLE_INTERESTING, desc = "both looked before either stamp arrived (why the barrier spins)")
@Outcome(id = {"1, 0, .*", ".*, 1, 0"}, expect = FORBIDDEN, desc = "stamp seen without the data written before it")
@State
public class DisseminationRoundTest {
    private static final Arena ARENA = Arena.ofAuto();
    private final ControlBlock ctrl = new ControlBlock(ARENA, 2, 1);
    private final long stamp = Stamp.of(1, 0);
    private final long line0 = ctrl.offset(0, ControlBlock.FIRST_PEER_LINE);
    private final long line1 = ctrl.offset(1, ControlBlock.FIRST_PEER_LINE);
    private int x;
    private int y;

    @Actor
    public void rank0(IIII_Result r) {
        x = 1;
        ctrl.publish(line1, stamp, 5);
        if (Stamp.reached(ctrl.stampAcquire(line0), stamp)) {
            r.r1 = 1;
            r.r2 = y;
        }
    }

    @Actor
    public void rank1(IIII_Result r) {
        y = 1;
        ctrl.publish(line0, stamp, 5);
        if (Stamp.reached(ctrl.stampAcquire(line1), stamp)) {
            r.r3 = 1;
            r.r4 = x;
        }
    }
}
