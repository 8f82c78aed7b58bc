package io.coll4j.jcstress;

import io.coll4j.kernel.nb.IssueWindow;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The issue window's slot reuse ({@link IssueWindow#found} → {@link IssueWindow#allFound}): call 1 is published; rank 0
 * reads its value and records that it found it; rank 1, once every rank has found call 1, claims the slot for call
 * 1 + SIZE and overwrites what call 1's value held (as the claimer of a later call reuses its memory). Checked: a
 * rank's read of a call's slot happens-before the slot's next claimer, so rank 0 never reads the overwrite.
 * Result: what rank 0 read (7), and 1 when rank 1 reused the slot, 0 when it found rank 0 had not found call 1 yet.
 */
@JCStressTest
@Outcome(id = {"7, 0", "7, 1"}, expect = ACCEPTABLE, desc = "rank 0 read call 1's value; the slot was reused after, or not yet")
@Outcome(id = "99, 1", expect = FORBIDDEN, desc = "the slot was reused before rank 0's read of it")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class IssueWindowReuseTest {
    private final IssueWindow<int[]> window = new IssueWindow<>(2);

    public IssueWindowReuseTest() {
        window.claim(1, 0);
        window.publish(1, new int[]{7});
    }

    @Actor
    public void rank0(II_Result r) {
        window.stamp(1);                                  // acquire, as a joiner finds the call
        int[] v = window.value(1);
        r.r1 = v[0];
        window.found(0, 1);
    }

    @Actor
    public void rank1(II_Result r) {
        int[] old = window.value(1);
        window.found(1, 1);
        long next = 1 + IssueWindow.SIZE;
        if (window.allFound(1, 1) && window.claim(next, 1)) {
            old[0] = 99;
            window.publish(next, new int[]{8});
            r.r2 = 1;
        }
    }
}
