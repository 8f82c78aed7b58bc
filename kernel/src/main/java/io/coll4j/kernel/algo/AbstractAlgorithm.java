package io.coll4j.kernel.algo;

import io.coll4j.Collective;

/** Name, collective, summary and seed of an algorithm; subclasses add cost and run. */
public abstract class AbstractAlgorithm implements CollectiveAlgorithm {
    private final Collective collective;
    private final String name;
    private final String summary;
    private final String seed;

    protected AbstractAlgorithm(Collective collective, String name, String summary, String seed) {
        this.collective = collective;
        this.name = name;
        this.summary = summary;
        this.seed = seed;
    }

    @Override
    public final Collective collective() {
        return collective;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String summary() {
        return summary;
    }

    @Override
    public final String seed() {
        return seed;
    }

    @Override
    public String toString() {
        return collective.cliName() + "/" + name;
    }
}
