package io.coll4j;

import java.util.Locale;

/** The collectives a team offers. {@link #cliName()} is the name {@code collbench} and the builder use. */
public enum Collective {
    BARRIER("barrier"),
    BCAST("bcast"),
    REDUCE("reduce"),
    ALLREDUCE("allreduce"),
    REDUCE_SCATTER("reduce-scatter"),
    ALLGATHER("allgather");

    private final String cliName;

    Collective(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** True for the collectives that combine values with an {@link io.coll4j.reductions.Op}. */
    public boolean reduces() {
        return this == REDUCE || this == ALLREDUCE || this == REDUCE_SCATTER;
    }

    /** True for the collectives with a root rank. */
    public boolean rooted() {
        return this == BCAST || this == REDUCE;
    }

    /**
     * nccl-tests' bus-bandwidth factor for {@code ranks} ranks: allreduce 2(p−1)/p, reduce-scatter and
     * allgather (p−1)/p, bcast and reduce 1, barrier 0.
     */
    public double busBandwidthFactor(int ranks) {
        return switch (this) {
            case ALLREDUCE -> 2.0 * (ranks - 1) / ranks;
            case REDUCE_SCATTER, ALLGATHER -> (double) (ranks - 1) / ranks;
            case BCAST, REDUCE -> 1.0;
            case BARRIER -> 0.0;
        };
    }

    /** Parses a CLI name ({@code reduce-scatter}) or enum name ({@code REDUCE_SCATTER}). */
    public static Collective parse(String name) {
        for (Collective c : values()) {
            if (c.cliName.equalsIgnoreCase(name) || c.name().equalsIgnoreCase(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + name
                + "' (expected barrier, bcast, reduce, allreduce, reduce-scatter or allgather)");
    }

    @Override
    public String toString() {
        return cliName.toLowerCase(Locale.ROOT);
    }
}
