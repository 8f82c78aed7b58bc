package io.coll4j.topology;

/**
 * Renders a topology tree the way {@code lstopo-no-graphics} does: two spaces per level, an object
 * with a single child and no memory child printed on one line with it ({@code L2 L#0 (1024KB) + L1d
 * L#0 (32KB) + Core L#0 + PU L#0 (P#0)}), NUMA nodes first among their siblings, and sizes in lstopo's
 * units ({@link #size(long)}).
 */
public final class LstopoFormat {
    private LstopoFormat() {
    }

    /** The whole tree, one object (or merged chain) per line, each line ending in a newline. */
    public static String tree(TopologyNode root) {
        StringBuilder sb = new StringBuilder();
        append(sb, root, 0);
        return sb.toString();
    }

    private static void append(StringBuilder sb, TopologyNode n, int depth) {
        sb.append("  ".repeat(depth)).append(label(n));
        TopologyNode cur = n;
        // lstopo merges a chain of single-child objects onto one line
        while (cur.children().size() == 1 && !cur.children().getFirst().type().isMemory()) {
            cur = cur.children().getFirst();
            sb.append(" + ").append(label(cur));
        }
        sb.append('\n');
        for (TopologyNode c : cur.children()) {
            append(sb, c, depth + 1);
        }
    }

    /** One object as lstopo labels it: "Package L#0", "NUMANode L#0 (P#0 4570MB)", "L3 L#0 (32MB)", "PU L#3 (P#3)". */
    public static String label(TopologyNode n) {
        return switch (n.type()) {
            case MACHINE -> n.memoryBytes() > 0 ? "Machine (" + size(n.memoryBytes()) + " total)" : "Machine";
            case NUMANODE -> "NUMANode L#" + n.logicalIndex() + " (P#" + n.osIndex()
                    + (n.memoryBytes() > 0 ? " " + size(n.memoryBytes()) : "") + ")";
            case CACHE -> n.typeName() + " L#" + n.logicalIndex()
                    + (n.cache().sizeBytes() > 0 ? " (" + size(n.cache().sizeBytes()) + ")" : "");
            case PU -> "PU L#" + n.logicalIndex() + " (P#" + n.osIndex() + ")";
            default -> n.typeName() + " L#" + n.logicalIndex();
        };
    }

    /**
     * lstopo's size text ({@code hwloc_memory_size_printf_value}): KB below 10 MB, MB below 10 GB,
     * GB below 10 TB, else TB, rounded down: 1 MB prints as "1024KB", 32 MB as "32MB".
     */
    public static String size(long bytes) {
        if (bytes < (10L << 20)) {
            return (bytes >> 10) + "KB";
        }
        if (bytes < (10L << 30)) {
            return (bytes >> 20) + "MB";
        }
        if (bytes < (10L << 40)) {
            return (bytes >> 30) + "GB";
        }
        return (bytes >> 40) + "TB";
    }
}
