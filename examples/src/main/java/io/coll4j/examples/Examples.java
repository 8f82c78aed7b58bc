package io.coll4j.examples;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * {@code examples/run}: four workloads on coll4j, each against what Java users run today, in one run.
 * Exit codes: 0 every check passed, 1 a check failed or a run failed, 2 a usage error.
 */
@Command(name = "examples/run", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Workloads on coll4j against EJML, Smile, parallel streams, CyclicBarrier and a single thread.",
        subcommands = {Summa.class, KMeans.class, ConjugateGradient.class, Sgd.class})
public final class Examples implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing workload (summa, kmeans, cg or sgd)");
    }

    /** Runs one workload command with {@code args}; returns the exit code. */
    public static int execute(Object command, String... args) {
        return configure(new CommandLine(command)).execute(args);
    }

    private static CommandLine configure(CommandLine cl) {
        cl.setOut(new PrintWriter(System.out, true));
        cl.setErr(new PrintWriter(System.err, true));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + e);
            e.printStackTrace(cmd.getErr());
            return 1;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(configure(new CommandLine(new Examples())).execute(args));
    }
}
