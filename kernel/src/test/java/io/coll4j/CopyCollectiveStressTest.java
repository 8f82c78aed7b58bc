package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Random sizes up to a few MiB through every bcast and allgather algorithm, back to back on one team:
 * bcasts and allgathers alternate with different forced algorithms, so the scratch buffers of one
 * parity are reused by another algorithm two collectives later, roots and dtypes change from call to
 * call. The team runs on a synthetic two-package machine with a 256 KB L3 ({@link #MACHINE}), so large
 * messages take the non-temporal copy-out paths and the topology-aware algorithms bridge packages (p ≥ 3).
 * Every result is checked against the scalar reference.
 */
class CopyCollectiveStressTest {
    static final String[] BCAST = {"pipelined", "direct", "flat", "two-stage"};
    static final String[] ALLGATHER = {"direct", "push", "pipelined", "shared-copy"};
    /** Largest message: a few MiB per rank. */
    static final long MAX_BYTES = 3L << 20;
    /** Two packages of two cores, cache capacity C = 256 KB: W &gt; C from a few tens of KiB on. */
    static final String MACHINE = "synthetic:pack:2 numa:1 l3:1(size=256KB) core:2 pu:1";

    @Test
    void randomSizesBackToBack() {
        SplittableRandom seeds = new SplittableRandom(20240607);
        int team = 0;
        for (String b : BCAST) {
            for (String a : ALLGATHER) {
                int p = 2 + team++ % 3;                      // 2, 3, 4
                run(p, b, a, seeds.nextLong(), 4);
            }
        }
    }

    static void run(int p, String bcast, String allgather, long seed, int calls) {
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        // maxSliceBytes 4 KiB: a few-MiB message is hundreds of slices
        try (Team team = Team.builder().topology(Topology.load(MACHINE)).ranks(p).timeout(Duration.ofSeconds(60)).maxSliceBytes(4096)
                .algorithm(Collective.BCAST, bcast).algorithm(Collective.ALLGATHER, allgather).build()) {
            team.run(rank -> {
                CollectiveCorrectnessTest.Buffers buffers = new CollectiveCorrectnessTest.Buffers(rank, MAX_BYTES + 64);
                SplittableRandom rnd = new SplittableRandom(seed);      // the same sequence on every rank
                for (int i = 0; i < calls; i++) {
                    DType t = Values.CORE_TYPES.get(rnd.nextInt(Values.CORE_TYPES.size()));
                    boolean large = rnd.nextInt(3) > 0;
                    long bytes = large ? rnd.nextLong(64 * 1024, MAX_BYTES) : rnd.nextLong(0, 5000);
                    CollectiveCorrectnessTest.Variant v = CollectiveCorrectnessTest.Variant.values()[rnd.nextInt(4)];
                    long salt = rnd.nextLong(1, Long.MAX_VALUE);
                    int root = rnd.nextInt(p);
                    long count = bytes / t.size();
                    if (v.appliesTo(Collective.BCAST)) {
                        CollectiveCorrectnessTest.runCase(rank, buffers, Collective.BCAST, count, t, null, v, root, salt,
                                failures);
                    }
                    CollectiveCorrectnessTest.runCase(rank, buffers, Collective.ALLGATHER, count / p, t, null, v, root,
                            salt + 1, failures);
                }
            });
        }
        assertTrue(failures.isEmpty(), () -> "bcast/" + bcast + " + allgather/" + allgather + " p=" + p + ": "
                + failures.size() + " wrong, first: " + failures.stream().limit(5).toList());
    }
}
