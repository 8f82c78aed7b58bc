/**
 * coll4j: MPI-style collectives for a team of Java thread ranks ({@code io.coll4j.Team},
 * {@code io.coll4j.Rank}, {@code io.coll4j.CollectivePlan}). The topology and reduction types of the API
 * come from {@code io.coll4j.bindings} and {@code io.coll4j.reductions}, read transitively.
 *
 * <p>Exported: {@code io.coll4j} (the API, with {@code WaitStrategy}, the one tuning type of
 * {@code Team.Builder}). Algorithms, the machine model, the
 * shared memory layout and {@code io.coll4j.internal} are exported only to coll4j's CLI, JMH and jcstress
 * suites (which run from the class path, where the qualified exports are not needed; they document who
 * may use them).
 */
module io.coll4j {
    requires transitive io.coll4j.bindings;
    requires transitive io.coll4j.reductions;
    // the JFR events (kernel.events): off unless a recording enables them
    requires jdk.jfr;

    exports io.coll4j;

    exports io.coll4j.internal to io.coll4j.cli, io.coll4j.jmh;
    exports io.coll4j.kernel.algo to io.coll4j.cli, io.coll4j.jmh, io.coll4j.jcstress;
    exports io.coll4j.kernel.model to io.coll4j.cli, io.coll4j.jmh;
    exports io.coll4j.kernel.memory to io.coll4j.jcstress;
    exports io.coll4j.kernel.sync to io.coll4j.jcstress;
    exports io.coll4j.kernel.nb to io.coll4j.jcstress;
    exports io.coll4j.kernel.span to io.coll4j.mpi, io.coll4j.cli;
    // an MPI job on one host runs its teams over the shared mapping (coll4j-mpi MpiProvider)
    exports io.coll4j.kernel.span.shm to io.coll4j.mpi;
    // JFR reads the event classes' fields and annotations reflectively
    exports io.coll4j.kernel.events to jdk.jfr, io.coll4j.cli;

    uses io.coll4j.kernel.span.ProcessSpan.Provider;
}
