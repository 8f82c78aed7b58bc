package io.coll4j.kernel.algo;

/**
 * What an algorithm moves between packages in one call [HMPI §2.1]: the bytes that cross (priced at
 * B_β) and the dependent hand-overs that cross (priced at a_β instead of a_α). An algorithm that returns
 * one from {@link CollectiveAlgorithm#crossing} gets its topology-aware cost and its {@code explain} terms
 * from it.
 */
public record PackageCrossing(double bytes, double rounds) {
}
