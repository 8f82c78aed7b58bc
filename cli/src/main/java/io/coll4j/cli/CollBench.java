package io.coll4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * {@code collbench}: the coll4j benchmark and machine probe (docs/design.md, "CLI contract"). Exit codes: 0 ok, 1 a
 * failed validation or run-time failure, 2 a usage error (one line naming the problem, then usage).
 */
@Command(name = "collbench",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        description = "MPI-style collectives for JVM thread teams: benchmarks (OSU / nccl-tests style) and machine probe.",
        subcommands = {
                TopoCommand.class,
                CopyCommand.class,
                CollectiveCommands.Allreduce.class,
                CollectiveCommands.ReduceScatter.class,
                CollectiveCommands.Reduce.class,
                CollectiveCommands.Bcast.class,
                CollectiveCommands.Allgather.class,
                CollectiveCommands.Barrier.class,
                CollectiveCommands.Gather.class,
                CollectiveCommands.Scatter.class,
                CollectiveCommands.Gatherv.class,
                CollectiveCommands.Scatterv.class,
                CollectiveCommands.Allgatherv.class,
                CollectiveCommands.ReduceScatterV.class,
                CollectiveCommands.Alltoall.class,
                CollectiveCommands.Alltoallv.class,
                CollectiveCommands.Scan.class,
                CollectiveCommands.Exscan.class,
                TuneCommand.class,
                ExplainCommand.class,
                ListCommand.class,
                CompositionCommands.Chain.class,
                CompositionCommands.Split.class,
                SoakCommand.class,
        })
public final class CollBench implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand");
    }

    /** Builds the configured command line; tests drive it in-process with their own writers. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new CollBench());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler(Errors::onParameterException);
        cl.setExecutionExceptionHandler(Errors::onExecutionException);
        return cl;
    }

    /** Runs collbench with {@code args}; returns the exit code. */
    public static int run(PrintWriter out, PrintWriter err, String... args) {
        CommandLine cl = commandLine(out, err);
        if (args.length > 0 && !args[0].startsWith("-") && !cl.getSubcommands().containsKey(args[0])) {
            // picocli would say "Unmatched arguments from index 0": name the unknown command instead
            err.println("collbench: unknown collective or command '" + args[0] + "' (expected one of "
                    + String.join(", ", cl.getSubcommands().keySet()) + ")");
            cl.usage(err);
            err.flush();
            return Errors.USAGE;
        }
        int code;
        try {
            code = cl.execute(args);
        } catch (OutOfMemoryError e) {
            // a command that reserved too much despite its up-front checks: one line, no trace
            err.println("collbench: error: out of memory (" + e.getMessage() + "); ask for fewer ranks, bytes or iterations");
            code = Errors.VALIDATION_FAILED;
        } catch (StackOverflowError e) {
            err.println("collbench: error: input nested too deeply (stack overflow)");
            code = Errors.VALIDATION_FAILED;
        }
        out.flush();
        err.flush();
        return code;
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(out, err, args));
    }
}
