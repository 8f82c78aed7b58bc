package io.coll4j.cli;

import io.coll4j.internal.TeamInternals;
import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.WaitStrategy;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.topology.Placement;
import io.coll4j.topology.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Options shared by the collective benchmarks and {@code explain} (a picocli mixin), and their
 * validation: every bad value is an {@link IllegalArgumentException} naming it (exit 2 with usage).
 */
final class RunOptions {
    @Option(names = {"-t", "--threads"}, paramLabel = "N", description = "ranks (default: number of PUs)")
    Integer threads;

    /** The sweep when no size flag is given. */
    static final String DEFAULT_SIZES = "8:64M";

    @Option(names = {"-m", "--sizes"}, paramLabel = "[MIN:]MAX",
            description = "bytes per rank, K/M/G suffixes, as OSU's -m: MIN:MAX, or MAX alone (from 8) (default " + DEFAULT_SIZES
                    + "). Per rank as nccl-tests: the vector for allreduce/reduce/bcast, the input for reduce-scatter, the "
                    + "output for allgather")
    String sizes;

    @Option(names = {"-b", "--minbytes"}, paramLabel = "MIN", description = "smallest size (nccl-tests' -b; default 8)")
    String minBytes;

    @Option(names = {"-e", "--maxbytes"}, paramLabel = "MAX", description = "largest size (nccl-tests' -e; default 64M)")
    String maxBytes;

    @Option(names = {"-f", "--step-factor"}, paramLabel = "F", description = "each size F times the last (nccl-tests' -f; default 2)")
    Long stepFactor;

    @Option(names = {"-i", "-n", "--iterations"}, paramLabel = "N",
            description = "timed iterations (-n as nccl-tests; default: scaled by size, 20..10000)")
    Long iterations;

    @Option(names = {"-x", "-w", "--warmup"}, paramLabel = "N",
            description = "warm-up iterations (-w as nccl-tests; default: warm each row until its batches settle, "
                    + "see 'steady state' in the table header)")
    Long warmup;

    @Option(names = {"-d", "--dtype"}, paramLabel = "TYPE", defaultValue = "f64", description = "f32|f64|i32|i64|f16|bf16|u32|u64, or a (value, index) pair for minloc/maxloc: f32_i32|f64_i64|i32_i32|i64_i64 (default ${DEFAULT-VALUE})")
    String dtype;

    @Option(names = {"-o", "--op"}, paramLabel = "OP", defaultValue = "sum", description = "sum|prod|min|max|band|bor|bxor|avg|minloc|maxloc (default ${DEFAULT-VALUE})")
    String op;

    @Option(names = {"-r", "--root"}, paramLabel = "N", defaultValue = "0", description = "root rank of bcast, reduce, gather(v) and scatter(v) (default ${DEFAULT-VALUE})")
    int root;

    @CommandLine.Mixin
    PlacementOptions where = new PlacementOptions();

    @Option(names = "--profile", paramLabel = "FILE",
            description = "machine profile from 'collbench tune' for the model (default: $COLL4J_PROFILE, else defaults from the topology)")
    Path profile;

    @Option(names = "--cold", description = "rotate through buffers larger than the LLC so every iteration starts off-cache")
    boolean cold;

    @Option(names = "--heap", description = "coll4j's algorithms run on Java arrays instead of rank.allocate memory: across"
            + " processes the buffers lie outside the shared mapping and are staged (-Dcoll4j.shm.allreduce picks the fold)")
    boolean heap;

    @Option(names = "--consume", description = "every rank reads its whole result after each call, timed, as an application does:"
            + " an algorithm that leaves results in another core's cache pays for it here")
    boolean consume;

    @Option(names = "--wait", paramLabel = "HOW", defaultValue = "auto",
            description = "how ranks wait for peers: auto (backoff with a core per rank, backoff-oversubscribed with more"
                    + " ranks than CPUs), adaptive (backoff; a rank on a contended core spins ~1 ms before parking), spin (pure spinning,"
                    + " no detection), yield, backoff, backoff-oversubscribed (default ${DEFAULT-VALUE})")
    String wait;

    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "collective timeout (default: the team's, Team.DEFAULT_TIMEOUT = 60 s)")
    Long timeoutSeconds;

    /** {@code --timeout}, or the library's own default, so the CLI and an application time out alike. */
    Duration timeout() {
        return timeoutSeconds == null ? Team.DEFAULT_TIMEOUT : Duration.ofSeconds(timeoutSeconds);
    }

    @Option(names = "--mpi", description = "span the processes of an MPI job: run under 'mpirun -np N', -t ranks per process; "
            + "global rank 0 prints the table")
    boolean mpi;

    @Option(names = "--processes", paramLabel = "N",
            description = "span N JVM processes of this host without MPI: collbench starts N - 1 more JVMs itself (the same jar and "
                    + "arguments), -t ranks in each, joined through one shared mapping in /dev/shm; process 0 (this one) prints the table")
    Integer processes;

    /** Set by the process that started this one (--processes): this one's index and the job name, INDEX:JOB. */
    @Option(names = "--process-child", hidden = true, paramLabel = "INDEX:JOB")
    String processChild;

    /** The shared-mapping span of {@code --processes}: this process's index among {@code n}, and the job's name. */
    record Spanning(int n, int index, String job) {
    }

    /** --processes N: process 0 (no --process-child) names the job after its pid, the children get it from it. */
    Spanning spanning() {
        return spanning(processes, processChild);
    }

    /** {@code --processes} and {@code --process-child} of any command: null for one process. */
    static Spanning spanning(Integer processes, String processChild) {
        if (processes == null || processes == 1) {
            return null;
        }
        if (processes < 1 || processes > 32) {
            throw new IllegalArgumentException("--processes must be 1 to 32, got " + processes);
        }
        if (processChild == null) {
            return new Spanning(processes, 0, "collbench-" + ProcessHandle.current().pid());
        }
        int colon = processChild.indexOf(':');
        return new Spanning(processes, Integer.parseInt(processChild.substring(0, colon)), processChild.substring(colon + 1));
    }

    /** The validated run: everything a benchmark or explain needs before it builds the team. */
    record Setup(Collective collective, DType dtype, Op op, SizeRange range, Topology topology, int threads,
                 Placement placement, MachineModel model, int root, boolean mpi, WaitStrategy waitStrategy, Spanning spanning) {
        /** A run in one process or over MPI (no --processes). */
        Setup(Collective collective, DType dtype, Op op, SizeRange range, Topology topology, int threads, Placement placement,
              MachineModel model, int root, boolean mpi, WaitStrategy waitStrategy) {
            this(collective, dtype, op, range, topology, threads, placement, model, root, mpi, waitStrategy, null);
        }

        Team.Builder team(Duration timeout) {
            Team.Builder b = TeamInternals.model(Team.builder().ranks(threads).topology(topology).placement(placement), model)
                    .timeout(timeout);
            if (waitStrategy != null) {
                b = b.waitStrategy(waitStrategy);
            }
            if (spanning != null) {
                return b.processes(spanning.n(), spanning.index()).name(spanning.job());
            }
            return mpi ? b.mpi() : b;
        }

        /** Whether the team spans processes (--mpi or --processes). */
        boolean spans() {
            return mpi || spanning != null;
        }

        /** The same run with {@code m} as the team's model (explain --measure calibrates one in its run). */
        Setup withModel(MachineModel m) {
            return new Setup(collective, dtype, op, range, topology, threads, placement, m, root, mpi, waitStrategy, spanning);
        }

        /** The sweep's sizes for collective {@code c}, each distinct once rounded to its shape. */
        java.util.List<Long> sizes(Collective c) {
            return CollectiveBenchmark.distinctSizes(c, range.sizes(), dtype, threads);
        }
    }

    Setup resolve(Collective c) {
        return resolve(c, System.getenv());
    }

    Setup resolve(Collective c, Map<String, String> env) {
        DType t = DType.parse(dtype);
        Op o = Op.parse(op);
        if (c.reduces()) {
            o.checkSupports(t);
        }
        SizeRange range = c == Collective.BARRIER ? new SizeRange(0, 0)
                : SizeRange.of(sizes, minBytes, maxBytes, stepFactor, DEFAULT_SIZES);
        if (iterations != null && iterations < 1) {
            throw new IllegalArgumentException("--iterations must be >= 1, got " + iterations);
        }
        if (iterations != null) {
            Resources.atMost("--iterations", iterations, Resources.MAX_ITERATIONS);
        }
        if (warmup != null && warmup < 0) {
            throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
        }
        if (warmup != null) {
            Resources.atMost("--warmup", warmup, Resources.MAX_ITERATIONS);
        }
        if (timeoutSeconds != null && timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout must be >= 1 s, got " + timeoutSeconds);
        }
        if (timeoutSeconds != null) {
            Resources.atMost("--timeout", timeoutSeconds, Resources.MAX_TIMEOUT_SECONDS);
        }
        Topology topo = where.topology();
        int p = threads != null ? threads : topo.pus().size();
        if (p < 1) {
            throw new IllegalArgumentException("--threads must be >= 1, got " + p);
        }
        // before anything is sized by p (the model, explain's pricing, the benchmark's buffers)
        Resources.threads(p, topo.pus().size());
        if (processes != null && (processes < 1 || processes > 32)) {
            throw new IllegalArgumentException("--processes must be 1 to 32, got " + processes);
        }
        if (processes != null && processes > 1 && mpi) {
            throw new IllegalArgumentException("--processes N spans processes without MPI; --mpi spans an mpirun job: pick one");
        }
        boolean spans = mpi || (processes != null && processes > 1);
        if (c.rooted() && (root < 0 || (!spans && root >= p))) {
            throw new IllegalArgumentException("--root " + root + " is out of range for " + p + " ranks (0.." + (p - 1) + ")");
        }
        Placement placement = where.placement();
        if (!spans) {
            placement.plan(topo, p);   // an explicit PU this machine lacks is refused before anything is built
        }
        MachineModel model = profile != null ? MachineModel.load(profile) : MachineModel.fromEnvironment(topo, env);
        // null: the team's default for its size (WaitStrategy.defaultFor)
        WaitStrategy w = wait == null || wait.equalsIgnoreCase("auto") ? null : WaitStrategy.parse(wait);
        return new Setup(c, t, o, range, topo, p, placement, model, root, mpi, w, spanning());
    }

    long iterationsFor(long bytes) {
        return iterations != null ? iterations : CollectiveBenchmark.defaultIterations(bytes);
    }

    long warmupFor(long iters) {
        return warmup != null ? warmup : CollectiveBenchmark.defaultWarmup(iters);
    }

    /** A benchmark for these options: the default warm-up is capped in wall-clock time, an explicit -x is not. */
    CollectiveBenchmark configure(CollectiveBenchmark bench) {
        if (warmup == null) {
            bench.budgetWarmup();
        }
        if (consume) {
            bench.consumeResults();
        }
        if (heap) {
            bench.heapBuffers();
        }
        return bench;
    }
}
