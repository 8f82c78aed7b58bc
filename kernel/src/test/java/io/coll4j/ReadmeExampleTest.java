package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Placement;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's Java example, verbatim apart from the assertions: if it stops compiling or working, this fails. */
class ReadmeExampleTest {

    @Test
    void readmeAllreduceExampleRunsAndSums() {
        long count = 1_000_003;
        AtomicReference<String> why = new AtomicReference<>();
        double[] firstSeen = new double[4];
        // --- README example begins
        try (Team team = Team.builder().ranks(4).placement(Placement.COMPACT).build()) {
            team.run(rank -> {                                  // SPMD: the body runs on every rank's thread
                MemorySegment buf = rank.allocate(count * 8);   // NUMA-local to this rank
                for (long i = 0; i < count; i++) {
                    buf.setAtIndex(ValueLayout.JAVA_DOUBLE, i, rank.id() + 1);
                }
                rank.allreduce(buf, buf, count, DType.F64, Op.SUM);   // in place: every rank gets 1+2+3+4
                CollectivePlan plan = rank.plan(Collective.ALLREDUCE, count, DType.F64, Op.SUM);
                if (rank.id() == 0) {
                    why.set(plan.explain());                    // which algorithm, and the model's predictions
                }
                // --- README example ends
                firstSeen[rank.id()] = buf.getAtIndex(ValueLayout.JAVA_DOUBLE, count - 1);
                rank.barrier();
            });
        }
        for (double v : firstSeen) {
            assertEquals(10.0, v);
        }
        assertTrue(why.get().startsWith("allreduce of 8000024 bytes on 4 ranks: "), why.get());
    }
}
