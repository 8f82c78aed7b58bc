package io.coll4j.cli;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.topology.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collbench tune}: measures the {@link MachineModel} parameters (docs/design.md, "Machine model and
 * selection") on this machine with {@link ModelProbe} (which says how each is measured), prints each with
 * its spread over the repetitions (min / median / max) and writes a profile ({@code --profile},
 * {@code COLL4J_PROFILE}, {@code Team.Builder.profile} load it). {@code explain --measure} runs the same
 * probe in its own run instead of reading a profile.
 */
@Command(name = "tune", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Measure the machine parameters of the cost model and write a profile (JSON).")
final class TuneCommand implements Callable<Integer> {
    static final String DEFAULT_OUTPUT = "coll4j-profile.json";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--output", paramLabel = "FILE", defaultValue = DEFAULT_OUTPUT,
            description = "profile to write (default ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--repeat", paramLabel = "N", defaultValue = "5", description = "repetitions of every measurement (default ${DEFAULT-VALUE})")
    int repeat;

    @CommandLine.Mixin
    TopologyOption machine = new TopologyOption();

    @Option(names = "--mpi", description = "under mpirun: measure the inter-process latency and bandwidth through MPI "
            + "(alpha, beta of the hierarchical costs) and print them as COLL4J_MPI_ALPHA_US / COLL4J_MPI_BETA_NS")
    boolean mpi;

    @Option(names = "--quick", description = "small buffers and few repetitions (for tests: the numbers are rough)")
    boolean quick;

    @Override
    public Integer call() throws IOException {
        if (mpi) {
            return tuneMpi();
        }
        // the profile is written after minutes of measuring: make sure it can be, first (in an existing
        // directory, as --output everywhere: a mistyped path is refused, not created)
        Resources.writableFile("--output", output);
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        }
        Resources.atMost("--repeat", repeat, 1000);
        if (mpi) {
            return tuneMpi();
        }
        Topology topo = machine.topology();
        if (topo.isSynthetic()) {
            throw new IllegalArgumentException("--topology " + machine.source + " is synthetic: tune measures this machine");
        }
        int reps = quick ? Math.min(repeat, 2) : repeat;
        PrintWriter out = spec.commandLine().getOut();
        long start = System.nanoTime();
        out.printf("# collbench tune: %s; %s; %d repetitions, each keeping its undisturbed value (best window"
                + " or batch); the model takes the best repetition%n", CollectiveCommands.machine(), topo.summary(), reps);
        ModelProbe.Result probe = new ModelProbe(quick).measure(out, topo, reps, "tune");
        MachineModel m = probe.model();
        List<String> notes = probe.notes();
        Map<String, Object> spreads = probe.spreads();
        Map<String, Object> extra = provenance(topo);
        extra.put("repetitions", reps);
        extra.put("notes", notes);
        extra.put("spread", spreads);
        writeProfile(output, m, extra);
        out.printf("%-28s %12d  bytes (from the topology)%n", "l2Bytes", m.l2Bytes());
        for (String n : notes) {
            out.println("# note: " + n);
        }
        out.printf("# wrote %s in %.1f s; use it with --profile %s or COLL4J_PROFILE=%s%n", output,
                (System.nanoTime() - start) * 1e-9, output, output);
        out.flush();
        return 0;
    }

    /** Where a profile comes from, its first fields: machine, topology, JDK and coll4j version. */
    static Map<String, Object> provenance(Topology topo) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("machine", CollectiveCommands.machine());
        extra.put("topology", topo.summary());
        extra.put("jdk", "JDK " + Runtime.version());
        extra.put("version", Version.coll4j());
        return extra;
    }

    /** Writes {@code m} with {@code extra} as a profile at {@code output} (its directory exists: checked up front). */
    static void writeProfile(Path output, MachineModel m, Map<String, Object> extra) throws IOException {
        Files.writeString(output, m.toProfileJson(extra));
    }

    /**
     * {@code tune --mpi}: α and β between processes, through the span's MPI_Allreduce. Process 0 prints them and
     * adds them to the profile {@code -o} names ({@code mpiAlphaUs}, {@code mpiBetaNsPerByte}; a spanning team's
     * selector reads them from its profile): an existing profile keeps its machine fields, a new one gets the
     * topology's defaults for them, with a note saying so.
     */
    private int tuneMpi() throws java.io.IOException {
        try (io.coll4j.Team team = io.coll4j.Team.builder().ranks(1).mpi().build()) {
            io.coll4j.kernel.span.SpanGroup g = io.coll4j.internal.TeamInternals.spanGroup(team);
            if (g == null) {
                throw new IllegalArgumentException("--mpi: one process; run under mpirun -np 2 or more");
            }
            io.coll4j.kernel.span.SpanProbe.Fit fit = io.coll4j.kernel.span.SpanProbe.measure(g.span(), quick ? 1 << 20 : 16 << 20, repeat);
            if (team.processIndex() == 0) {
                java.io.PrintWriter out = spec.commandLine().getOut();
                out.printf(java.util.Locale.ROOT, "# collbench tune --mpi: %d processes (%s), %s; best of %d batches of MPI_Allreduce%n",
                        team.processes(), Hierarchical.layout(team), team.transport(), repeat);
                out.printf(java.util.Locale.ROOT, "COLL4J_MPI_ALPHA_US=%.3f%nCOLL4J_MPI_BETA_NS=%.4f%n", fit.alpha() * 1e6, fit.beta() * 1e9);
                Map<String, Object> pair = new LinkedHashMap<>();
                pair.put(MachineModel.MPI_ALPHA_FIELD, fit.alpha() * 1e6);
                pair.put(MachineModel.MPI_BETA_FIELD, fit.beta() * 1e9);
                if (Files.exists(output)) {
                    MachineModel.putProfileFields(output, pair);
                    out.printf("# added %s and %s to %s%n", MachineModel.MPI_ALPHA_FIELD, MachineModel.MPI_BETA_FIELD, output);
                } else {
                    Resources.writableFile("--output", output);
                    Map<String, Object> extra = new LinkedHashMap<>(pair);
                    extra.put("notes", List.of("machine fields are the topology's defaults: run collbench tune --output " + output
                            + " for measured ones, then tune --mpi --output " + output + " again"));
                    Files.writeString(output, MachineModel.defaults(team.topology()).toProfileJson(extra));
                    out.printf("# wrote %s (machine fields: defaults; run collbench tune --output %s to measure them)%n", output, output);
                }
                out.printf("# use it with COLL4J_PROFILE=%s (or Team.Builder.profile): the hierarchical selector reads the pair%n", output);
                out.flush();
            }
        }
        return 0;
    }
}
