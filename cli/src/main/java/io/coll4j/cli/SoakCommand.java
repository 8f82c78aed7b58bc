package io.coll4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code collbench soak}: random collectives checked against the scalar reference (see {@link Soak}),
 * then the counts per collective and algorithm. Exit 0 when every result was right, 1 otherwise.
 * {@code --chaos}: the misuse soak ({@link Chaos}); {@code --mpi}: across the processes of an MPI job.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Random collectives x algorithms x dtypes x ops x sizes x roots x in-place x heap/native/unaligned "
                + "on teams of 2..5 ranks, checked against the scalar reference; prints counts per collective and algorithm. "
                + "--chaos: random blocking calls, requests (i*, *Init, chains) and user ops with injected faults, checked "
                + "against the error contract (docs/design.md); --mpi: across the processes of 'mpirun -np N' (the calls of "
                + "--chaos, with or without faults).")
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

    @Option(names = "--chaos", description = "The misuse soak: requests and blocking calls with injected faults; exit 0 only with "
            + "no hang, no wrong result, no undocumented exception, no failed request that later looked complete and no fault unreported.")
    boolean chaos;

    @Option(names = "--faults", paramLabel = "LIST", description = "With --chaos: the kinds to inject, all (default), none, or a list of "
            + "close-before,close-during,interrupt-blocking,interrupt-await,throw-body,throw-userop,mismatch,stall,bad-args.")
    String faults;

    @Option(names = "--replay", paramLabel = "TEAMSEED", description = "With --chaos: run the one team a FAIL line names (its team seed).")
    Long replay;

    @Option(names = "--mpi", description = "Span the processes of an MPI job (run under 'mpirun -np N'): -t ranks per process; "
            + "without --chaos no faults are injected; with --chaos at most one fatal fault, which must end the job.")
    boolean mpi;

    @Option(names = {"-t", "--threads"}, description = "With --mpi: ranks per process (default ${DEFAULT-VALUE}).", defaultValue = "1")
    int threads;

    @Override
    public Integer call() {
        if (calls < 1) {
            throw new IllegalArgumentException("--calls must be >= 1, got " + calls);
        }
        if (maxSeconds < 1) {
            throw new IllegalArgumentException("--max-time must be >= 1, got " + maxSeconds);
        }
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("--threads must be 1..64, got " + threads);
        }
        if ((faults != null || replay != null) && !chaos) {
            throw new IllegalArgumentException((faults != null ? "--faults" : "--replay") + " needs --chaos");
        }
        PrintWriter out = spec.commandLine().getOut();
        if (mpi) {
            Set<ChaosPlan.Fault> kinds = chaos ? ChaosPlan.Fault.parse(faults) : Set.of();
            long[] sum = Chaos.runMpi(calls, seed, Duration.ofSeconds(maxSeconds), kinds, threads, l -> {
                out.println(l);
                out.flush();
            }, l -> {
            });
            if (sum == null) {
                return 0;      // process 0 prints and decides; the others end alike
            }
            ChaosStats.summary(sum, List.of(), List.of()).forEach(out::println);
            out.flush();
            return clean(sum) ? 0 : Errors.VALIDATION_FAILED;
        }
        if (chaos) {
            return chaos(out);
        }
        long s = seed != null ? seed : System.nanoTime();
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

    private Integer chaos(PrintWriter out) {
        Set<ChaosPlan.Fault> kinds = ChaosPlan.Fault.parse(faults);
        long s = seed != null ? seed : System.nanoTime();
        String list = kinds.isEmpty() ? "none" : String.join(",", kinds.stream().map(f -> f.cli).toList());
        long start = System.nanoTime();
        ChaosStats st;
        if (replay != null) {
            out.println("# soak --chaos: replaying team seed " + replay + ", faults " + list);
            ChaosPlan.Episode e = ChaosPlan.plan(replay, kinds, false, 1, 0, Integer.MAX_VALUE);
            out.println("# " + e.describe());
            for (int i = 0; i < e.calls().size(); i++) {
                out.println("#   call " + i + ": " + e.calls().get(i));
            }
            out.flush();
            st = new ChaosStats();
            Chaos.episode(e, Chaos.LOCAL, st, l -> {
            });
        } else {
            out.println("# soak --chaos: " + calls + " calls, seed " + s + ", faults " + list + " (reproduce: collbench soak --chaos --seed "
                    + s + " --faults " + list + " -n " + calls + ")");
            out.flush();
            st = Chaos.run(calls, s, Duration.ofSeconds(maxSeconds), kinds, l -> {
                out.println(l);
                out.flush();
            });
        }
        ChaosStats.summary(st.toArray(), st.failures, st.notes).forEach(out::println);
        out.printf(Locale.ROOT, "%.1f s, %s %d%n", (System.nanoTime() - start) / 1e9, replay != null ? "team seed" : "seed",
                replay != null ? replay : s);
        out.flush();
        return st.clean() ? 0 : Errors.VALIDATION_FAILED;
    }

    private static boolean clean(long[] a) {
        if (a[ChaosStats.WRONG] != 0 || a[ChaosStats.UNDOCUMENTED] != 0 || a[ChaosStats.HANGS] != 0 || a[ChaosStats.REVIVED] != 0) {
            return false;
        }
        for (int i = ChaosStats.MISSED; i < ChaosStats.EXC; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
