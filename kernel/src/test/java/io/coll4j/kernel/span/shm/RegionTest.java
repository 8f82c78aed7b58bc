package io.coll4j.kernel.span.shm;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The allocation region's free list ({@link Region}): no block it hands out overlaps another live one or leaves the
 * region, whatever the order of takes and gives, and once everything is given back the region is one free block again.
 * A free list fragmented enough that the first fit is an inner node of the tree once made take split the block by its
 * successor's length (a TreeMap entry reads its successor's fields after a removal), and two ranks' 512 KiB buffers
 * overlapped by 20 KiB: a silent wrong allreduce of SharedMappingJobTest under load.
 */
class RegionTest {
    private static final long PAGE = Region.PAGE;
    private static final long START = 64 * PAGE;
    private static final long BYTES = 4096 * PAGE;

    /** Live blocks, start → length (rounded to pages), checked against every new one. */
    private final TreeMap<Long, Long> live = new TreeMap<>();

    private long take(Region r, long size) {
        boolean[] used = new boolean[1];
        long at = r.take(size, used);
        if (at < 0) {
            return at;
        }
        long len = Region.roundUp(size);
        assertTrue(at >= START && at + len <= START + BYTES, "block outside the region: " + at + " + " + len);
        assertEquals(0, at % PAGE, "page aligned");
        var before = live.floorEntry(at);
        var after = live.ceilingEntry(at);
        if (before != null && before.getKey() + before.getValue() > at || after != null && after.getKey() < at + len) {
            fail("block [" + at + ", " + (at + len) + ") overlaps a live one: " + before + ", " + after);
        }
        live.put(at, len);
        return at;
    }

    private void give(Region r, long at) {
        long len = live.remove(at);
        r.give(at, len);
    }

    @Test
    void aFirstFitWithTwoChildrenInTheFreeTreeIsSplitByItsOwnLength() {
        Region r = new Region(START, BYTES);
        long[] pages = new long[5];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = take(r, PAGE);
        }
        // free: page 0, pages 2-3 (coalesced), the fresh tail from page 5; live: pages 1 and 4. The tree's root is
        // the two-page block, with page 0 and the tail as its children: the first fit for two pages is that inner node
        give(r, pages[0]);
        give(r, pages[2]);
        give(r, pages[3]);
        assertEquals(pages[2], take(r, 2 * PAGE));
        assertEquals(pages[0], take(r, PAGE));
        // the remainder of the two-page block is empty: the next page is the tail's first, not live page 4
        assertEquals(pages[4] + PAGE, take(r, PAGE));
        everythingBack(r);
    }

    @Test
    void randomTakesAndGivesNeverOverlapAndCoalesceBackToOneBlock() {
        SplittableRandom rnd = new SplittableRandom(31);
        for (int round = 0; round < 50; round++) {
            Region r = new Region(START, BYTES);
            for (int op = 0; op < 2000; op++) {
                if (!live.isEmpty() && rnd.nextInt(100) < 45) {
                    // a live block picked at random: gives come in any order, as sub-teams close and ranks free
                    long pick = START + rnd.nextLong(BYTES);
                    Long at = live.floorKey(pick);
                    give(r, at != null ? at : live.firstKey());
                } else {
                    // mostly single pages (the collectives' small buffers), now and then a large one
                    long size = rnd.nextInt(10) < 8 ? 1 + rnd.nextLong(PAGE) : PAGE * (1 + rnd.nextInt(160));
                    take(r, size);
                }
            }
            everythingBack(r);
        }
    }

    private void everythingBack(Region r) {
        for (long at : new ArrayList<>(live.keySet())) {
            give(r, at);
        }
        assertEquals(BYTES, r.largestFree(), "every block given back: one free block, the whole region");
        boolean[] used = new boolean[1];
        assertEquals(START, r.take(BYTES, used), "the whole region in one take");
        r.give(START, BYTES);
    }
}
