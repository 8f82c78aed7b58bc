package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocTopology;

/**
 * A synthetic machine described to hwloc ({@code hwloc_topology_set_synthetic}), e.g.
 * {@code "pack:2 numa:2 l3:1 core:4 pu:2"}: 2 packages, each with 2 NUMA nodes of one L3 and 4
 * cores of 2 PUs — 32 PUs. hwloc gives caches default sizes (L3 16 MB, 64-byte lines) unless the
 * description sets them ({@code l3:1(size=32MB)}). Binding to it is a no-op.
 *
 * <p>The product of the levels' counts (the PUs) is bounded by {@link #MAX_PUS} before hwloc sees the
 * description: hwloc builds every object, in time that grows faster than their number ({@code pu:4096}
 * took 3.4 s, {@code package:4 pu:4096} 56 s, {@code package:1000 pu:1000} minutes).
 */
public record SyntheticLoader(String description) implements TopologyLoader {
    /** The most PUs (product of the levels' counts) a synthetic description may have. */
    public static final int MAX_PUS = 1 << 12;

    /** @throws IllegalArgumentException when the description has more than {@link #MAX_PUS} PUs */
    public SyntheticLoader {
        long pus = pus(description);
        if (pus > MAX_PUS) {
            throw new IllegalArgumentException("synthetic topology '" + description + "' has "
                    + (pus == Long.MAX_VALUE ? "more than 2^63" : String.valueOf(pus)) + " PUs (the product of its levels' counts);"
                    + " at most " + MAX_PUS + " are accepted");
        }
    }

    /**
     * The product of the counts of {@code description}'s levels ({@code type:count} or a bare count; attributes
     * in parentheses and memory children in brackets skipped), saturating at {@code Long.MAX_VALUE}. Tokens that
     * are not counts are left to hwloc to refuse.
     */
    static long pus(String description) {
        if (description == null) {
            return 1;
        }
        String levels = description.replaceAll("\\([^)]*\\)", " ").replaceAll("\\[[^\\]]*\\]", " ");
        long product = 1;
        for (String token : levels.trim().split("\\s+")) {
            String count = token.substring(token.lastIndexOf(':') + 1);
            if (count.isEmpty() || !count.chars().allMatch(Character::isDigit)) {
                continue;
            }
            long n;
            try {
                n = Long.parseLong(count);
            } catch (NumberFormatException e) {
                return Long.MAX_VALUE;
            }
            product = n != 0 && product > Long.MAX_VALUE / n ? Long.MAX_VALUE : product * n;
        }
        return product;
    }

    @Override
    public Topology load() {
        try (HwlocTopology t = HwlocTopology.loadSynthetic(description)) {
            return new Topology(HwlocLoader.toNode(t.root()),
                    "synthetic:" + description + " (via hwloc " + Hwloc.version() + ")", Topology.Origin.SYNTHETIC);
        }
    }
}
