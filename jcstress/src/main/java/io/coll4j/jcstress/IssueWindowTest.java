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
 * The non-blocking engine's issue window ({@link IssueWindow}): two ranks issue call 1. Each either claims the slot
 * (CAS of the stamp), fills a value it built with plain stores (its own payload) and publishes it, or finds the call
 * published and reads the value. Checked: (1) exactly one rank claims (the claim is exclusive); (2) a rank that finds
 * the call sees the claimer's value whole — the payload written before the publication (a stale payload reads 0).
 * Result per rank: its rank number + 1 when it claimed, 10 × (the claimer's + 1) plus the payload it read when it
 * found the other's, -1 when it found the claim still being filled (it would wait and look again).
 */
@JCStressTest
@Outcome(id = {"1, 11", "21, 2"}, expect = ACCEPTABLE, desc = "one claimed, the other found its value whole")
@Outcome(id = {"1, -1", "-1, 2"}, expect = ACCEPTABLE, desc = "one claimed, the other saw the claim not yet published")
@Outcome(id = "1, 2", expect = FORBIDDEN, desc = "both claimed the same call")
@Outcome(expect = FORBIDDEN, desc = "a found value without its payload")
@State
public class IssueWindowTest {
    private final IssueWindow<int[]> window = new IssueWindow<>(2);

    private int issue(int rank) {
        long at = window.stamp(1);
        if (at == 0 && window.claim(1, 0)) {
            int[] value = {rank + 1, 0};
            value[1] = 1;
            window.publish(1, value);
            window.found(rank, 1);
            return rank + 1;
        }
        at = window.stamp(1);
        if (at != 1) {
            return -1;
        }
        int[] v = window.value(1);
        window.found(rank, 1);
        return 10 * v[0] + v[1];
    }

    @Actor
    public void rank0(II_Result r) {
        r.r1 = issue(0);
    }

    @Actor
    public void rank1(II_Result r) {
        r.r2 = issue(1);
    }
}
