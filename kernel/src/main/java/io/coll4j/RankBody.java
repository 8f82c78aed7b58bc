package io.coll4j;

/** The SPMD body {@link Team#run} executes on every rank's thread. */
@FunctionalInterface
public interface RankBody {
    void run(Rank rank) throws Exception;
}
