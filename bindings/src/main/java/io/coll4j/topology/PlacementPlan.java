package io.coll4j.topology;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The PU of every rank of a team.
 *
 * @param topology       the topology it was made for
 * @param placement      the policy that made it
 * @param pus            {@code pus.get(rank)} is the PU of {@code rank}
 * @param oversubscribed true when some PU runs more than one rank
 */
public record PlacementPlan(Topology topology, Placement placement, List<Pu> pus, boolean oversubscribed) {
    public PlacementPlan {
        pus = List.copyOf(pus);
        if (pus.isEmpty()) {
            throw new IllegalArgumentException("pus: a plan needs at least one rank");
        }
    }

    /** How many ranks' PUs {@link #describe()} lists before it abbreviates. */
    public static final int DESCRIBE_MAX_PUS = 16;

    /** The PU of {@code rank}. */
    public Pu pu(int rank) {
        if (rank < 0 || rank >= pus.size()) {
            throw new IllegalArgumentException("rank: " + rank + " not in [0, " + pus.size() + ")");
        }
        return pus.get(rank);
    }

    /** The number of ranks. */
    public int ranks() {
        return pus.size();
    }

    /** The largest number of ranks on one PU. */
    public int maxRanksPerPu() {
        Map<Integer, Integer> perPu = new TreeMap<>();
        pus.forEach(p -> perPu.merge(p.index(), 1, Integer::sum));
        return perPu.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /**
     * One line, e.g. {@code "compact, 4 ranks on P#0,1,2,3 (1 package, 1 NUMA node)"}, with
     * {@code ", oversubscribed: up to 2 ranks per PU"} when it is; the PU list stops after
     * {@value #DESCRIBE_MAX_PUS} ranks.
     */
    public String describe() {
        long pkgs = pus.stream().mapToInt(Pu::pkg).distinct().count();
        long numas = pus.stream().mapToInt(Pu::numa).distinct().count();
        String on = pus.size() <= DESCRIBE_MAX_PUS ? osList(pus)
                : osList(pus.subList(0, DESCRIBE_MAX_PUS)) + ",… (" + (pus.size() - DESCRIBE_MAX_PUS) + " more)";
        String s = placement.name() + ", " + ranks() + " rank" + (ranks() == 1 ? "" : "s") + " on P#" + on
                + " (" + pkgs + " package" + (pkgs == 1 ? "" : "s") + ", " + numas + " NUMA node" + (numas == 1 ? "" : "s") + ")";
        if (!placement.binds()) {
            s += ", not bound";
        }
        if (oversubscribed) {
            s += ", oversubscribed: up to " + maxRanksPerPu() + " ranks per PU";
        }
        return s;
    }

    /** OS indices joined by commas. */
    static String osList(List<Pu> pus) {
        StringBuilder sb = new StringBuilder();
        for (Pu p : pus) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(p.osIndex());
        }
        return sb.toString();
    }
}
