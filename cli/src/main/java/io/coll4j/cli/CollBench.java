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
                P2pCommands.Latency.class,
                P2pCommands.Bw.class,
                P2pCommands.Bibw.class,
                P2pCommands.MultiLat.class,
                P2pCommands.Neighbor.class,
                P2pCommands.P2pSoak.class,
                PlotCommand.class,
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
            String near = nearest(args[0], cl.getSubcommands().keySet());
            err.println("collbench: unknown collective or command '" + args[0] + "'"
                    + (near != null ? ": did you mean " + near + "?" : "")
                    + " (expected one of " + String.join(", ", cl.getSubcommands().keySet()) + ")");
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

    /**
     * The command nearest to {@code typed} by edit distance (a prefix of one counts as near), or null when none is
     * within a third of the longer name: {@code allredcue} gives {@code allreduce}, {@code xyz} nothing.
     */
    static String nearest(String typed, java.util.Collection<String> names) {
        String t = typed.toLowerCase(java.util.Locale.ROOT);
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String n : names) {
            int d = n.startsWith(t) && t.length() >= 3 ? 1 : distance(t, n);
            if (d < bestD) {
                bestD = d;
                best = n;
            }
        }
        return best != null && bestD <= Math.max(2, Math.max(t.length(), best.length()) / 3) ? best : null;
    }

    /** Damerau-Levenshtein (optimal string alignment) distance: a swap of neighbours costs 1, as a typo does. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(run(out, err, args));
    }
}
