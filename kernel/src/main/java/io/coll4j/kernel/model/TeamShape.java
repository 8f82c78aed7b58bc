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
 */
public record TeamShape(int ranks, int packages, int ranksPerPackage) {
    public TeamShape {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
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

    @Override
    public String toString() {
        return packages == 1 ? ranks + " ranks on 1 package"
                : ranks + " ranks on " + packages + " packages" + (twoLevel() ? " x " + ranksPerPackage : " (uneven)");
    }
}
