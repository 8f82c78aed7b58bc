package io.coll4j.jcstress;

import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.FlagWait;
import io.coll4j.kernel.sync.Stamp;
import io.coll4j.WaitStrategy;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The real wait loop ({@link FlagWait#await}, the slow path every collective's waits take): a reader that
 * enters the loop before the writer publishes, and leaves it when the stamp arrives, must see the payload
 * written before the publication. Checked causality: {@link ControlBlock#publish}'s release → the
 * acquire-load inside the loop. The loop's deadline (50 ms) only keeps the test bounded if the writer is
 * not scheduled.
 */
@JCStressTest
@Outcome(id = "1, 42", expect = ACCEPTABLE, desc = "the loop returned the stamp; the payload is visible")
@Outcome(id = "-1, -1", expect = ACCEPTABLE_INTERESTING, desc = "the writer was not scheduled within the deadline")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the loop returned the stamp but the payload written before it is not visible")
@State
public class FlagWaitPublicationTest {
    private static final Arena ARENA = Arena.ofAuto();
    private static final long DEADLINE_NANOS = 50_000_000;
    private final ControlBlock ctrl = new ControlBlock(ARENA, 2, 1);
    private final MemorySegment seg = ctrl.segment();
    private final long line = ctrl.offset(1, ControlBlock.ARRIVE);
    private final long payload = ControlBlock.payloadOffset(line, 1);
    private final FlagWait wait = new FlagWait(ctrl, WaitStrategy.spin(), DEADLINE_NANOS, new FlagWait.Watcher() {
        @Override
        public void checkAborted() {
        }

        @Override
        public void scan() {
        }

        @Override
        public RuntimeException interrupted(int peer, int line, long target) {
            return new IllegalStateException("interrupted");
        }

        @Override
        public RuntimeException timedOut(int peer, int line, long target, long waitedNanos) {
            return new IllegalStateException("timed out");
        }
    });

    @Actor
    public void writer() {
        seg.set(ValueLayout.JAVA_LONG, payload, 42L);
        ctrl.publish(line, Stamp.of(1, 0), 7);
    }

    @Actor
    public void reader(JJ_Result r) {
        try {
            r.r1 = Stamp.seq(wait.await(line, Stamp.of(1, 0), 1, ControlBlock.ARRIVE));
            r.r2 = seg.get(ValueLayout.JAVA_LONG, payload);
        } catch (IllegalStateException e) {
            r.r1 = -1;
            r.r2 = -1;
        }
    }
}
