package io.coll4j.kernel.model;

/**
 * What a cost function needs of where a team's ranks sit: how many ranks, on how many packages (sockets),
 * and how many on each — the inputs of HMPI's two-level terms (a_β, B_β: a line moved, and bytes moved,
 * between packages [HMPI §2.1]). A team whose packages hold different numbers of ranks has no uniform
 * second level ({@link #twoLevel} false); {@code ranksPerPackage} is then its largest package.
 *
 * @param ranks           team size p
 * @param packages        packages holding at least one rank (m of [YHCCL §3.3])
 * @param ranksPerPackage ranks on the largest package (p/m when uniform)
 * @param ranksPerPu      ranks sharing the busiest PU: 1 when every rank has a PU of its own, more on an
 *                        oversubscribed team, whose ranks take turns on their PU (a wait for a rank that is not
 *                        running costs a scheduler hand-over, not a line transfer)
 * @param llcGroups       last-level caches (L3 groups) holding the team's ranks: 1 when they all share one. A line
 *                        a core evicts from its L2 goes to its own L3 (on a non-inclusive L3, as a victim), where a
 *                        reader on another L3 must still fetch it from that cache ({@link #otherLlcPeerShare})
 */
public record TeamShape(int ranks, int packages, int ranksPerPackage, int ranksPerPu, int llcGroups) {
    /** A team whose every rank has a PU of its own, one last-level cache per package. */
    public TeamShape(int ranks, int packages, int ranksPerPackage) {
        this(ranks, packages, ranksPerPackage, 1);
    }

    /** One last-level cache per package (the layout of most servers; a topology without L3 information). */
    public TeamShape(int ranks, int packages, int ranksPerPackage, int ranksPerPu) {
        this(ranks, packages, ranksPerPackage, ranksPerPu, packages);
    }

    public TeamShape {
        if (ranksPerPu < 1 || ranksPerPu > Math.max(1, ranks)) {
            throw new IllegalArgumentException("ranksPerPu must be in 1.." + ranks + ", got " + ranksPerPu);
        }
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
        }
        if (llcGroups < 1 || llcGroups > ranks) {
            throw new IllegalArgumentException("llcGroups must be in 1.." + ranks + ", got " + llcGroups);
        }
        if (packages < 1 || packages > ranks) {
            throw new IllegalArgumentException("packages must be in 1.." + ranks + ", got " + packages);
        }
        if (ranksPerPackage < 1 || ranksPerPackage > ranks || (long) ranksPerPackage * packages < ranks) {
            throw new IllegalArgumentException("ranksPerPackage " + ranksPerPackage + " cannot hold " + ranks
                    + " ranks on " + packages + " packages");
        }
    }

    /** Every rank on one package. */
    public static TeamShape flat(int ranks) {
        return new TeamShape(ranks, 1, ranks);
    }

    /** True when the team spans several packages with the same number of ranks on each. */
    public boolean twoLevel() {
        return packages > 1 && (long) packages * ranksPerPackage == ranks;
    }

    /**
     * Share of a rank's peers that sit on another package (0 on one package): the fraction of a flat
     * algorithm's peer-to-peer traffic that crosses packages when every rank talks to every other.
     */
    public double remotePeerShare() {
        return ranks <= 1 ? 0 : (double) (ranks - Math.min(ranks, ranksPerPackage)) / (ranks - 1);
    }

    /** This shape with {@code k} ranks on the busiest PU. */
    public TeamShape withRanksPerPu(int k) {
        return new TeamShape(ranks, packages, ranksPerPackage, k, llcGroups);
    }

    /**
     * Share of a rank's peers that sit under another last-level cache: 0 when the team shares one, else the
     * peers outside an even share of the ranks, (p − p/g)/(p − 1).
     */
    public double otherLlcPeerShare() {
        if (ranks <= 1 || llcGroups <= 1) {
            return 0;
        }
        double perGroup = (double) ranks / llcGroups;
        return Math.min(1, (ranks - perGroup) / (ranks - 1));
    }

    @Override
    public String toString() {
        String s = packages == 1 ? ranks + " ranks on 1 package"
                : ranks + " ranks on " + packages + " packages" + (twoLevel() ? " x " + ranksPerPackage : " (uneven)");
        s = llcGroups > packages ? s + ", " + llcGroups + " L3s" : s;
        return ranksPerPu > 1 ? s + ", up to " + ranksPerPu + " per PU" : s;
    }
}
