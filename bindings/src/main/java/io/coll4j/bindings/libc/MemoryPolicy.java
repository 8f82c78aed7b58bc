package io.coll4j.bindings.libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * NUMA placement of pages through the raw Linux syscalls ({@code mbind}, {@code move_pages}), for
 * the binder that works without hwloc (hwloc itself uses the same two syscalls on Linux).
 * Ranges must be page aligned ({@link #pageSize()}); callers cut a page-aligned sub-range.
 */
public final class MemoryPolicy {
    private MemoryPolicy() {
    }

    /** True on Linux where coll4j knows the syscall numbers of this architecture. */
    public static boolean isAvailable() {
        return System.getProperty("os.name", "").startsWith("Linux")
                && Libc.SYS_MBIND > 0 && Libc.SYS_MOVE_PAGES > 0 && Libc.has("syscall");
    }

    /** The base page size ({@code getpagesize}). */
    public static int pageSize() {
        return Libc.getpagesize();
    }

    /**
     * {@code mbind(range, MPOL_BIND, {node}, MPOL_MF_MOVE)}: future faults in the range allocate on
     * {@code node} and pages already touched are migrated there.
     *
     * @throws IllegalArgumentException when the range is not page aligned or is a heap segment
     * @throws LibcException            with errno (EINVAL: bad node; EIO/EFAULT: pages could not move)
     */
    public static void bind(MemorySegment range, int node) {
        bind(range, node, true);
    }

    /**
     * {@code mbind(range, MPOL_BIND, {node}, migrate ? MPOL_MF_MOVE : 0)}: without {@code migrate} only the
     * policy is set (future faults), pages already touched stay where they are — and the call takes neither
     * the migration's page-list drain on every CPU nor the mmap lock for long.
     */
    public static void bind(MemorySegment range, int node, boolean migrate) {
        checkRange(range);
        if (node < 0) {
            throw new IllegalArgumentException("node: negative NUMA node " + node);
        }
        int words = node / 64 + 1;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(words * 8L, 8);
            mask.setAtIndex(ValueLayout.JAVA_LONG, node / 64, 1L << (node % 64));
            MemorySegment cs = Libc.allocateCallState(arena);
            // maxnode: the kernel reads maxnode-1 bits (mm/mempolicy.c get_nodes), hence the +1
            long r = Libc.syscall(cs, Libc.SYS_MBIND, range.address(), range.byteSize(), Libc.MPOL_BIND,
                    mask.address(), words * 64L + 1, migrate ? Libc.MPOL_MF_MOVE : 0);
            if (r != 0) {
                throw new LibcException("mbind", Libc.errno(cs));
            }
        }
    }

    /**
     * The NUMA node of every page of {@code range} ({@code move_pages} with no target nodes, which
     * only queries): a node number, or a negative errno for a page that is not (yet) backed
     * ({@code -ENOENT} = -2 for a page never touched).
     */
    public static int[] pageNodes(MemorySegment range) {
        if (range.isNative() && range.byteSize() == 0) {
            return new int[0];
        }
        if (!range.isNative()) {
            throw new IllegalArgumentException("range: a heap segment has no fixed NUMA placement");
        }
        long page = pageSize();
        long first = range.address() & -page;
        long end = range.address() + range.byteSize();
        int count = Math.toIntExact((end - first + page - 1) / page);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pages = arena.allocate(ValueLayout.ADDRESS, count);
            for (int i = 0; i < count; i++) {
                pages.setAtIndex(ValueLayout.JAVA_LONG, i, first + i * page);
            }
            MemorySegment status = arena.allocate(ValueLayout.JAVA_INT, count);
            MemorySegment cs = Libc.allocateCallState(arena);
            long r = Libc.syscall(cs, Libc.SYS_MOVE_PAGES, 0, count, pages.address(), 0, status.address(), 0);
            if (r < 0) {
                throw new LibcException("move_pages", Libc.errno(cs));
            }
            return status.toArray(ValueLayout.JAVA_INT);
        }
    }

    private static void checkRange(MemorySegment range) {
        if (!range.isNative()) {
            throw new IllegalArgumentException("range: a heap segment cannot be bound to a NUMA node");
        }
        long page = pageSize();
        if ((range.address() & (page - 1)) != 0 || (range.byteSize() & (page - 1)) != 0 || range.byteSize() == 0) {
            throw new IllegalArgumentException("range: [0x" + Long.toHexString(range.address()) + ", +"
                    + range.byteSize() + ") is not a non-empty page-aligned range (page " + page + " bytes)");
        }
    }
}
