package io.coll4j;

import java.util.Locale;

/** The collectives a team offers. {@link #cliName()} is the name {@code collbench} and the builder use. */
public enum Collective {
    BARRIER("barrier"),
    BCAST("bcast"),
    REDUCE("reduce"),
    ALLREDUCE("allreduce"),
    REDUCE_SCATTER("reduce-scatter"),
    ALLGATHER("allgather"),
    // ---- the rest of the MPI vocabulary ----
    GATHER("gather"),
    SCATTER("scatter"),
    GATHERV("gatherv"),
    SCATTERV("scatterv"),
    ALLGATHERV("allgatherv"),
    REDUCE_SCATTER_V("reduce-scatter-v"),
    ALLTOALL("alltoall"),
    ALLTOALLV("alltoallv"),
    SCAN("scan"),
    EXSCAN("exscan");

    private final String cliName;

    Collective(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    /** True for the collectives that combine values with an {@link io.coll4j.reductions.Op}. */
    public boolean reduces() {
        return this == REDUCE || this == ALLREDUCE || this == REDUCE_SCATTER || this == REDUCE_SCATTER_V
                || this == SCAN || this == EXSCAN;
    }

    /** True for the collectives with a root rank. */
    public boolean rooted() {
        return this == BCAST || this == REDUCE || this == GATHER || this == SCATTER || this == GATHERV || this == SCATTERV;
    }

    /**
     * True for the v-variants, whose block sizes come from per-rank count arrays: the call's count is
     * not the same on every rank (gatherv, scatterv, alltoallv) or is summarised by a hash of the
     * team-wide counts (allgatherv, reduce-scatter-v).
     */
    public boolean vector() {
        return this == GATHERV || this == SCATTERV || this == ALLGATHERV || this == REDUCE_SCATTER_V || this == ALLTOALLV;
    }

    /**
     * nccl-tests' bus-bandwidth factor for {@code ranks} ranks: allreduce 2(p−1)/p, reduce-scatter and
     * allgather (p−1)/p, bcast and reduce 1, barrier 0; gather, scatter, alltoall and their v-variants
     * (p−1)/p as nccl-tests' gather/scatter/alltoall (the bytes are the root's whole buffer, or a rank's
     * whole send buffer for alltoall); scan and exscan 1 (each rank reads its predecessors' prefix once).
     */
    public double busBandwidthFactor(int ranks) {
        return switch (this) {
            case ALLREDUCE -> 2.0 * (ranks - 1) / ranks;
            case REDUCE_SCATTER, ALLGATHER, GATHER, SCATTER, GATHERV, SCATTERV, ALLGATHERV, REDUCE_SCATTER_V,
                 ALLTOALL, ALLTOALLV -> (double) (ranks - 1) / ranks;
            case SCAN, EXSCAN -> 1.0;
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
                + "' (expected one of " + java.util.Arrays.stream(values()).map(Collective::cliName)
                .collect(java.util.stream.Collectors.joining(", ")) + ")");
    }

    @Override
    public String toString() {
        return cliName.toLowerCase(Locale.ROOT);
    }
}
