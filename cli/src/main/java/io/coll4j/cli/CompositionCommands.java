package io.coll4j.cli;

import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * Measurements of the composed forms against their blocking equivalents, contenders alternated call by
 * call in one run (a shared machine drifts): {@code collbench chain} (reduce-scatter → local step →
 * allgather as one chain, and a pipelined allreduce with a step per chunk) and {@code collbench split}
 * (sub-teams of a split against a stand-alone team).
 */
final class CompositionCommands {
    private CompositionCommands() {
    }

    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE;

    /** The local step both contenders run: one pass over the block (scale by 0.5). */
    static void halve(MemorySegment seg, long first, long count) {
        for (long i = first; i < first + count; i++) {
            seg.setAtIndex(D, i, seg.getAtIndex(D, i) * 0.5);
        }
    }

    static String stats(String name, long[] ns) {
        return stats(name, ns, 1e3, "us");
    }

    static String stats(String name, long[] v, double div, String unit) {
        long[] s = v.clone();
        Arrays.sort(s);
        return String.format(Locale.ROOT, "%-46s min %10.1f %s   median %10.1f %s   max %10.1f %s", name, s[0] / div, unit,
                s[s.length / 2] / div, unit, s[s.length - 1] / div, unit);
    }

    @Command(name = "chain", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "Chained collectives against blocking calls, alternated: reduce-scatter -> halve my block -> allgather "
                    + "(chain vs three blocking calls), and allreduce -> halve (pipelined in chunks vs blocking allreduce + step).")
    static final class Chain implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "ranks (default: number of PUs, as the collectives)")
        Integer threads;

        @Option(names = {"-m", "--sizes"}, paramLabel = "[MIN:]MAX",
                description = "bytes of the whole vector, read as the collectives read -m; chain measures one size, the MAX "
                        + "(default 64M)")
        String size;

        @Option(names = {"-e", "--maxbytes"}, paramLabel = "MAX", description = "the same as -m MAX (nccl-tests' -e)")
        String maxBytes;

        @Option(names = {"-n", "-i", "--iterations", "--repetitions"}, paramLabel = "N", defaultValue = "10",
                description = "timed iterations of each contender (-n as nccl-tests, -i as the collectives; default ${DEFAULT-VALUE})")
        int repetitions;

        @Option(names = "--chunks", defaultValue = "8", description = "chunks of the pipelined allreduce (default ${DEFAULT-VALUE})")
        int chunks;

        /** The most chunks of the pipelined allreduce: each is a step of the chain. */
        static final int MAX_CHUNKS = 1 << 16;

        @Override
        public Integer call() {
            SizeRange range = SizeRange.of(size, null, maxBytes, null, "64M:64M");
            // -m MAX (or -e MAX) alone is the one size; only a MIN:MAX the user wrote out can be a range
            boolean explicitRange = size != null && size.contains(":");
            if (explicitRange && range.min() != range.max()) {
                throw new IllegalArgumentException("chain measures one size (-m MAX or -e MAX), not the range "
                        + SizeRange.format(range.min()) + ":" + SizeRange.format(range.max()));
            }
            long bytes = range.max();
            int p = threads != null ? threads : Runtime.getRuntime().availableProcessors();
            if (p < 1 || repetitions < 1 || chunks < 1) {
                throw new IllegalArgumentException("--threads, --repetitions and --chunks must be >= 1");
            }
            Resources.threads(p, io.coll4j.topology.Topology.host().pus().size());
            Resources.atMost("--repetitions", repetitions, Resources.MAX_REPETITIONS);
            Resources.atMost("--chunks", chunks, MAX_CHUNKS);
            // each rank allocates send, all and recv of the whole vector and its block
            Resources.nativeMemory("-m " + size + " on " + p + " ranks", bytes > Long.MAX_VALUE / 4 / p ? -1 : 4L * bytes * p);
            long block = bytes / 8 / p;
            long n = block * p;
            long[][] t = new long[4][repetitions];
            long[] wrong = new long[1];
            PrintWriter out = spec.commandLine().getOut();
            try (Team team = Team.builder().ranks(p).build()) {
                team.run(rank -> {
                    MemorySegment send = rank.allocate(n * 8), mine = rank.allocate(block * 8), all = rank.allocate(n * 8);
                    MemorySegment recv = rank.allocate(n * 8);
                    for (long i = 0; i < n; i++) {
                        send.setAtIndex(D, i, rank.id() + i % 5);
                    }
                    for (int rep = -2; rep < repetitions; rep++) {
                        for (int k = 0; k < 4; k++) {
                            rank.barrier();
                            long t0 = System.nanoTime();
                            switch (k) {
                                case 0 -> {
                                    rank.reduceScatter(send, mine, block, DType.F64, Op.SUM);
                                    halve(mine, 0, block);
                                    rank.allgather(mine, all, block, DType.F64);
                                }
                                case 1 -> rank.chain().reduceScatter(send, mine, block, DType.F64, Op.SUM)
                                        .then(() -> halve(mine, 0, block))
                                        .allgather(mine, all, block, DType.F64).start().await();
                                case 2 -> {
                                    rank.allreduce(send, recv, n, DType.F64, Op.SUM);
                                    halve(recv, 0, n);
                                }
                                case 3 -> rank.chain().allreducePipelined(send, recv, n, DType.F64, Op.SUM, chunks,
                                        (f, c) -> halve(recv, f, c)).start().await();
                                default -> { }
                            }
                            long dt = System.nanoTime() - t0;
                            long[] m = {dt};
                            rank.allreduce(m, m, Op.MAX);
                            if (rep >= 0 && rank.id() == 0) {
                                t[k][rep] = m[0];
                            }
                            MemorySegment result = k < 2 ? all : recv;
                            for (long i = 0; i < n; i += 4099) {
                                double want = (p * (i % 5) + p * (p - 1) / 2.0) * 0.5;
                                if (result.getAtIndex(D, i) != want) {
                                    synchronized (wrong) {
                                        wrong[0]++;
                                    }
                                }
                            }
                        }
                    }
                });
            }
            out.printf(Locale.ROOT, "# collbench chain: %d ranks, %d bytes f64 sum, %d repetitions alternated (slowest rank per repetition)%n",
                    p, n * 8, repetitions);
            out.println(stats("blocking reduce-scatter + halve + allgather", t[0]));
            out.println(stats("chain    reduce-scatter -> halve -> allgather", t[1]));
            out.println(stats("blocking allreduce + halve", t[2]));
            out.println(stats("pipelined allreduce -> halve (" + chunks + " chunks)", t[3]));
            out.printf(Locale.ROOT, "chain / blocking (median): %.3f   pipelined / blocking (median): %.3f   wrong: %d%n",
                    median(t[1]) / median(t[0]), median(t[3]) / median(t[2]), wrong[0]);
            out.flush();
            return wrong[0] == 0 ? 0 : Errors.VALIDATION_FAILED;
        }
    }

    static double median(long[] ns) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    @Command(name = "split", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
            description = "8-byte allreduce on the sub-teams of a split (p ranks into p/2 teams of 2) against a stand-alone "
                    + "team of 2, alternated: each sub-team alone, both sub-teams at once (each followed by the parent's barrier). "
                    + "With --mpi (under mpirun -np N): a parent of N processes x t ranks split by local rank into t sub-teams "
                    + "across the processes (one rank in each) against a stand-alone mpi() team of N x 1; with --uneven the t + 1 "
                    + "lowest global ranks (t of process 0, 1 of process 1) form one sub-team, timed against the stand-alone "
                    + "team and the whole parent.")
    static final class Split implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Option(names = {"-t", "--threads"}, paramLabel = "N",
                description = "ranks of the parent, even (default: number of PUs, as the collectives, rounded up to even)")
        Integer threadsOption;

        /** {@code -t}, or the PU count (as every command) rounded up to the even count a split in pairs needs. */
        int threads;

        @Option(names = {"-i", "--iterations"}, defaultValue = "20000", description = "allreduces per timed batch (default ${DEFAULT-VALUE})")
        int iterations;

        @Option(names = {"-n", "--repetitions"}, defaultValue = "9", description = "timed batches of each contender (default ${DEFAULT-VALUE})")
        int repetitions;

        @Option(names = "--mpi", description = "span the processes of an MPI job (run under 'mpirun -np N'; -t ranks per process); "
                + "global rank 0 prints")
        boolean mpi;

        @Option(names = "--uneven", description = "with --mpi: one sub-team of the t + 1 lowest global ranks, whose processes hold "
                + "t ranks and 1 (-t >= 2)")
        boolean uneven;

        @Override
        public Integer call() {
            int pus = Runtime.getRuntime().availableProcessors();
            threads = threadsOption != null ? threadsOption : mpi ? pus : Math.max(2, pus + pus % 2);
            if (uneven && (!mpi || threads < 2)) {
                throw new IllegalArgumentException("--uneven needs --mpi and --threads >= 2 (got " + (mpi ? "-t " + threads : "no --mpi") + ")");
            }
            if (!mpi && (threads < 2 || threads % 2 != 0)) {
                throw new IllegalArgumentException("--threads must be even and >= 2, got " + threads);
            }
            if (mpi && threads < 1) {
                throw new IllegalArgumentException("--threads must be >= 1, got " + threads);
            }
            if (iterations < 1 || repetitions < 1) {
                throw new IllegalArgumentException("--iterations and --repetitions must be >= 1, got " + iterations + " and " + repetitions);
            }
            Resources.threads(threads, io.coll4j.topology.Topology.host().pus().size());
            Resources.atMost("--iterations", iterations, Resources.MAX_ITERATIONS);
            Resources.atMost("--repetitions", repetitions, Resources.MAX_REPETITIONS);
            long[] alone = new long[repetitions];
            long[] aloneSame = new long[repetitions];
            long[] subAlone = new long[repetitions];
            long[] subBoth = new long[repetitions];
            long[] wrong = new long[1];
            int it = iterations;
            // --mpi: every process builds its mpi() teams in this order; the sub-teams and the pair have one rank per process
            int pairRanks = mpi ? 1 : 2;
            boolean printer;
            String layout;
            int allRanks;
            try (Team team = builder(threads).build(); Team pair = builder(pairRanks).build();
                 Team pairSame = builder(pairRanks).waitStrategy(team.waitStrategy()).build()) {
                printer = team.processIndex() == 0;
                allRanks = team.globalSize();
                if (uneven && team.processes() < 2) {
                    throw new IllegalArgumentException("--uneven needs a job of 2 or more processes (mpirun -np N), got " + team.processes());
                }
                layout = uneven ? team.processes() + " processes x " + threads + " ranks; the sub-team of global ranks 0.." + threads
                        + ": " + threads + " ranks in process 0 and 1 in process 1; stand-alone team " + team.processes() + " x 1"
                        : mpi ? team.processes() + " processes x " + threads + " ranks split by local rank into " + threads
                        + " teams of " + team.processes() + " across the processes; stand-alone team " + team.processes() + " x 1"
                        : threads + " ranks split in teams of 2";
                Rank[] subs = new Rank[threads];
                team.run(rank -> {
                    Rank s = rank.split(uneven ? (rank.id() <= threads ? 0 : Team.UNDEFINED) : mpi ? rank.localId() : rank.id() / 2,
                            rank.id());
                    if (s != null) {
                        s.detach();              // each batch below attaches its thread anew
                    }
                    subs[rank.localId()] = s;
                });
                for (int rep = -2; rep < repetitions; rep++) {
                    int r = rep;
                    pair.run(rank -> {
                        long t = loop(rank, it, wrong);
                        if (r >= 0 && rank.id() == 0) {
                            alone[r] = t;
                        }
                    });
                    pairSame.run(rank -> {
                        long t = loop(rank, it, wrong);
                        if (r >= 0 && rank.id() == 0) {
                            aloneSame[r] = t;
                        }
                    });
                    for (boolean both : new boolean[]{false, true}) {
                        team.run(rank -> {
                            Rank sub = subs[rank.localId()];
                            if (uneven) {
                                // the uneven sub-team alone (its members), then the whole parent
                                rank.barrier();
                                long t = both ? loop(rank, it, wrong) : -1;
                                if (!both && sub != null) {
                                    try (Rank attached = sub.team().attach(sub.localId())) {
                                        t = loop(attached, it, wrong);
                                    }
                                }
                                if (r >= 0 && rank.id() == 0) {
                                    (both ? subBoth : subAlone)[r] = t;
                                }
                                rank.barrier();
                                return;
                            }
                            try (Rank attached = sub.team().attach(sub.localId())) {
                                rank.barrier();
                                if (both || (mpi ? rank.localId() == 0 : rank.id() < 2)) {
                                    long t = loop(attached, it, wrong);
                                    if (r >= 0 && rank.id() == 0) {
                                        (both ? subBoth : subAlone)[r] = t;
                                    }
                                }
                                rank.barrier();          // the parent's barrier follows the sub-teams' allreduces
                            }
                        });
                    }
                }
            }
            if (!printer) {
                return wrong[0] == 0 ? 0 : Errors.VALIDATION_FAILED;
            }
            PrintWriter out = spec.commandLine().getOut();
            out.printf(Locale.ROOT, "# collbench split: 8-byte f64 sum allreduce, %d per batch, %d batches alternated; parent %s (%d CPUs)%n",
                    iterations, repetitions, layout, Runtime.getRuntime().availableProcessors());
            out.println(stats("stand-alone team, per allreduce", alone, 1e3, "ns"));
            out.println(stats("stand-alone team, parent's wait strategy", aloneSame, 1e3, "ns"));
            double ref = Math.min(median(alone), median(aloneSame));
            if (uneven) {
                out.println(stats("uneven sub-team (" + threads + " + 1 ranks), per allreduce", subAlone, 1e3, "ns"));
                out.println(stats("parent (" + allRanks + " ranks), per allreduce", subBoth, 1e3, "ns"));
                out.printf(Locale.ROOT, "uneven sub-team / best stand-alone (median): %.3f   parent / best stand-alone (median): %.3f   wrong: %d%n",
                        median(subAlone) / ref, median(subBoth) / ref, wrong[0]);
                out.flush();
                return wrong[0] == 0 ? 0 : Errors.VALIDATION_FAILED;
            }
            out.println(stats("one sub-team alone, per allreduce", subAlone, 1e3, "ns"));
            out.println(stats("sub-teams all at once, per allreduce", subBoth, 1e3, "ns"));
            out.printf(Locale.ROOT, "sub-team alone / best stand-alone (median): %.3f   all at once / best stand-alone (median): %.3f   wrong: %d%n",
                    median(subAlone) / ref, median(subBoth) / ref, wrong[0]);
            out.printf(Locale.ROOT, "# a sub-team inherits its parent's wait strategy; all at once puts %d ranks on %d CPUs%s%n",
                    allRanks, Runtime.getRuntime().availableProcessors(), mpi ? " (of this host)" : "");
            out.flush();
            return wrong[0] == 0 ? 0 : Errors.VALIDATION_FAILED;
        }

        private Team.Builder builder(int ranks) {
            Team.Builder b = Team.builder().ranks(ranks);
            return mpi ? b.mpi() : b;
        }

        /** Picoseconds per allreduce (printed as ns with one decimal), after a warm-up of the same length. */
        private static long loop(Rank rank, int iterations, long[] wrong) {
            double[] v = new double[1];
            long bad = 0;
            double want = rank.size() * (rank.size() + 1) / 2.0;
            for (int w = 0; w < 2; w++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    v[0] = rank.id() + 1;
                    rank.allreduce(v, v, Op.SUM);
                    if (v[0] != want) {
                        bad++;
                    }
                }
                long dt = System.nanoTime() - t0;
                if (w == 1) {
                    if (bad > 0) {
                        synchronized (wrong) {
                            wrong[0] += bad;
                        }
                    }
                    return dt * 1000 / iterations;
                }
            }
            return 0;
        }
    }
}
