/**
 * coll4j-mpi: teams whose ranks are threads in several processes of an MPI job
 * ({@code Team.builder().ranks(t).mpi()}). Provides the kernel's inter-process transport over MPI through
 * a C shim ({@code libcoll4j_mpi.so}, built with mpicc, packed in this jar, loaded only when a team asks
 * for MPI). Optional: add it next to {@code io.coll4j:coll4j} when you want it.
 */
module io.coll4j.mpi {
    requires io.coll4j;

    provides io.coll4j.kernel.span.ProcessSpan.Provider with io.coll4j.mpi.MpiProvider;
}
