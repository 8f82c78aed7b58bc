package io.coll4j;

/** An SPMD body that returns a value: {@link Team#call} runs it on every rank's thread and collects the values. */
@FunctionalInterface
public interface RankFunction<T> {
    T apply(Rank rank) throws Exception;
}
