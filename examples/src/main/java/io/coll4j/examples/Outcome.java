package io.coll4j.examples;

/**
 * One implementation's run of a workload: wall time of the timed region, the part of it spent in
 * communication (time inside collectives or barriers on rank 0, waiting for peers included; NaN where the
 * implementation has no separable communication phase, as parallel streams and EJML), whether its result
 * passed the workload's check, and a workload metric (iterations/s, accuracy, GFLOP/s).
 */
public record Outcome(String impl, double seconds, double commSeconds, boolean ok, String metric) {
    /** Implementation names, as the CSV's {@code impl} column spells them. */
    public static final String COLL4J = "coll4j";
    /** coll4j with the halo planes exchanged as messages (a neighborhood alltoallv) instead of computed privately. */
    public static final String COLL4J_HALO = "coll4j-halo";
    public static final String CYCLIC_BARRIER = "cyclicbarrier";
    public static final String STREAMS = "streams";
    public static final String SMILE = "smile";
    public static final String EJML_MT = "ejml-mt";
    public static final String SINGLE = "single";

    /** This outcome with its check replaced (the check is decided after the run, against a reference). */
    public Outcome checked(boolean passed) {
        return new Outcome(impl, seconds, commSeconds, passed, metric);
    }
}
