package io.coll4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code collbench soak}: random collectives checked against the scalar reference (see {@link Soak}),
 * then the counts per collective and algorithm. Exit 0 when every result was right, 1 otherwise.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Random collectives x algorithms x dtypes x ops x sizes x roots x in-place x heap/native/unaligned "
                + "on teams of 2..5 ranks, checked against the scalar reference; prints counts per collective and algorithm.")
final class SoakCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-n", "--calls"}, description = "Collective calls to make (default ${DEFAULT-VALUE}).", defaultValue = "100000")
    long calls;

    @Option(names = "--seed", description = "Seed of the call sequence (default: random, printed).")
    Long seed;

    @Option(names = "--max-time", description = "Stop after this many seconds even if fewer calls were made (default ${DEFAULT-VALUE}).",
            defaultValue = "86400")
    long maxSeconds;

    @Override
    public Integer call() {
        if (calls < 1) {
            throw new IllegalArgumentException("--calls must be >= 1, got " + calls);
        }
        if (maxSeconds < 1) {
            throw new IllegalArgumentException("--max-time must be >= 1, got " + maxSeconds);
        }
        long s = seed != null ? seed : System.nanoTime();
        PrintWriter out = spec.commandLine().getOut();
        out.println("# soak: " + calls + " calls, seed " + s);
        out.flush();
        long start = System.nanoTime();
        Soak.Result r = Soak.run(calls, s, Duration.ofSeconds(maxSeconds));
        double secs = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "%-16s %-16s %10s %8s%n", "collective", "algorithm", "calls", "wrong");
        for (Map.Entry<String, long[]> e : r.counts.entrySet()) {
            String[] k = e.getKey().split(" ", 2);
            out.printf(Locale.ROOT, "%-16s %-16s %10d %8d%n", k[0], k[1], e.getValue()[0], e.getValue()[1]);
        }
        out.printf(Locale.ROOT, "total: %d calls, %d wrong, %.1f s, seed %d%n", r.calls, r.wrong, secs, s);
        for (String f : r.failures) {
            out.println("wrong: " + f);
        }
        out.flush();
        return r.wrong == 0 ? 0 : Errors.VALIDATION_FAILED;
    }
}
