package io.coll4j.topology;

import io.coll4j.bindings.libc.MemoryPolicy;

import java.lang.foreign.MemorySegment;

/** The whole pages inside a segment: what memory policies apply to. */
final class PageRange {
    private PageRange() {
    }

    /** The page size, cached: it cannot change while the process runs. */
    static final long PAGE = pageSize();

    private static long pageSize() {
        try {
            return MemoryPolicy.pageSize();
        } catch (RuntimeException | LinkageError e) {
            return 4096;   // x86-64 and most AArch64 base pages
        }
    }

    /** The page-aligned sub-segment of {@code seg}, or {@code null} when it holds no whole page. */
    static MemorySegment inside(MemorySegment seg) {
        long start = (seg.address() + PAGE - 1) & -PAGE;
        long end = (seg.address() + seg.byteSize()) & -PAGE;
        if (end <= start) {
            return null;
        }
        return seg.asSlice(start - seg.address(), end - start);
    }

    /** {@code "[0x7f00…000, +8192) (2 pages)"}. */
    static String describe(MemorySegment range) {
        return "[0x" + Long.toHexString(range.address()) + ", +" + range.byteSize() + ") (" + range.byteSize() / PAGE + " pages)";
    }
}
