package io.coll4j.topology;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * Which PU each rank of a team runs on.
 * <ul>
 * <li>{@link #COMPACT}: PUs in logical order — neighbours share cores, then L3, then NUMA node, then
 *     package, which keeps a small team inside one cache domain.</li>
 * <li>{@link #SCATTER}: round-robin over packages, then over the NUMA nodes of each package, then
 *     over the L3 caches of each node, then over the cores of each L3, SMT siblings last — spreads
 *     memory bandwidth and LLC capacity over the team.</li>
 * <li>{@link #NONE}: laid out like compact (so grouping by package/L3 still works) but threads are
 *     not bound.</li>
 * <li>{@link #explicit(int...)}: rank i on the PU with the i-th given OS index.</li>
 * </ul>
 * More ranks than PUs is allowed: the order wraps around and the plan says it is oversubscribed.
 */
public sealed interface Placement permits Placement.Compact, Placement.Scatter, Placement.Unbound, Placement.Explicit {

    Placement COMPACT = new Compact();
    Placement SCATTER = new Scatter();
    Placement NONE = new Unbound();

    /**
     * The plan for {@code ranks} ranks on {@code t}.
     *
     * @throws IllegalArgumentException when {@code ranks < 1}, or for an explicit PU that {@code t} lacks
     */
    PlacementPlan plan(Topology t, int ranks);

    /** Whether ranks are bound to their PU ({@link #NONE}: no). */
    boolean binds();

    /** The CLI name: "compact", "scatter", "none", or the explicit list "0,1,3". */
    String name();

    /** Rank i on the PU with the i-th OS index; wraps around when there are more ranks. */
    static Placement explicit(int... osIndices) {
        return new Explicit(osIndices);
    }

    /**
     * Parses {@code compact}, {@code scatter}, {@code none} or a comma-separated OS PU list
     * ({@code 0,1,3}; ranges {@code 0-3} allowed) of at most {@link #MAX_LIST} PUs.
     *
     * @throws IllegalArgumentException naming the text when it is none of these, or a list longer than
     *                                  {@link #MAX_LIST} (refused before a range is expanded)
     */
    static Placement parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("placement: empty (expected compact, scatter, none or a PU list like 0,1,3)");
        }
        String s = text.strip().toLowerCase(Locale.ROOT);
        switch (s) {
            case "compact":
                return COMPACT;
            case "scatter":
                return SCATTER;
            case "none":
                return NONE;
            default:
                break;
        }
        if (!s.matches("[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*")) {
            throw new IllegalArgumentException("unknown placement '" + text.strip()
                    + "' (expected compact, scatter, none or a PU list like 0,1,3)");
        }
        List<Integer> pus = new ArrayList<>();
        long entries = 0;
        for (String part : s.split(",")) {
            int dash = part.indexOf('-');
            try {
                if (dash < 0) {
                    pus.add(Integer.parseInt(part));
                    entries++;
                } else {
                    int a = Integer.parseInt(part.substring(0, dash));
                    int b = Integer.parseInt(part.substring(dash + 1));
                    if (b < a) {
                        throw new IllegalArgumentException("placement: empty range '" + part + "' in '" + text.strip() + "'");
                    }
                    entries += (long) b - a + 1;
                    if (entries <= MAX_LIST) {
                        for (int i = a; i <= b; i++) {
                            pus.add(i);
                        }
                    }
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("placement: PU number too large in '" + text.strip() + "'");
            }
            if (entries > MAX_LIST) {
                // checked before the range is expanded: 0-2000000000 would otherwise fill the heap
                throw new IllegalArgumentException("placement: the PU list '" + abbreviate(text.strip()) + "' names at least " + entries
                        + " PUs; at most " + MAX_LIST + " are accepted");
            }
        }
        return new Explicit(pus.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The longest explicit PU list {@link #parse} accepts (ranges expanded). */
    int MAX_LIST = 1 << 16;

    private static String abbreviate(String t) {
        return t.length() <= 60 ? t : t.substring(0, 57) + "...";
    }

    private static void checkRanks(int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks: must be >= 1, got " + ranks);
        }
    }

    /** Rank r on {@code order[r % order.size()]}. */
    private static PlacementPlan wrap(Topology t, Placement p, List<Pu> order, int ranks) {
        checkRanks(ranks);
        List<Pu> out = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            out.add(order.get(r % order.size()));
        }
        // oversubscribed: some PU runs more than one rank (more ranks than PUs, or a repeated explicit PU)
        return new PlacementPlan(t, p, out, out.stream().distinct().count() < out.size());
    }

    /** PUs in logical order. */
    record Compact() implements Placement {
        @Override
        public PlacementPlan plan(Topology t, int ranks) {
            return wrap(t, this, t.pus(), ranks);
        }

        @Override
        public boolean binds() {
            return true;
        }

        @Override
        public String name() {
            return "compact";
        }
    }

    /**
     * Round-robin over packages, then NUMA nodes, then L3 caches, then cores, then SMT siblings.
     * <pre>
     *   order(machine) = interleave(order(pkg) for each package)
     *   order(pkg)     = interleave(order(numa) for each NUMA node of the package)
     *   order(numa)    = interleave(order(l3) for each L3 of the node)      (one group when there is no L3)
     *   order(l3)      = interleave(PUs of core for each core of the L3)
     *   interleave(l1, l2, …) = l1[0], l2[0], …, l1[1], l2[1], …   (exhausted lists skipped)
     * </pre>
     */
    record Scatter() implements Placement {
        @Override
        public PlacementPlan plan(Topology t, int ranks) {
            return wrap(t, this, order(t.pus()), ranks);
        }

        static List<Pu> order(List<Pu> pus) {
            return interleaveBy(pus, Pu::pkg, byPkg -> interleaveBy(byPkg, Pu::numa,
                    byNuma -> interleaveBy(byNuma, Pu::l3, byL3 -> interleaveBy(byL3, Pu::core, byCore -> byCore))));
        }

        /** Groups {@code pus} by {@code key} (groups in key order, PUs in logical order), orders each group, interleaves. */
        private static List<Pu> interleaveBy(List<Pu> pus, ToIntFunction<Pu> key,
                                             java.util.function.UnaryOperator<List<Pu>> inner) {
            Map<Integer, List<Pu>> groups = new TreeMap<>();
            for (Pu p : pus) {
                groups.computeIfAbsent(key.applyAsInt(p), k -> new ArrayList<>()).add(p);
            }
            List<List<Pu>> ordered = new ArrayList<>();
            for (List<Pu> g : groups.values()) {
                ordered.add(inner.apply(g));
            }
            List<Pu> out = new ArrayList<>(pus.size());
            for (int i = 0; out.size() < pus.size(); i++) {
                for (List<Pu> g : ordered) {
                    if (i < g.size()) {
                        out.add(g.get(i));
                    }
                }
            }
            return out;
        }

        @Override
        public boolean binds() {
            return true;
        }

        @Override
        public String name() {
            return "scatter";
        }
    }

    /** Compact layout, no binding. */
    record Unbound() implements Placement {
        @Override
        public PlacementPlan plan(Topology t, int ranks) {
            return wrap(t, this, t.pus(), ranks);
        }

        @Override
        public boolean binds() {
            return false;
        }

        @Override
        public String name() {
            return "none";
        }
    }

    /** Rank i on OS PU {@code osIndices[i % n]}. */
    record Explicit(int[] osIndices) implements Placement {
        public Explicit {
            if (osIndices == null || osIndices.length == 0) {
                throw new IllegalArgumentException("placement: explicit PU list is empty");
            }
            osIndices = osIndices.clone();
            for (int os : osIndices) {
                if (os < 0) {
                    throw new IllegalArgumentException("placement: negative PU number " + os);
                }
            }
        }

        @Override
        public int[] osIndices() {
            return osIndices.clone();
        }

        @Override
        public PlacementPlan plan(Topology t, int ranks) {
            List<Pu> order = new ArrayList<>();
            for (int os : osIndices) {
                order.add(t.puByOsIndex(os).orElseThrow(() -> new IllegalArgumentException(
                        "placement: PU P#" + os + " is not in the topology (" + t.source() + " has P#"
                                + PlacementPlan.osList(t.pus()) + ")")));
            }
            return wrap(t, this, order, ranks);
        }

        @Override
        public boolean binds() {
            return true;
        }

        @Override
        public String name() {
            return Arrays.stream(osIndices).mapToObj(Integer::toString).reduce((a, b) -> a + "," + b).orElse("");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Explicit e && Arrays.equals(osIndices, e.osIndices);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(osIndices);
        }

        @Override
        public String toString() {
            return "Explicit[" + name() + "]";
        }
    }
}
