package io.coll4j.kernel.algo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reduction/broadcast tree over the ranks of a team, mapped onto the topology as [HMPI §2.2, Fig. 3]
 * prescribes: a binomial tree inside every package, rooted at the package's master, and a binomial
 * tree over the package masters, so cross-package edges appear only at the top levels.
 *
 * <p>Binomial: at virtual position {@code v} the children are {@code v + 2^j} for every {@code 2^j}
 * below the lowest set bit of {@code v} (every power of two for {@code v = 0}). Folding a node's own
 * value with its children in ascending {@code j} (one k-ary pass) is the n-ary reduction HMPI
 * recommends with n = 2, done as one pass over memory instead of one per round.
 *
 * <p>For a rooted collective the root becomes the master of its package and its package goes first.
 */
public final class TreeShape {
    private final int root;
    private final int[] parent;
    private final int[][] children;

    private TreeShape(int root, int[] parent, int[][] children) {
        this.root = root;
        this.parent = parent;
        this.children = children;
    }

    /** The hierarchical binomial tree of {@code layout} rooted at {@code root}. */
    public static TreeShape hierarchical(TeamLayout layout, int root) {
        int n = layout.size();
        int[] parent = new int[n];
        Arrays.fill(parent, -1);
        List<List<Integer>> kids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            kids.add(new ArrayList<>());
        }
        int rootGroup = layout.packageGroupOf(root);
        int[] masters = new int[layout.packageCount()];
        int m = 0;
        masters[m++] = root;
        for (int g = 0; g < layout.packageCount(); g++) {
            int[] members = layout.packageMembers(g);
            int master = g == rootGroup ? root : members[0];
            if (g != rootGroup) {
                masters[m++] = master;
            }
            link(order(members, master), parent, kids);
        }
        link(masters, parent, kids);
        int[][] children = new int[n][];
        for (int i = 0; i < n; i++) {
            children[i] = kids.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return new TreeShape(root, parent, children);
    }

    /** A plain binomial tree over ranks 0..n-1 in rank order, rooted at {@code root} (rotated). */
    public static TreeShape binomial(int n, int root) {
        int[] order = new int[n];
        for (int v = 0; v < n; v++) {
            order[v] = (root + v) % n;
        }
        int[] parent = new int[n];
        Arrays.fill(parent, -1);
        List<List<Integer>> kids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            kids.add(new ArrayList<>());
        }
        link(order, parent, kids);
        int[][] children = new int[n][];
        for (int i = 0; i < n; i++) {
            children[i] = kids.get(i).stream().mapToInt(Integer::intValue).toArray();
        }
        return new TreeShape(root, parent, children);
    }

    /** {@code members} with {@code first} moved to the front, the rest in ascending order. */
    private static int[] order(int[] members, int first) {
        int[] out = new int[members.length];
        out[0] = first;
        int i = 1;
        for (int r : members) {
            if (r != first) {
                out[i++] = r;
            }
        }
        return out;
    }

    /** Links a binomial tree over {@code order} (order[0] is its root) into parent/children. */
    private static void link(int[] order, int[] parent, List<List<Integer>> kids) {
        int n = order.length;
        for (int v = 1; v < n; v++) {
            int pv = v & (v - 1);             // clear the lowest set bit
            parent[order[v]] = order[pv];
        }
        for (int v = 0; v < n; v++) {
            int limit = v == 0 ? Integer.highestOneBit(Math.max(n - 1, 1)) << 1 : Integer.lowestOneBit(v);
            for (int step = 1; step < limit && v + step < n; step <<= 1) {
                kids.get(order[v]).add(order[v + step]);
            }
        }
    }

    public int root() {
        return root;
    }

    /** Parent of {@code rank}, -1 for the root. */
    public int parent(int rank) {
        return parent[rank];
    }

    /** Children of {@code rank} in fold order (the returned array must not be modified). */
    public int[] children(int rank) {
        return children[rank];
    }

    /** Height of the tree (edges on the longest root-to-leaf path). */
    public int height() {
        int h = 0;
        for (int r = 0; r < parent.length; r++) {
            int d = 0;
            for (int x = r; parent[x] >= 0; x = parent[x]) {
                d++;
            }
            h = Math.max(h, d);
        }
        return h;
    }
}
