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
 * A call published ahead ({@link IssueWindow#publishAhead}): rank 0's call is the shape it was published for and takes
 * it ({@link IssueWindow#take}: its found line, a full fence, the stamp again), rank 1's is another shape and claims the
 * slot over it, then asks whether another rank found the call ({@link IssueWindow#foundByOther}). Checked: never both
 * go on unaware — rank 0 taking the call while rank 1 replaces it without seeing the take would run the two ranks on
 * different exchanges for one call (a hang instead of the mismatch). Result: rank 0 1 when it took the call, 0 when
 * it saw the claim over it (it reports the mismatch); rank 1 2 when it saw the take (it reports the mismatch), 1 when
 * it replaced the call.
 */
@JCStressTest
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "rank 0 took it, rank 1 saw the take: rank 1 reports the mismatch")
@Outcome(id = {"0, 1", "0, 2"}, expect = ACCEPTABLE, desc = "rank 0 saw the claim over it: rank 0 reports the mismatch")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "rank 0 took the call and rank 1 replaced it, neither seeing the other")
@Outcome(expect = FORBIDDEN, desc = "rank 1 could not claim the slot")
@State
public class IssueWindowAheadTest {
    private final IssueWindow<int[]> window = new IssueWindow<>(2);

    public IssueWindowAheadTest() {
        window.claim(1, 0);
        window.publishAhead(1, new int[]{1}, 2);
    }

    @Actor
    public void rank0(II_Result r) {
        r.r1 = window.stamp(1) == 1 && window.ahead(1) && window.take(0, 1) ? 1 : 0;
    }

    @Actor
    public void rank1(II_Result r) {
        if (window.stamp(1) == 1 && window.ahead(1) && window.claim(1, 1)) {
            r.r2 = window.foundByOther(1, 1) ? 2 : 1;
        } else {
            r.r2 = -1;
        }
    }
}
