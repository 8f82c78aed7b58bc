package io.coll4j.kernel.span;

import io.coll4j.kernel.model.MachineModel;

/**
 * The parameters the hierarchical costs are written in, HMPI's a + m/b per level [HMPI §2.1, §2.5]:
 * between processes {@code alpha} seconds per message and {@code beta} seconds per byte (one thread
 * driving MPI); inside a process {@code localAlpha} per local collective step and {@code localBeta} per
 * byte a core moves or folds. The inter-process pair comes from {@code collbench tune --mpi} (the
 * profile's {@code mpi_alpha_us} / {@code mpi_beta_ns_per_byte}) or these defaults (shared memory on
 * one machine, measured with Open MPI 4.1 vader on the development machine).
 *
 * <p>Costs of the inter-process calls over P processes, Open MPI's tuned choices: allreduce
 * α⌈log2 P⌉ + 2β·s(P−1)/P (recursive doubling for small, ring for large), bcast/reduce α⌈log2 P⌉ + β·s,
 * allgather/reduce-scatter α⌈log2 P⌉ + β·s(P−1)/P.
 */
public record HierarchicalCost(double alpha, double beta, double localAlpha, double localBeta) {

    /** Shared memory between two processes on one machine: 1 µs, 4 GB/s; inside a process 0.3 µs, 8 GB/s. */
    public static final HierarchicalCost DEFAULT = new HierarchicalCost(1.0e-6, 0.25e-9, 0.3e-6, 0.125e-9);

    /**
     * {@link #DEFAULT} with the inter-process pair from {@code COLL4J_MPI_ALPHA_US} and
     * {@code COLL4J_MPI_BETA_NS} (nanoseconds per byte) when set — what {@code collbench tune --mpi} prints.
     */
    public static HierarchicalCost fromEnvironment(java.util.Map<String, String> env) {
        return from(null, env);
    }

    /**
     * {@link #DEFAULT} with the inter-process pair of the profile at {@code profile} (its
     * {@code mpiAlphaUs} / {@code mpiBetaNsPerByte}, which {@code collbench tune --mpi -o FILE} writes) when it
     * has them, and {@code COLL4J_MPI_ALPHA_US} / {@code COLL4J_MPI_BETA_NS} over both when set.
     *
     * @param profile the team's profile ({@code Team.Builder.profile} or {@code COLL4J_PROFILE}), or null
     */
    public static HierarchicalCost from(java.nio.file.Path profile, java.util.Map<String, String> env) {
        double alphaUs = DEFAULT.alpha * 1e6;
        double betaNs = DEFAULT.beta * 1e9;
        if (profile != null) {
            double a = MachineModel.profileNumber(profile, MachineModel.MPI_ALPHA_FIELD);
            double b = MachineModel.profileNumber(profile, MachineModel.MPI_BETA_FIELD);
            alphaUs = Double.isNaN(a) ? alphaUs : a;
            betaNs = Double.isNaN(b) ? betaNs : b;
        }
        double a = parse(env, "COLL4J_MPI_ALPHA_US", alphaUs) * 1e-6;
        double b = parse(env, "COLL4J_MPI_BETA_NS", betaNs) * 1e-9;
        return new HierarchicalCost(a, b, DEFAULT.localAlpha, DEFAULT.localBeta);
    }

    private static double parse(java.util.Map<String, String> env, String name, double fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return fallback;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= 0 && Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new IllegalArgumentException(name + " must be a non-negative number, got '" + v + "'");
    }

    static int log2(int p) {
        return 32 - Integer.numberOfLeadingZeros(Math.max(1, p - 1));
    }

    public double mpiAllreduce(int processes, double bytes) {
        return alpha * log2(processes) + 2 * beta * bytes * (processes - 1) / processes;
    }

    public double mpiRooted(int processes, double bytes) {
        return alpha * log2(processes) + beta * bytes;
    }

    public double mpiSpread(int processes, double bytes) {
        return alpha * log2(processes) + beta * bytes * (processes - 1) / processes;
    }

    /** One local collective moving {@code bytes} per rank over T ranks (none when T = 1). */
    public double local(int localSize, double bytes) {
        return localSize == 1 ? 0 : localAlpha * log2(localSize) + localBeta * bytes;
    }
}
