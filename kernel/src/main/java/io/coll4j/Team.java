package io.coll4j;

import io.coll4j.bindings.copy.Copy;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.memory.RankScratch;
import io.coll4j.kernel.memory.SharedArena;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.topology.Binder;
import io.coll4j.topology.NumaNode;
import io.coll4j.topology.Placement;
import io.coll4j.topology.PlacementPlan;
import io.coll4j.topology.Topology;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A team of thread ranks that run collectives together (docs/design.md, "Public API").
 *
 * <pre>{@code
 * try (Team team = Team.builder().ranks(4).placement(Placement.COMPACT).build()) {
 *     team.run(rank -> {                                  // SPMD: the body runs on every rank's thread
 *         MemorySegment buf = rank.allocate(count * 8);   // NUMA-local to this rank
 *         rank.allreduce(buf, buf, count, DType.F64, Op.SUM);
 *         rank.barrier();
 *     });
 * }
 * }</pre>
 *
 * <p>Ranks are platform threads bound to the PUs of the placement plan ({@link #run}), or threads the
 * caller owns that adopt a rank ({@link #attach}). A team owns one shared arena for its control state,
 * scratch and the buffers its ranks allocate; {@link #close()} frees it.
 *
 * <p>Failure: if a rank's body throws, the team aborts — ranks blocked in a collective get a
 * {@link TeamAbortedException} within milliseconds — and {@link #run} rethrows the first failure. A
 * collective mismatch or timeout aborts the team too. An aborted team cannot run again.
 *
 * <p>Interrupts: interrupting a rank's thread while it waits aborts the team (see {@link Rank}), and
 * {@link #run} rethrows that rank's {@link CollectiveInterruptedException}. Interrupting the thread that
 * called {@link #run} aborts every rank; {@code run} then throws a {@link CollectiveInterruptedException}
 * (rank −1) with the caller's interrupt status still set.
 */
public final class Team implements AutoCloseable {
    /** Default collective timeout: long enough for a 256 MiB collective on an oversubscribed machine. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /**
     * A spanning team's inter-process cost parameters: from the profile its model was loaded from (the
     * builder's, or else {@code COLL4J_PROFILE}'s), with the {@code COLL4J_MPI_*} environment over it.
     */
    private static io.coll4j.kernel.span.HierarchicalCost spanCost(Builder b) {
        java.nio.file.Path profile = b.model != null ? b.model.profilePath() : null;
        String env = System.getenv(MachineModel.PROFILE_ENV);
        if (b.model == null && env != null && !env.isBlank()) {
            profile = java.nio.file.Path.of(env);
        }
        return io.coll4j.kernel.span.HierarchicalCost.from(profile, System.getenv());
    }

    /**
     * How long {@link #close()} waits for ranks that are inside a collective to leave it (they are aborted
     * first, so this is the time to notice an abort, or to finish one native call on a loaded machine).
     */
    static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final int size;
    private final Topology topology;
    private final PlacementPlan plan;
    private final Binder binder;
    private final WaitStrategy waitStrategy;
    /** The adaptive strategy's monitor of this team, or null when the strategy was chosen and does not adapt. */
    private final io.coll4j.kernel.sync.Contention contention;
    private final Duration timeout;
    private final boolean reproducible;
    private final boolean statistics;
    private final SharedArena arena;
    private final TeamContext context;
    private final Selector selector;
    private final Rank[] ranks;
    /** The processes this team spans (Builder.mpi()), or null for a single-process team. */
    private final io.coll4j.kernel.span.ProcessSpan processSpan;
    /** Non-null when processSpan has more than one process: the ranks then run the hierarchical collectives. */
    private final io.coll4j.kernel.span.SpanGroup spanGroup;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile boolean closed;
    /** Non-blocking and persistent collectives: issue window, futures, optional progress thread. */
    private final io.coll4j.kernel.nb.NonBlockingEngine nonBlocking;

    private Team(Builder b) {
        this.topology = b.topology != null ? b.topology : Topology.host();
        this.size = b.ranks > 0 ? b.ranks : topology.pus().size();
        this.timeout = b.timeout;
        this.processSpan = b.span != null ? b.span : b.processLevel.open(size, timeout);
        int sharing = processesOnThisHost();
        Placement placement = SharedHostPlacement.of(b.placement, topology, size, sharing,
                processSpan == null ? 0 : processSpan.process(),
                b.processLevel.mpi(), host());
        this.plan = placement.plan(topology, size);
        this.binder = Binder.forTopology(topology);
        int cpus = Runtime.getRuntime().availableProcessors();
        // the ranks of every process on this host compete for its CPUs: the default strategy must see all of them
        WaitStrategy strategy = b.waitStrategy != null ? b.waitStrategy : WaitStrategy.defaultFor(size * sharing, cpus);
        // the adaptive strategy gets a monitor of this team's own; every other strategy is taken as it is (no detection)
        this.contention = strategy instanceof AdaptiveWaitStrategy ? new io.coll4j.kernel.sync.Contention(new ContentionResponse()) : null;
        this.waitStrategy = contention != null ? AdaptiveWaitStrategy.forTeam(contention) : strategy;
        this.reproducible = b.reproducible;
        this.statistics = b.statistics;
        MachineModel model = b.model != null ? b.model : MachineModel.fromEnvironment(topology, System.getenv());
        this.selector = new Selector(model, b.forced, TeamLayout.of(plan).shape());
        if (processSpan != null && processSpan.processes() > 1) {
            if (b.progressThread) {
                processSpan.close();
                throw new IllegalArgumentException("progressThread: a team over " + processSpan.processes() + " processes "
                        + "(mpi()) cannot have a progress thread: its requests' MPI calls are made by local rank 0's thread "
                        + "when it polls or waits (MPI's order of calls is that rank's order of requests)");
            }
            io.coll4j.kernel.span.HierarchicalCost cost = b.spanCost != null ? b.spanCost : spanCost(b);
            this.spanGroup = b.spanCounts != null ? new io.coll4j.kernel.span.SpanGroup(processSpan, b.spanCounts, cost)
                    : new io.coll4j.kernel.span.SpanGroup(processSpan, size, cost);
        } else {
            this.spanGroup = null;
        }
        this.arena = new SharedArena(binder);
        if (processSpan != null) {
            io.coll4j.kernel.span.SpanMemory.own(arena.scope());   // MPI's non-blocking calls take it in place
        }
        boolean ok = false;
        try {
            ControlBlock ctrl = new ControlBlock(arena.arena(), size, AlgorithmCatalog.peerLines(size));
            RankScratch[] scratch = new RankScratch[size];
            for (int r = 0; r < size; r++) {
                scratch[r] = new RankScratch(arena, nodeOf(r));
            }
            Copy copy = new Copy(Copy.cacheCapacity(topology.llcBytes(), topology.l2Bytes(), topology.llcInclusive(), size));
            long timeoutNanos = timeout.isZero() ? Long.MAX_VALUE : timeout.toNanos();
            long slice = b.maxSliceBytes > 0 ? b.maxSliceBytes : model.defaultMaxSliceBytes();
            this.context = new TeamContext(size, ctrl, waitStrategy, timeoutNanos, TeamLayout.of(plan), copy, reproducible,
                    arena, scratch, slice);
            context.setSchedule(b.schedule);
            context.setContention(contention);   // before the ranks: their wait loops take it at construction
            this.ranks = new Rank[size];
            for (int r = 0; r < size; r++) {
                ranks[r] = new Rank(this, r);
            }
            this.nonBlocking = new io.coll4j.kernel.nb.NonBlockingEngine(context, selector, b.progressThread);
            ok = true;
            io.coll4j.kernel.events.TeamEvent.emit(b.span != null || b.splitOf ? "split" : "created", toString(), size, -1, null);
        } finally {
            if (!ok) {
                arena.close();
                closeSpan();
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Number of ranks. */
    public int size() {
        return size;
    }

    /** Processes the team spans: 1 unless built with {@link Builder#mpi()} under a multi-process launch. */
    public int processes() {
        return processSpan == null ? 1 : processSpan.processes();
    }

    /** This process's index among {@link #processes()}. */
    public int processIndex() {
        return processSpan == null ? 0 : processSpan.process();
    }

    /**
     * Total ranks over every process: {@code size()} (this process's ranks) × {@link #processes()} for a team built
     * with {@code mpi()}; a sub-team across processes may hold a different number in each.
     */
    public int globalSize() {
        return spanGroup != null ? spanGroup.globalSize() : size * processes();
    }

    /** Host name of this process. */
    public String host() {
        return host(processIndex());
    }

    /** Host name of process {@code process}. */
    public String host(int process) {
        if (processSpan != null) {
            return processSpan.host(process);
        }
        if (process != 0) {
            throw new IllegalArgumentException("process must be 0 on a single-process team, got " + process);
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** One line on how ranks in different processes talk: the MPI library and thread level, or that they do not. */
    public String transport() {
        return processSpan == null ? "none (one process)" : processSpan.describe();
    }

    /** Processes of this team's job on this process's host (1 without MPI). */
    private int processesOnThisHost() {
        int n = 0;
        for (int p = 0; p < processes(); p++) {
            n += host(p).equals(host()) ? 1 : 0;
        }
        return Math.max(n, 1);
    }

    io.coll4j.kernel.span.SpanGroup spanGroup() {
        return spanGroup;
    }

    public Topology topology() {
        return topology;
    }

    /** Where each rank runs. */
    public PlacementPlan placement() {
        return plan;
    }

    public WaitStrategy waitStrategy() {
        return waitStrategy;
    }

    /**
     * What the adaptive wait strategy found so far: empty when no rank of this team was found kept off its core by
     * other work (or its strategy does not adapt), else the episodes, the first one's figures, and how many ranks
     * are contended now (they then spin up to ~1 ms before parking; docs/design.md, "Waiting").
     */
    public String contentionReport() {
        return contention == null ? "" : contention.report();
    }

    io.coll4j.kernel.sync.Contention contention() {
        return contention;
    }


    /** The collective timeout ({@link Duration#ZERO}: none). */
    public Duration timeout() {
        return timeout;
    }

    public boolean reproducible() {
        return reproducible;
    }

    /** Whether every blocking collective is timed for {@link #stats()} ({@link Builder#statistics}). */
    public boolean statistics() {
        return statistics;
    }

    /**
     * Calls, bytes and time of this team's blocking collectives so far, per collective and algorithm, summed
     * over its ranks (of this process). Counts and bytes are always kept; time only for calls made with
     * {@link Builder#statistics} on or while a JFR recording had the {@code io.coll4j.CollectiveCall} event
     * enabled. Read while ranks are in calls, the totals are of some moment during the read.
     */
    public TeamStats stats() {
        return new TeamStats(context.stats().rows().stream()
                .map(r -> new TeamStats.Row(r.collective(), r.algorithm(), r.calls(), r.bytes(), r.timedCalls(),
                        java.time.Duration.ofNanos(r.nanos())))
                .toList());
    }

    /** The machine model algorithms are selected with (coll4j's tools: {@code TeamInternals.model}). */
    MachineModel model() {
        return selector.model();
    }

    /**
     * The team's algorithm selector: which algorithm {@code auto} picks for a call, and every candidate's
     * predicted time ({@code collbench explain}); coll4j's tools reach it through {@code TeamInternals}.
     */
    Selector selector() {
        return selector;
    }

    /** Bytes of native memory the team holds: control block, rank buffers and scratch. */
    public long arenaBytes() {
        return context.ctrl().bytes() + arena.allocatedBytes() + arena.scratchBytes();
    }

    /** Bytes of scratch the team's algorithms hold right now. */
    public long scratchBytes() {
        return arena.scratchBytes();
    }

    /** True once a failure, mismatch or timeout aborted the team. */
    public boolean isAborted() {
        return context.isAborted();
    }

    /**
     * Runs {@code body} on every rank, one platform thread per rank bound to its PU, and returns when
     * every body has returned. The first failure is rethrown (unchecked exceptions and errors as they are,
     * checked ones wrapped in {@link TeamFailureException}); the other ranks are aborted. Actions of a
     * rank's body happen-before {@code run} returns.
     *
     * @throws IllegalStateException when the team is closed, aborted, already running, has attached
     *                               ranks, or when called from one of its rank threads
     */
    public void run(RankBody body) {
        Objects.requireNonNull(body, "body");
        checkUsable();
        for (Rank r : ranks) {
            if (r.owner() == Thread.currentThread()) {
                throw new IllegalStateException("team.run called from rank " + r.id() + "'s thread");
            }
        }
        if (!running.compareAndSet(false, true)) {
            throw new IllegalStateException("the team is already running");
        }
        try {
            for (Rank r : ranks) {
                if (r.owner() != null) {
                    throw new IllegalStateException("rank " + r.id() + " is attached to thread " + r.owner().getName()
                            + "; close it before team.run");
                }
            }
            context.clearReturned();
            TeamThreads.runAll(ranks, body, context);
            TeamContext.Abort a = context.abortState();
            if (a != null && spanGroup != null) {
                // the other processes are (or will be) blocked in MPI waiting for this one: no exception can
                // reach them, so the whole job ends here, after saying who failed and why
                spanGroup.span().abort("coll4j: global rank " + (a.rank() >= 0 ? spanGroup.globalId(a.rank()) : -1)
                        + " (process " + processIndex() + " on " + host() + ", local rank " + a.rank() + ") failed: "
                        + a.cause() + "; aborting every process of the job");
            }
            if (a != null) {
                Throwable c = a.cause();
                if (c instanceof RuntimeException re) {
                    throw re;
                }
                if (c instanceof Error e) {
                    throw e;
                }
                throw new TeamFailureException((a.rank() >= 0 ? "rank " + a.rank() + " failed: "
                        : a.origin() != null ? a.origin() + " failed: " : "the team was stopped: ") + c, c);
            }
        } finally {
            // the bodies of this run are over: ranks attached later (team.attach) are not "returned"
            context.clearReturned();
            running.set(false);
        }
    }

    /**
     * {@link #run} for a body that returns a value: element r of the result is what rank r's body returned
     * (this process's ranks, by {@link Rank#localId()}; null where a body returned null). Failures are
     * {@link #run}'s.
     *
     * <pre>{@code
     * List<Double> norms = team.call(rank -> rank.allreduce(localSquares(rank), Op.SUM));
     * }</pre>
     */
    public <T> java.util.List<T> call(RankFunction<? extends T> body) {
        Objects.requireNonNull(body, "body");
        Object[] values = new Object[size];
        // each rank writes its own element; run's join orders every body's writes before its return
        run(rank -> values[rank.localId()] = body.apply(rank));
        @SuppressWarnings("unchecked")
        java.util.List<T> out = (java.util.List<T>) java.util.Collections.unmodifiableList(java.util.Arrays.asList(values));
        return out;
    }

    /**
     * Makes the calling thread rank {@code rank} (and binds it to that rank's PU), for threads the caller
     * owns — JMH workers, a user pool. The rank stays attached until {@link Rank#close()}.
     *
     * @throws IllegalArgumentException when {@code rank} is out of range
     * @throws IllegalStateException    when the team is closed, aborted, running, or the rank is attached elsewhere
     */
    public Rank attach(int rank) {
        checkUsable();
        if (rank < 0 || rank >= size) {
            throw new IllegalArgumentException("rank " + rank + " is out of range 0.." + (size - 1));
        }
        if (running.get()) {
            throw new IllegalStateException("team.run is in progress; attach is for threads outside run");
        }
        Rank r = ranks[rank];
        if (!r.tryAttach(Thread.currentThread())) {
            Thread o = r.owner();
            throw new IllegalStateException("rank " + rank + " is already attached to thread " + (o == null ? "?" : o.getName()));
        }
        r.bindThread();
        return r;
    }

    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("the team is closed");
        }
        TeamContext.Abort a = context.abortState();
        if (a != null) {
            throw new IllegalStateException("the team was aborted (" + (a.rank() >= 0 ? "rank " + a.rank() + ": " : "")
                    + a.cause() + ") and cannot be used again", a.cause());
        }
    }

    /**
     * Closes the team and frees its native memory; buffers from {@link Rank#allocate} become inaccessible.
     * Ranks still in a collective are aborted first, and their calls are given up to
     * 5 s to leave before the memory is freed; later calls on attached ranks are an
     * {@link IllegalStateException}. Idempotent.
     *
     * @throws IllegalStateException when called from one of the team's rank threads
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (Rank r : ranks) {
            if (r.owner() == Thread.currentThread() && running.get()) {
                throw new IllegalStateException("team.close called from rank " + r.id() + "'s thread inside team.run");
            }
        }
        closed = true;
        io.coll4j.kernel.events.TeamEvent.emit("closed", toString(), size, -1, null);
        boolean busy = running.get();
        for (Rank r : ranks) {
            busy |= r.owner() != null && r.owner() != Thread.currentThread();
        }
        if (busy) {
            context.abort(new IllegalStateException("the team was closed"), -1);
            // let calls in flight leave (they see the abort within a wait-strategy park) before the memory
            // they use is freed; later calls fail in checkCaller with IllegalStateException
            long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
            while ((running.get() || anyInCall()) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        // outstanding requests never block close: their futures fail, the progress thread stops first
        nonBlocking.close();
        // sub-teams die with their parent (ranks still in one of their collectives are aborted)
        subTeams.closed();
        // the span first: a request left un-awaited may still be in MPI, which MPI_Finalize (the last team's span
        // close) may progress into the team's memory
        closeSpan();
        if (processSpan != null && processSpan.requestsInFlight()) {
            // not the last team: MPI is not finalised and may still progress a request into this memory (posted on
            // it in place, SpanMemory): it stays allocated rather than be written after it was freed
            return;
        }
        if (processSpan != null) {
            io.coll4j.kernel.span.SpanMemory.disown(arena.scope());
        }
        closeArena();
    }

    private void closeSpan() {
        if (spanGroup != null) {
            spanGroup.close();
        } else if (processSpan != null) {
            processSpan.close();
        }
    }

    /** True while a rank (other than the calling thread's) is inside a collective. */
    private boolean anyInCall() {
        for (Rank r : ranks) {
            if (r.owner() != Thread.currentThread() && r.inCall()) {
                return true;
            }
        }
        return false;
    }

    private void closeArena() {
        // a rank inside a native call holds its segments' sessions for the call (Arena.close then fails):
        // retry until the call has returned
        long deadline = System.nanoTime() + CLOSE_WAIT_NANOS;
        while (true) {
            try {
                arena.close();
                return;
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("team.close: a rank still uses the team's memory after "
                            + TimeUnit.NANOSECONDS.toMillis(CLOSE_WAIT_NANOS) + " ms; the memory stays allocated", e);
                }
                Thread.yield();
            }
        }
    }

    boolean isClosed() {
        return closed;
    }

    io.coll4j.kernel.nb.NonBlockingEngine nonBlocking() {
        return nonBlocking;
    }

    /** True when the team runs a progress thread for its non-blocking collectives. */
    public boolean hasProgressThread() {
        return nonBlocking.hasProgressThread();
    }

    TeamContext context() {
        return context;
    }

    SharedArena arena() {
        return arena;
    }

    Binder binder() {
        return binder;
    }

    /** The NUMA node of rank {@code r}'s PU to bind its memory to, or null (one node, or the topology does not say). */
    NumaNode nodeOf(int r) {
        if (topology.numaNodes().size() < 2) {
            // one node: nothing to choose, and binding is not free — mbind(MIGRATE) took the process's mmap lock
            // for writing and drained every CPU's page lists; under load (a 3 x 2 cross-process job at load 13-31)
            // a rank sat 40 s in hwloc_set_area_membind of a fresh rank.allocate and the job timed out. (The
            // binders now migrate only when touched pages sit on another node, but even the policy call is a
            // syscall per allocation with nothing to gain here.)
            return null;
        }
        int numa = plan.pu(r).numa();
        return numa >= 0 && numa < topology.numaNodes().size() ? topology.numaNodes().get(numa) : null;
    }

    // ------------------------------------------------------------------ sub-teams

    /** The color of a rank that joins no sub-team in {@link Rank#split} (MPI_UNDEFINED): it gets null. */
    public static final int UNDEFINED = -1;

    /** This team's sub-teams, and its place as one: its parent, its members' closes. */
    private final SubTeams subTeams = new SubTeams(this);

    /** Building and closing sub-teams ({@link TeamSplit}, {@link Rank#split}). */
    SubTeams subTeams() {
        return subTeams;
    }

    /** The team this one was split from ({@link Rank#split}), or null for a team built with a builder. */
    public Team parent() {
        return subTeams.parent();
    }

    /**
     * A member closed its rank of this sub-team ({@link Rank#close}): the last one to do so closes the sub-team,
     * so a sub-team is released in one step, by its members, with no second call from anyone.
     */
    void memberClosed() {
        subTeams.memberClosed();
    }

    @Override
    public String toString() {
        return "Team[" + size + " ranks, " + plan.placement().name() + " on " + topology.source() + ", wait "
                + waitStrategy.alias() + (reproducible ? ", reproducible" : "") + "]";
    }

    /** Builds a {@link Team}. Every setting has a default; {@link #build()} validates them together. */
    public static final class Builder {
        private int ranks;
        private Topology topology;
        private Placement placement = Placement.COMPACT;
        private WaitStrategy waitStrategy;
        private Duration timeout = DEFAULT_TIMEOUT;
        private final Map<Collective, CollectiveAlgorithm> forced = new EnumMap<>(Collective.class);
        private MachineModel model;
        private boolean reproducible;
        private boolean statistics;
        /** Built by {@link SubTeams#subTeam} (for the team event's action). */
        private boolean splitOf;
        private io.coll4j.kernel.algo.Schedule schedule;
        private long maxSliceBytes;
        private boolean progressThread;
        /** How the team spans processes: mpi(), or processes(n, index) with name(job), or not at all. */
        private final ProcessLevel processLevel = new ProcessLevel();
        /** A sub-team's span across processes ({@link TeamSplit}), owned by the team built; null otherwise. */
        private io.coll4j.kernel.span.ProcessSpan span;
        private io.coll4j.kernel.span.HierarchicalCost spanCost;
        /** A sub-team's ranks in each process of {@link #span} (split): not every process need hold as many. */
        private int[] spanCounts;

        private Builder() {
        }

        /** Number of ranks (default: the topology's PU count). More ranks than PUs is allowed (oversubscription). */
        public Builder ranks(int ranks) {
            if (ranks < 1) {
                throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
            }
            this.ranks = ranks;
            return this;
        }

        /** The topology to place ranks on (default {@link Topology#host()}); a synthetic one disables binding. */
        public Builder topology(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /** Placement of ranks on PUs (default {@link Placement#COMPACT}). */
        public Builder placement(Placement placement) {
            this.placement = Objects.requireNonNull(placement, "placement");
            return this;
        }

        /** How ranks wait (default: {@link WaitStrategy#defaultFor} ranks and available CPUs). */
        public Builder waitStrategy(WaitStrategy waitStrategy) {
            this.waitStrategy = Objects.requireNonNull(waitStrategy, "waitStrategy");
            return this;
        }

        /** Collective timeout (default {@link #DEFAULT_TIMEOUT}); {@link Duration#ZERO} waits forever. */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /** Forces algorithm {@code name} for {@code collective} ({@code "auto"} restores the model's choice). */
        public Builder algorithm(Collective collective, String name) {
            Objects.requireNonNull(collective, "collective");
            Objects.requireNonNull(name, "name");
            if (name.equalsIgnoreCase("auto")) {
                forced.remove(collective);
            } else {
                forced.put(collective, AlgorithmCatalog.find(collective, name));
            }
            return this;
        }

        /**
         * The machine model algorithms are selected with (default: the profile named by {@code COLL4J_PROFILE},
         * else the defaults of the topology). Internal: users give a profile ({@link #profile}); coll4j's
         * tools set a model through {@code TeamInternals.model}.
         */
        Builder model(MachineModel model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * Loads the machine model from a profile written by {@code collbench tune} (docs/design.md, "Machine model and selection"); read here, so a
         * missing or malformed profile is an {@link IllegalArgumentException} naming the path and the field.
         */
        public Builder profile(java.nio.file.Path profile) {
            this.model = MachineModel.load(Objects.requireNonNull(profile, "profile"));
            return this;
        }

        /**
         * With true, every blocking collective is timed (two clock reads a call) for {@link Team#stats()}; calls
         * and bytes are counted either way. Default false: the 8-byte path pays nothing for it.
         */
        public Builder statistics(boolean statistics) {
            this.statistics = statistics;
            return this;
        }

        /** With true, every algorithm reduces in ascending rank order: results equal the scalar left fold bitwise. */
        public Builder reproducible(boolean reproducible) {
            this.reproducible = reproducible;
            return this;
        }

        /**
         * I_max, the largest slice the strip-mined algorithms move per step (default: from the machine model,
         * a fraction of L2). Small values reach multi-slice paths with little data (tests). Internal:
         * coll4j's tools set it through {@code TeamInternals.maxSliceBytes}.
         */
        Builder maxSliceBytes(long bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("maxSliceBytes must be >= 64 (a cache line), got " + bytes);
            }
            this.maxSliceBytes = bytes;
            return this;
        }

        /** Records who reads whose memory in every collective (tests, diagnostics); off by default. Internal. */
        Builder recordSchedule(io.coll4j.kernel.algo.Schedule schedule) {
            this.schedule = Objects.requireNonNull(schedule, "schedule");
            return this;
        }

        /**
         * Runs a progress thread for the team's non-blocking and persistent collectives (default false):
         * it works on every fully posted collective, so results complete while all ranks compute. Worth a
         * spare core; without one it only takes time from the ranks.
         */
        public Builder progressThread(boolean progressThread) {
            this.progressThread = progressThread;
            return this;
        }

        /**
         * Spans every process of an MPI job (started by {@code mpirun}) with {@link #ranks} thread ranks in each:
         * rank ids become global (process index × ranks + local id) and every blocking collective and its plan
         * runs hierarchically — coll4j inside a process, MPI between processes — with every dtype and op, user ops
         * included, and the semantics of one process (AVG divides by the global count); so do the non-blocking,
         * persistent and chained forms of barrier, bcast, reduce, allreduce, reduce-scatter and allgather (their MPI
         * part moves while local rank 0 polls or waits). Needs {@code io.coll4j:coll4j-mpi} on the path and an MPI library; every process must build
         * its teams in the same order with the same rank count. Under {@code mpirun -np 1} the team is an
         * ordinary one (no MPI call on any collective's path). MPI is finalised when the last such team closes.
         *
         * @throws IllegalStateException from {@link #build()} when coll4j-mpi or MPI is missing, or the process
         *                               was not started by mpirun, naming what
         */
        public Builder mpi() {
            processLevel.mpi = true;
            return this;
        }

        /**
         * Spans {@code processes} JVM processes of this host without MPI, {@link #ranks} thread ranks in each, through one
         * file of /dev/shm mapped into every process (docs/design.md, "The shared-mapping span"): this process is number
         * {@code index} (0 creates the mapping, the others join it, within the {@link #timeout}); every process passes
         * the same {@link #name}. Rank ids and collectives are global as with {@link #mpi()}. {@code processes(1, 0)}
         * is an ordinary team.
         *
         * @throws IllegalArgumentException when {@code index} is outside {@code 0 .. processes - 1}
         */
        public Builder processes(int processes, int index) {
            processLevel.processes(processes, index);
            return this;
        }

        /**
         * Bytes of the shared mapping per process of a {@link #processes} team for {@link Rank#allocate}, whose buffers
         * the collectives work on in place (default 0: a quarter of /dev/shm's free space shared among the processes;
         * the file is sparse). Process 0's value counts. @throws IllegalArgumentException when {@code bytes < 0}
         */
        public Builder sharedMemory(long bytes) {
            processLevel.sharedBytes(bytes);
            return this;
        }

        /**
         * The job name the {@link #processes} share: the mapping is /dev/shm/coll4j-NAME-UID. Letters, digits, '.', '_'
         * and '-'; one team at a time per name (a later team of the same name waits for the earlier one's file to go).
         */
        public Builder name(String job) {
            processLevel.job = Objects.requireNonNull(job, "name");
            return this;
        }

        /**
         * Makes this a sub-team of a split ({@link SubTeams}): across processes ({@code span} non-null) over that
         * span, with {@code spanCounts} ranks in each of its processes and the parent's inter-process cost.
         */
        Builder splitOf(io.coll4j.kernel.span.ProcessSpan span, int[] spanCounts, io.coll4j.kernel.span.HierarchicalCost spanCost) {
            this.splitOf = true;
            this.span = span;
            this.spanCounts = spanCounts;
            this.spanCost = spanCost;
            return this;
        }

        public Team build() {
            return new Team(this);
        }
    }

    static {
        // before any collective is compiled: see SegmentKinds (a later first heap segment deoptimises the path)
        io.coll4j.kernel.memory.SegmentKinds.load();
        TeamInternalsAccess.install();
    }
}
