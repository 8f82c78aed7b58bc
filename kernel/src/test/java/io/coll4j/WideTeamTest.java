package io.coll4j;

import org.junit.jupiter.api.Test;

/**
 * Teams wider than the 16 sources one k-ary pass folds (p = 20): the algorithms that fold all p inputs
 * go through the strip-mined multi-pass fold, including in place; heavily oversubscribed. Each
 * {@link CollectiveCorrectnessTest#check} asserts every element of every rank's result against the scalar
 * reference.
 */
class WideTeamTest {
    @Test
    void foldsOfMoreThanSixteenSources() {
        long[] counts = {1, 13, 1500, 5000};
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "tiled", 20, counts, false);
        CollectiveCorrectnessTest.check(Collective.REDUCE_SCATTER, "direct", 20, counts, false);
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "tree", 20, counts, true);
        CollectiveCorrectnessTest.check(Collective.REDUCE, "tree", 20, counts, true);
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "dissemination", 20, counts, true);
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "direct", 20, counts, false);
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "ma-sliced", 20, counts, false);
        CollectiveCorrectnessTest.check(Collective.REDUCE_SCATTER, "ma-sliced", 20, counts, true);
        CollectiveCorrectnessTest.check(Collective.ALLREDUCE, "push", 20, counts, false);
    }

    /** The native streaming fold with 20 sources and (push) 20 destinations: W &gt; C on a 16 KiB L3. */
    @Test
    void streamingFoldsOfTwentySources() {
        long[] counts = {1, 1500, 5000};
        BandwidthReductionTest.check(Collective.ALLREDUCE, "push", true, 20, 4096, counts);
        BandwidthReductionTest.check(Collective.REDUCE, "direct", true, 20, 4096, counts);
        BandwidthReductionTest.check(Collective.REDUCE_SCATTER, "direct", true, 20, 4096, counts);
    }
}
