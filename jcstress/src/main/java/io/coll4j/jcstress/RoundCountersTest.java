package io.coll4j.jcstress;

import io.coll4j.kernel.nb.RoundCounters;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The non-blocking collectives' work stealing ({@link RoundCounters}): two ranks each write their input
 * (plain stores) and post; a rank that sees every post claims items — whichever are left, owner-agnostic —
 * computes each from BOTH ranks' inputs and finishes it; a rank that sees the round complete reads every
 * output. Checked: (1) post → allPosted makes the other rank's input visible to whoever claims an item
 * (a stale input gives a sum of 1 or 2, not 3); (2) finish → complete makes every item's output visible,
 * whichever rank computed it; (3) the round always completes for some rank (no item lost or taken twice).
 * Result per rank: 33 (both outputs, correct) when it saw the round complete, -1 when not (yet).
 */
@JCStressTest
@Outcome(id = {"33, 33", "33, -1", "-1, 33"}, expect = ACCEPTABLE, desc = "a rank that sees the round complete sees every output")
@Outcome(id = "-1, -1", expect = FORBIDDEN, desc = "nobody completed the round: an item was lost")
@Outcome(expect = FORBIDDEN, desc = "a stale input or a missing output")
@State
public class RoundCountersTest {
    private final RoundCounters counters = new RoundCounters(2, 2);
    private final int[] in0 = new int[2];
    private final int[] in1 = new int[2];
    private final int[] out = new int[2];

    private int rank(int[] mine) {
        mine[0] = mine == in0 ? 1 : 2;
        mine[1] = mine == in0 ? 1 : 2;
        counters.post();
        if (counters.allPosted(1)) {
            for (long i = counters.claim(1); i >= 0; i = counters.claim(1)) {
                out[(int) i] = in0[(int) i] + in1[(int) i];
                counters.finish(1);
            }
        }
        if (!counters.complete(1)) {
            return -1;
        }
        return out[0] * 10 + out[1];
    }

    @Actor
    public void rank0(II_Result r) {
        r.r1 = rank(in0);
    }

    @Actor
    public void rank1(II_Result r) {
        r.r2 = rank(in1);
    }
}
