package io.coll4j.kernel.algo;

/**
 * {@link Steps.Items} whose item q is rank q's share ({@link Steps.Items#perRank}), as the owners' blocks of a
 * blocking algorithm: one item per rank, each posted, claimed and marked done on its rank's own line (docs/design.md,
 * "Non-blocking, persistent and chained collectives").
 */
public interface PerRankItems extends Steps.Items {
    /** The team's ranks: the items of a round. */
    int ranks();

    @Override
    default long items() {
        return ranks();
    }

    @Override
    default boolean perRank() {
        return true;
    }
}
