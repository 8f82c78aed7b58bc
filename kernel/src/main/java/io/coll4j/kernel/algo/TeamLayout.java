package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.TeamShape;
import io.coll4j.topology.PlacementPlan;
import io.coll4j.topology.Pu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the ranks of a team sit: which package and NUMA node each rank's PU belongs to, and the ranks
 * grouped by package and by NUMA node (groups in ascending order of their lowest rank, members
 * ascending). The hierarchical algorithms [HMPI §2, YHCCL §3.3] use these groups so that cross-package
 * traffic happens once per package, at the top of a tree.
 */
public final class TeamLayout {
    private final int size;
    private final int[] packageGroupOf;
    private final int[][] packageGroups;
    private final int[] numaGroupOf;
    private final int[][] numaGroups;
    private final int[] packageMajor;
    private final int[] packageMajorIndex;
    private final TeamShape shape;

    private TeamLayout(int[] pkgKey, int[] numaKey) {
        this(pkgKey, numaKey, 1, pkgKey);
    }

    /** {@code llcKey[r]}: the last-level cache of rank r's PU (any key; equal keys share the cache). */
    private TeamLayout(int[] pkgKey, int[] numaKey, int ranksPerPu, int[] llcKey) {
        this.size = pkgKey.length;
        this.packageGroupOf = new int[size];
        this.packageGroups = group(pkgKey, packageGroupOf);
        this.numaGroupOf = new int[size];
        this.numaGroups = group(numaKey, numaGroupOf);
        this.packageMajor = new int[size];
        this.packageMajorIndex = new int[size];
        int v = 0;
        for (int[] g : packageGroups) {
            for (int r : g) {
                packageMajor[v] = r;
                packageMajorIndex[r] = v++;
            }
        }
        int most = 0;
        for (int[] g : packageGroups) {
            most = Math.max(most, g.length);
        }
        int llcs = (int) Arrays.stream(llcKey).distinct().count();
        this.shape = new TeamShape(size, packageGroups.length, most, Math.min(ranksPerPu, size),
                Math.max(packageGroups.length, Math.min(llcs, size)));
    }

    /**
     * The rank at position {@code v} of the package-major order: package groups one after another, members
     * ascending. Numbering ranks this way keeps partners at small distances (r xor 1, r xor 2, …) inside a
     * package [HMPI §2.3, Fig. 5]; with a compact placement it is the identity.
     */
    public int packageMajor(int v) {
        return packageMajor[v];
    }

    /** Position of {@code rank} in the package-major order (inverse of {@link #packageMajor}). */
    public int packageMajorIndex(int rank) {
        return packageMajorIndex[rank];
    }

    /** True when every package holds the same number of ranks and there are at least two packages. */
    public boolean uniformPackages() {
        return shape.twoLevel();
    }

    /** The layout of a placement plan (synthetic topologies included: grouping needs no binding). */
    public static TeamLayout of(PlacementPlan plan) {
        int n = plan.ranks();
        int[] pkg = new int[n];
        int[] numa = new int[n];
        int[] llc = new int[n];
        for (int r = 0; r < n; r++) {
            Pu pu = plan.pu(r);
            pkg[r] = pu.pkg();
            numa[r] = pu.numa();
            // no L3 known: one per package, as TeamShape's shorter constructors assume
            llc[r] = pu.l3() >= 0 ? pu.l3() : -1 - pu.pkg();
        }
        return new TeamLayout(pkg, numa, plan.maxRanksPerPu(), llc);
    }

    /** Every rank in one package and one NUMA node. */
    public static TeamLayout flat(int size) {
        return new TeamLayout(new int[size], new int[size]);
    }

    /** An explicit layout: {@code packageOf[r]} and {@code numaOf[r]} are arbitrary keys (tests). */
    public static TeamLayout explicit(int[] packageOf, int[] numaOf) {
        if (packageOf.length != numaOf.length) {
            throw new IllegalArgumentException("packageOf and numaOf differ in length");
        }
        return new TeamLayout(packageOf.clone(), numaOf.clone());
    }

    private static int[][] group(int[] key, int[] groupOf) {
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int r = 0; r < key.length; r++) {
            groups.computeIfAbsent(key[r], k -> new ArrayList<>()).add(r);
        }
        int[][] out = new int[groups.size()][];
        int g = 0;
        for (List<Integer> members : groups.values()) {
            out[g] = members.stream().mapToInt(Integer::intValue).toArray();
            for (int r : out[g]) {
                groupOf[r] = g;
            }
            g++;
        }
        return out;
    }

    public int size() {
        return size;
    }

    public int packageCount() {
        return packageGroups.length;
    }

    /** Dense package-group index of {@code rank} (0 .. packageCount-1, ordered by lowest member). */
    public int packageGroupOf(int rank) {
        return packageGroupOf[rank];
    }

    /** Ranks in package group {@code g}, ascending. */
    public int[] packageMembers(int g) {
        return packageGroups[g].clone();
    }

    /** The package master of group {@code g}: its lowest rank. */
    public int packageMaster(int g) {
        return packageGroups[g][0];
    }

    /** Ranks and packages as the cost functions see them ({@link TeamShape}). */
    public TeamShape shape() {
        return shape;
    }

    public int numaCount() {
        return numaGroups.length;
    }

    public int numaGroupOf(int rank) {
        return numaGroupOf[rank];
    }

    public int[] numaMembers(int g) {
        return numaGroups[g].clone();
    }

    /**
     * HMPI's two-stage broadcast [HMPI §2.2, Fig. 4]: the rank whose copy {@code r} reads. Ranks of the
     * root's package read the root; a package master reads the root (one cross-package copy per
     * package); the other ranks read their package master.
     */
    public int twoStageSource(int r, int root) {
        int g = packageGroupOf[r];
        if (g == packageGroupOf[root]) {
            return root;
        }
        int master = packageGroups[g][0];
        return r == master ? root : master;
    }

    /** True for the ranks others read from in {@link #twoStageSource}: the root, and the masters of other packages that have members. */
    public boolean twoStageRelay(int r, int root) {
        if (r == root) {
            return true;
        }
        int g = packageGroupOf[r];
        return g != packageGroupOf[root] && packageGroups[g][0] == r && packageGroups[g].length > 1;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("packages ");
        for (int[] g : packageGroups) {
            sb.append(Arrays.toString(g));
        }
        sb.append(", numa ");
        for (int[] g : numaGroups) {
            sb.append(Arrays.toString(g));
        }
        return sb.toString();
    }
}
