package io.coll4j.jcstress;

import io.coll4j.kernel.sync.ControlBlock;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Message passing through one control line, the building block of every coll4j algorithm: the writer
 * stores data into the line's inline payload (plain) and {@link ControlBlock#publish publishes} a stamp
 * with its check word (setRelease); a reader that acquires the stamp must see the payload and the check
 * word written before it. Checked causality: publish's release → stampAcquire's acquire.
 */
@JCStressTest
@Outcome(id = "0, -1, -1", expect = ACCEPTABLE, desc = "stamp not yet visible")
@Outcome(id = "1, 42, 7", expect = ACCEPTABLE, desc = "stamp, payload and check word all visible")
@Outcome(id = "1, 0, 7", expect = FORBIDDEN, desc = "stamp visible but the payload written before it is not")
@Outcome(id = "1, 42, 0", expect = FORBIDDEN, desc = "stamp visible but its check word is stale")
@Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "stamp visible, nothing else")
@State
public class StampPublicationTest {
    private static final Arena ARENA = Arena.ofAuto();
    private final ControlBlock ctrl = new ControlBlock(ARENA, 2, 1);
    private final MemorySegment seg = ctrl.segment();
    private final long line = ctrl.offset(1, ControlBlock.ARRIVE);
    private final long payload = ControlBlock.payloadOffset(line, 1);

    @Actor
    public void writer() {
        seg.set(ValueLayout.JAVA_LONG, payload, 42L);
        ctrl.publish(line, 1, 7);
    }

    @Actor
    public void reader(JJJ_Result r) {
        long stamp = ctrl.stampAcquire(line);
        r.r1 = stamp;
        if (stamp == 1) {
            r.r2 = seg.get(ValueLayout.JAVA_LONG, payload);
            r.r3 = ctrl.sig(line);
        } else {
            r.r2 = -1;
            r.r3 = -1;
        }
    }
}
