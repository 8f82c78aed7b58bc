package io.coll4j.kernel.span.shm;

import java.util.Map;
import java.util.TreeMap;

/**
 * This process's allocation region of the mapping ({@code rank.allocate} of a process team): first fit over a free
 * list of page-aligned blocks, coalesced on free. Only this process allocates in it; its peers read and write the
 * blocks the collectives name to them by offset. Blocks are handed out zeroed, as {@code rank.allocate} promises:
 * the file's pages are zero when first touched, and a block that was used before is cleared when it is reused.
 */
final class Region {
    static final long PAGE = 4096;

    private final long start;
    private final long bytes;
    /** Free blocks: offset in the mapping → length. */
    private final TreeMap<Long, Long> free = new TreeMap<>();
    /** Where no block has been handed out yet (its pages were never touched: zero without clearing). */
    private long fresh;

    Region(long start, long bytes) {
        this.start = start;
        this.bytes = bytes;
        this.fresh = start;
        if (bytes > 0) {
            free.put(start, bytes);
        }
    }

    long start() {
        return start;
    }

    long bytes() {
        return bytes;
    }

    /**
     * The offset of a block of {@code size} bytes (rounded up to a page), or -1 when no free block is that large.
     * {@code needsClearing[0]} says whether it was used before.
     */
    synchronized long take(long size, boolean[] needsClearing) {
        long want = roundUp(size);
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            if (e.getValue() >= want) {
                // key and length before the removal: removing an inner node of the tree moves its successor's key and
                // value into the entry object e still points to (java.util.TreeMap.deleteEntry), so e.getValue() after
                // it is the next free block's length, and the remainder put back overlapped live blocks
                long at = e.getKey();
                long len = e.getValue();
                free.remove(at);
                if (len > want) {
                    free.put(at + want, len - want);
                }
                needsClearing[0] = at < fresh;
                fresh = Math.max(fresh, at + want);
                return at;
            }
        }
        return -1;
    }

    /** Returns a block of {@link #take}'s {@code size} at {@code at}, merged with its free neighbours. */
    synchronized void give(long at, long size) {
        long len = roundUp(size);
        Map.Entry<Long, Long> before = free.floorEntry(at);
        if (before != null && before.getKey() + before.getValue() == at) {
            at = before.getKey();
            len += before.getValue();
            free.remove(at);
        }
        Long after = free.get(at + len);
        if (after != null) {
            free.remove(at + len);
            len += after;
        }
        free.put(at, len);
    }

    /** The largest free block (for the message when a request does not fit). */
    synchronized long largestFree() {
        long max = 0;
        for (long v : free.values()) {
            max = Math.max(max, v);
        }
        return max;
    }

    static long roundUp(long size) {
        return Math.max(PAGE, (size + PAGE - 1) / PAGE * PAGE);
    }
}
