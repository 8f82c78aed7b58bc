package io.coll4j.cli;

import io.coll4j.Chain;
import io.coll4j.Collective;
import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.Team;
import io.coll4j.TeamAbortedException;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * The misuse soak ({@code collbench soak --chaos}): random sequences of blocking collectives, one-shot requests
 * ({@code i*}), persistent requests ({@code *Init}, several rounds), chains and user-op reductions on teams of 2..5
 * ranks with a short timeout, and in most teams one injected {@link Fault}. Every team ("episode") is a function of
 * its seed, the same on every rank (and every process, {@code --mpi}).
 *
 * <p>Oracle (docs/design.md, "Error contract"): every call on every rank either returns the scalar reference's
 * result ({@link BenchData}) or throws a documented exception ({@link #DOCUMENTED}) within the team timeout plus
 * {@link #SLACK_NANOS} (a watchdog per rank and call), a failed request stays failed (isDone, await, toFuture and a
 * persistent request's next start), and a fault the contract says is reported (a mismatch, a bad argument, an
 * interrupt of a waiting rank) is reported. A fatal fault aborts the team; the episode ends and the next team is
 * built. Bad arguments and buffers closed before the call are an {@link IllegalArgumentException} that touches no
 * shared state, so the rank retries the call correctly on the same team.
 */
final class Chaos {
    /** What one episode may inject (at most one per episode, on one rank, the victim). */
    enum Fault {
        CLOSE_BEFORE("close-before", false), CLOSE_DURING("close-during", true), INTERRUPT_BLOCKING("interrupt-blocking", true),
        INTERRUPT_AWAIT("interrupt-await", true), THROW_BODY("throw-body", true), THROW_USEROP("throw-userop", true),
        MISMATCH("mismatch", true), STALL("stall", true), BAD_ARGS("bad-args", false);

        final String cli;
        /** Ends the team (and, across processes, the job); false: the victim gets an IllegalArgumentException and goes on. */
        final boolean fatal;

        Fault(String cli, boolean fatal) {
            this.cli = cli;
            this.fatal = fatal;
        }

        static Set<Fault> parse(String list) {
            if (list == null || list.isBlank() || list.equals("all")) {
                return EnumSet.allOf(Fault.class);
            }
            EnumSet<Fault> s = EnumSet.noneOf(Fault.class);
            if (list.equals("none")) {
                return s;
            }
            for (String n : list.split(",")) {
                Fault f = Arrays.stream(values()).filter(v -> v.cli.equals(n.trim())).findFirst().orElseThrow(() ->
                        new IllegalArgumentException("--faults: unknown kind '" + n.trim() + "' (expected all, none or a list of "
                                + String.join(",", Arrays.stream(values()).map(v -> v.cli).toList()) + ")"));
                s.add(f);
            }
            return s;
        }
    }

    /** How a call is made. */
    enum Form { BLOCKING, USEROP, ONESHOT, PERSISTENT, CHAIN }

    /** The exceptions docs/design.md, "Error contract", allows a call to end with. */
    static final List<Class<? extends RuntimeException>> DOCUMENTED = List.of(IllegalArgumentException.class,
            CollectiveMismatchException.class, TeamAbortedException.class, CollectiveTimeoutException.class,
            CollectiveInterruptedException.class, IllegalStateException.class);

    /** Beyond the team timeout, how long a call may take to end before it is a hang. */
    static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The soak stops after this many hangs: each leaves threads behind that may spin. */
    static final int MAX_HANGS = 3;

    private static final Collective[] COLLECTIVES = {Collective.BARRIER, Collective.BCAST, Collective.REDUCE, Collective.ALLREDUCE,
            Collective.REDUCE_SCATTER, Collective.ALLGATHER};
    private static final DType[] DTYPES = {DType.F64, DType.F32, DType.I32, DType.I64};

    /** Thrown by the soak itself (a rank body or a user op) as the injected failure. */
    static final class InjectedFault extends RuntimeException {
        InjectedFault(String message) {
            super(message, null, false, false);
        }
    }

    /** Ends a rank's call whose bounded wait ran out (counted as a hang of the episode, not as an exception). */
    static final class Hung extends RuntimeException {
        Hung(String message) {
            super(message, null, false, false);
        }
    }

    static final String[] WAITS = {"await", "poll-isDone", "await(1ms)-loop", "toFuture-get"};

    /** One call of an episode, as every rank derives it. */
    record Spec(Form form, Collective c, DType t, Op op, int n, int root, boolean inPlace, int waitMode, int rounds,
                boolean commutative) {
        boolean reduces() {
            return c == Collective.REDUCE || c == Collective.ALLREDUCE || c == Collective.REDUCE_SCATTER;
        }

        boolean rooted() {
            return c == Collective.REDUCE || c == Collective.BCAST;
        }

        @Override
        public String toString() {
            return form.name().toLowerCase(Locale.ROOT) + " " + c.cliName() + (c == Collective.BARRIER ? "" : " " + t + (op == null ? "" : " " + op)
                    + " n=" + n + (rooted() ? " root=" + root : "") + (inPlace ? " in-place" : "")) + (form == Form.PERSISTENT ? " rounds=" + rounds : "")
                    + (form == Form.ONESHOT || form == Form.PERSISTENT || form == Form.CHAIN ? " " + WAITS[waitMode] : "");
        }
    }

    /** One team: its size, timeout, calls and the fault (null: none) at call {@code faultAt} on rank {@code victim}. */
    record Episode(long seed, int p, int localRanks, long timeoutMs, boolean progressThread, List<Spec> calls, Fault fault,
                   int faultAt, int victim, int variant) {
        String describe() {
            return "team seed " + seed + ": p=" + p + " timeout=" + timeoutMs + "ms" + (progressThread ? " progress-thread" : "")
                    + ", " + calls.size() + " calls" + (fault == null ? ", no fault" : ", fault " + fault.cli + "#" + variant + " at call "
                    + faultAt + " (" + calls.get(faultAt) + ") on rank " + victim);
        }
    }

    // ---- the counters: one flat vector, so processes can sum theirs (--mpi) ----

    static final String[] EXCEPTION_NAMES = {"IllegalArgumentException", "CollectiveMismatchException", "TeamAbortedException",
            "CollectiveTimeoutException", "CollectiveInterruptedException", "IllegalStateException", "InjectedFault (the soak's own)"};
    static final int CALLS = 0, RANK_CALLS = 1, OK = 2, WRONG = 3, UNDOCUMENTED = 4, HANGS = 5, REVIVED = 6, EPISODES = 7,
            UNPROVOKED = 8, CLOSE_REFUSED = 9;
    static final int FAULTS = 10;
    static final int MISSED = FAULTS + Fault.values().length;
    static final int EXC = MISSED + Fault.values().length;
    static final int SIZE = EXC + EXCEPTION_NAMES.length;

    /** What a run counted, and the first failures in words (with the seed that reproduces each). */
    static final class Stats {
        final AtomicLongArray v = new AtomicLongArray(SIZE);
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
        /** Teams whose ranks the watchdog found stuck (their threads are left behind). */
        volatile int stuck;

        void add(int i, long d) {
            v.addAndGet(i, d);
        }

        long get(int i) {
            return v.get(i);
        }

        long[] toArray() {
            long[] a = new long[SIZE];
            for (int i = 0; i < SIZE; i++) {
                a[i] = v.get(i);
            }
            return a;
        }

        private final java.util.Set<String> failed = java.util.concurrent.ConcurrentHashMap.newKeySet();

        void fail(String s) {
            if (failures.size() < 40) {
                failures.add(s);
            }
        }

        /** The first failure of a kind in a team only (the others ranks' are alike): {@code key} names both. */
        void fail(String key, String s) {
            if (failed.add(key)) {
                fail(s);
            }
        }

        boolean clean() {
            return get(WRONG) == 0 && get(UNDOCUMENTED) == 0 && get(HANGS) == 0 && get(REVIVED) == 0 && missed() == 0;
        }

        long missed() {
            long m = 0;
            for (int i = 0; i < Fault.values().length; i++) {
                m += get(MISSED + i);
            }
            return m;
        }

        /** The summary a reviewer can paste: every counter, then the failures. */
        static List<String> summary(long[] a, Iterable<String> failures, Iterable<String> notes) {
            List<String> out = new ArrayList<>();
            out.add(String.format(Locale.ROOT, "calls: %d (%d rank-calls: %d returned the reference result, %d ended in an exception)",
                    a[CALLS], a[RANK_CALLS], a[OK], a[RANK_CALLS] - a[OK] - a[WRONG]));
            out.add("teams: " + a[EPISODES]);
            StringBuilder f = new StringBuilder("faults injected:");
            long total = 0;
            for (Fault k : Fault.values()) {
                f.append(' ').append(k.cli).append(' ').append(a[FAULTS + k.ordinal()]);
                total += a[FAULTS + k.ordinal()];
            }
            out.add(f.append(" (total ").append(total).append(')').toString());
            StringBuilder e = new StringBuilder("documented exceptions (per rank):");
            for (int i = 0; i < EXCEPTION_NAMES.length; i++) {
                e.append(' ').append(EXCEPTION_NAMES[i]).append(' ').append(a[EXC + i]).append(i + 1 < EXCEPTION_NAMES.length ? "," : "");
            }
            out.add(e.toString());
            out.add("exceptions in teams without a fault: " + a[UNPROVOKED] + "   arena closes refused (buffer in use): " + a[CLOSE_REFUSED]);
            StringBuilder m = new StringBuilder("faults not reported as the contract says:");
            for (Fault k : Fault.values()) {
                if (a[MISSED + k.ordinal()] > 0) {
                    m.append(' ').append(k.cli).append(' ').append(a[MISSED + k.ordinal()]);
                }
            }
            out.add(m.length() == "faults not reported as the contract says:".length() ? m + " 0" : m.toString());
            out.add("hangs: " + a[HANGS]);
            out.add("wrong results: " + a[WRONG]);
            out.add("undocumented exceptions: " + a[UNDOCUMENTED]);
            out.add("failed requests that later looked complete: " + a[REVIVED]);
            for (String s : failures) {
                out.add("FAIL " + s);
            }
            for (String s : notes) {
                out.add("note " + s);
            }
            return out;
        }
    }

    private Chaos() {
    }

    // ---- planning: every rank and process derives the same episode from its seed ----

    static Episode plan(long seed, Set<Fault> faults, boolean mpi, int processes, int localRanks, int maxCalls) {
        SplittableRandom r = new SplittableRandom(seed);
        int t = mpi ? localRanks : 2 + r.nextInt(4);
        int p = mpi ? processes * t : t;
        long timeoutMs = mpi ? 10_000 : (r.nextBoolean() ? 1_000 : 2_000);
        boolean progress = !mpi && r.nextInt(4) == 0;
        int k = Math.max(1, Math.min(maxCalls, 8 + r.nextInt(25)));
        List<Spec> calls = new ArrayList<>(k);
        for (int i = 0; i < k; i++) {
            calls.add(spec(r, p, progress, null));
        }
        Fault fault = null;
        int at = 0;
        int victim = r.nextInt(p);
        int variant = r.nextInt(64);
        if (!faults.isEmpty() && r.nextInt(4) != 0) {
            Fault[] fs = faults.toArray(Fault[]::new);
            fault = fs[r.nextInt(fs.length)];
            at = r.nextInt(k);
            calls.set(at, spec(r, p, progress, fault));
        }
        return new Episode(seed, p, t, timeoutMs, progress, List.copyOf(calls), fault, at, victim, variant);
    }

    /** A random call; with {@code fault}, one the fault applies to. */
    private static Spec spec(SplittableRandom r, int p, boolean progress, Fault fault) {
        Form form = Form.values()[r.nextInt(Form.values().length)];
        Collective c = COLLECTIVES[r.nextInt(COLLECTIVES.length)];
        if (fault != null) {
            switch (fault) {
                case THROW_USEROP -> form = Form.USEROP;
                case INTERRUPT_BLOCKING -> {
                    form = Form.BLOCKING;
                    c = r.nextBoolean() ? Collective.ALLREDUCE : r.nextBoolean() ? Collective.ALLGATHER : Collective.BARRIER;
                }
                case INTERRUPT_AWAIT -> {
                    form = r.nextBoolean() ? Form.ONESHOT : r.nextBoolean() ? Form.PERSISTENT : Form.CHAIN;
                    c = r.nextBoolean() ? Collective.ALLREDUCE : r.nextBoolean() ? Collective.ALLGATHER : Collective.BARRIER;
                }
                case CLOSE_DURING -> {
                    // during a request: the victim posts, closes the arena of its buffers, then waits
                    form = r.nextBoolean() ? Form.ONESHOT : r.nextBoolean() ? Form.PERSISTENT : Form.CHAIN;
                    if (c == Collective.BARRIER) {
                        c = Collective.ALLREDUCE;
                    }
                }
                case CLOSE_BEFORE, BAD_ARGS -> {
                    if (c == Collective.BARRIER) {
                        c = Collective.ALLREDUCE;
                    }
                }
                default -> {
                }
            }
        }
        if (form == Form.USEROP) {
            c = r.nextBoolean() ? Collective.ALLREDUCE : Collective.REDUCE;
        }
        DType t = form == Form.USEROP ? DType.I64 : DTYPES[r.nextInt(DTYPES.length)];
        Op op = null;
        if (form == Form.USEROP) {
            op = Op.USER;
        } else if (c == Collective.REDUCE || c == Collective.ALLREDUCE || c == Collective.REDUCE_SCATTER) {
            Op[] ops = Arrays.stream(new Op[]{Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.BAND, Op.BOR, Op.BXOR})
                    .filter(o -> o.supports(t)).toArray(Op[]::new);
            op = ops[r.nextInt(ops.length)];
        }
        int size = r.nextInt(100);
        int n = size < 75 ? r.nextInt(65) : size < 97 ? r.nextInt(1025) : r.nextInt(16_385);
        if (fault != null || form == Form.USEROP) {
            n = Math.max(n, 2);     // a fault needs data to act on (a user op is not called on nothing)
        }
        if (fault == Fault.CLOSE_DURING && r.nextBoolean()) {
            n = Math.max(n, 4096 + r.nextInt(65_536));   // large enough that the work (or the MPI call) is still under way
        }
        int root = r.nextInt(p);
        boolean inPlace = c != Collective.REDUCE_SCATTER && c != Collective.BARRIER && r.nextBoolean();
        // 0 await(), 1 poll isDone(), 2 await(Duration) in steps, 3 toFuture().get (progress thread only)
        int wait = fault == Fault.INTERRUPT_AWAIT ? 2 * r.nextInt(2) : r.nextInt(progress ? 4 : 3);   // an interrupt needs a wait
        if (form == Form.CHAIN && wait == 3) {
            wait = 1;             // a chain moves only while its rank polls or waits (ChainRequest): never its future alone
        }
        int rounds = 1 + r.nextInt(3);
        return new Spec(form, c, t, op, n, root, inPlace, wait, rounds, r.nextBoolean());
    }

    // ---- running episodes ----

    /** Hooks of the cross-process run: a fatal fault's announcement, the team builder. */
    interface Hooks {
        Team.Builder builder(Episode e);

        void beforeFatal(Episode e);
    }

    static final Hooks LOCAL = new Hooks() {
        @Override
        public Team.Builder builder(Episode e) {
            return Team.builder().ranks(e.p()).timeout(Duration.ofMillis(e.timeoutMs())).progressThread(e.progressThread());
        }

        @Override
        public void beforeFatal(Episode e) {
        }
    };

    /** Runs episodes from {@code seed} until {@code calls} calls were made or {@code maxTime} passed. */
    static Stats run(long calls, long seed, Duration maxTime, Set<Fault> faults, Consumer<String> log) {
        Stats s = new Stats();
        SplittableRandom teams = new SplittableRandom(seed);
        long deadline = System.nanoTime() + maxTime.toNanos();
        while (s.get(CALLS) < calls && System.nanoTime() < deadline && s.stuck < MAX_HANGS) {
            Episode e = plan(teams.nextLong(), faults, false, 1, 0, (int) Math.min(Integer.MAX_VALUE, calls - s.get(CALLS)));
            episode(e, LOCAL, s, log);
        }
        if (s.stuck >= MAX_HANGS) {
            s.notes.add("stopped after " + MAX_HANGS + " teams with stuck ranks (their threads are left behind)");
        }
        return s;
    }

    /**
     * The soak across the processes of an MPI job: one spanning team ({@code ranks(localRanks).mpi()}) per episode,
     * a keeper team of one rank per process open for the whole run (MPI is finalised when the last team over it
     * closes), the seed and the decision to stop agreed through it. A fatal fault ends the job (docs/design.md,
     * "Errors across processes": the failing process calls MPI_Abort), so at most one is injected, in episode
     * {@code 2 + seed % 4}, announced with the counts so far; the other episodes inject only the faults a rank
     * survives (bad arguments, closed buffers). Process 0 prints; returns this process's counts, null on the others.
     */
    static long[] runMpi(long calls, Long seedOpt, Duration maxTime, Set<Fault> faults, int localRanks,
                         Consumer<String> print, Consumer<String> log) {
        try (Team keeper = Team.builder().ranks(1).mpi().timeout(Duration.ofSeconds(120)).build()) {
            long[] seedBox = new long[1];
            keeper.run(r -> seedBox[0] = r.allreduce(seedOpt != null ? seedOpt : r.id() == 0 ? System.nanoTime() : Long.MIN_VALUE, Op.MAX));
            long seed = seedBox[0];
            int processes = keeper.processes();
            boolean printer = keeper.processIndex() == 0;
            if (printer) {
                print.accept("# soak --mpi: " + processes + " processes x " + localRanks + " ranks, " + calls + " calls, seed " + seed
                        + ", faults " + (faults.isEmpty() ? "none" : String.join(",", faults.stream().map(f -> f.cli).toList())));
            }
            EnumSet<Fault> survivable = EnumSet.noneOf(Fault.class);
            EnumSet<Fault> fatal = EnumSet.noneOf(Fault.class);
            for (Fault f : faults) {
                (f.fatal ? fatal : survivable).add(f);
            }
            SplittableRandom teams = new SplittableRandom(seed);
            int fatalEpisode = fatal.isEmpty() ? -1 : 2 + (int) Math.floorMod(seed, 4L);
            Stats s = new Stats();
            long deadline = System.nanoTime() + maxTime.toNanos();
            for (int ep = 0; ; ep++) {
                long[] stop = {s.get(CALLS) >= calls || System.nanoTime() > deadline || s.get(HANGS) > 0 ? 1 : 0};
                keeper.run(r -> stop[0] = r.allreduce(stop[0], Op.MAX));
                if (stop[0] != 0) {
                    break;
                }
                if (printer && ep > 0 && ep % 20 == 0) {
                    print.accept(String.format(Locale.ROOT, "# progress: %d teams, %d calls, %.0f s", ep, s.get(CALLS),
                            (System.nanoTime() - deadline + maxTime.toNanos()) / 1e9));
                }
                long teamSeed = teams.nextLong();
                Set<Fault> kinds = ep == fatalEpisode ? fatal : survivable;
                Episode e = plan(teamSeed, kinds, true, processes, localRanks, (int) Math.min(Integer.MAX_VALUE, calls - s.get(CALLS)));
                if (ep == fatalEpisode && e.fault() == null) {
                    fatalEpisode++;       // the plan drew no fault (a quarter of plans): the next episode
                }
                Hooks hooks = new Hooks() {
                    @Override
                    public Team.Builder builder(Episode ep2) {
                        return Team.builder().ranks(localRanks).mpi().timeout(Duration.ofMillis(ep2.timeoutMs()));
                    }

                    @Override
                    public void beforeFatal(Episode ep2) {
                        long[] sum = merge(keeper, s);
                        if (printer) {
                            print.accept("# summary before the fatal fault (every process):");
                            Stats.summary(sum, List.of(), List.of()).forEach(l -> print.accept("  " + l));
                        }
                        int victimProcess = ep2.victim() / localRanks;
                        if (keeper.processIndex() == victimProcess) {
                            print.accept("# chaos: fatal fault " + ep2.fault().cli + " on global rank " + ep2.victim() + " (process "
                                    + victimProcess + "), " + ep2.describe() + ": the contract ends the job with MPI_Abort, naming it;"
                                    + " a job that goes on, hangs or crashes breaks it (reproduce: --seed " + seed + " --faults "
                                    + String.join(",", faults.stream().map(f -> f.cli).toList()) + ")");
                        }
                    }
                };
                episode(e, hooks, s, log);
            }
            boolean fatalInjected = fatalEpisode >= 0 && fatalEpisode < s.get(EPISODES);
            for (String f : s.failures) {
                print.accept("process " + keeper.processIndex() + ": FAIL " + f);
            }
            for (String n : s.notes) {
                print.accept("process " + keeper.processIndex() + ": note " + n);
            }
            long[] sum = merge(keeper, s);
            if (fatalInjected && printer) {
                print.accept("# the fatal fault did not end the job (a close may come after the request's work; see faults not reported)");
            }
            return printer ? sum : null;
        }
    }

    /** Every process's counters, summed (through the keeper team). */
    private static long[] merge(Team keeper, Stats s) {
        long[] mine = s.toArray();
        if (keeper.processIndex() != 0) {
            // every process planned the same episodes: count them, their calls and faults once
            mine[CALLS] = 0;
            mine[EPISODES] = 0;
            for (int i = FAULTS; i < MISSED; i++) {
                mine[i] = 0;
            }
        }
        long[] sum = new long[SIZE];
        keeper.run(r -> r.allreduce(mine, sum, Op.SUM));
        return sum;
    }

    /** Per-episode state every rank of this process shares. */
    private static final class Ctx {
        final Episode e;
        final Stats s;
        final Consumer<String> log;
        final long[] since;                 // per local rank: System.nanoTime() when its current call started, 0 outside
        final int[] at;                     // per local rank: the call it is in
        final Thread[] threads;
        final CountDownLatch delivered = new CountDownLatch(1);   // the interrupt or the close happened
        final AtomicBoolean userOpFired = new AtomicBoolean();
        final AtomicBoolean reported = new AtomicBoolean();       // some rank saw an exception
        volatile boolean missed;                                   // the victim saw its fault go unreported
        final AtomicBoolean hung = new AtomicBoolean();            // a bounded wait of a rank ran out
        final List<Arena> arenas = new ArrayList<>();
        final UserOp commutative;
        final UserOp ordered;
        final int firstLocal;
        static final ThreadLocal<int[]> CALL = ThreadLocal.withInitial(() -> new int[]{-1});

        Ctx(Episode e, Stats s, Consumer<String> log, int localRanks, int firstLocal) {
            this.e = e;
            this.s = s;
            this.log = log;
            this.since = new long[localRanks];
            this.at = new int[localRanks];
            this.threads = new Thread[localRanks];
            this.firstLocal = firstLocal;
            this.commutative = userOp(true);
            this.ordered = userOp(false);
        }

        private UserOp userOp(boolean commutative) {
            return new UserOp(commutative ? "chaos-sum" : "chaos-ordered-sum", DType.I64, commutative, (d, dOff, a, aOff, b, bOff, n) -> {
                if (e.fault() == Fault.THROW_USEROP && CALL.get()[0] == e.faultAt() && userOpFired.compareAndSet(false, true)) {
                    throw new InjectedFault("injected: the user op threw (call " + e.faultAt() + ")");
                }
                for (long i = 0; i < n * 8; i += 8) {
                    d.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, dOff + i,
                            a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, aOff + i)
                                    + b.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, bOff + i));
                }
            });
        }

        /** A rank's bounded wait ran out: the episode counts one hang (with the first such message). */
        void hang(String what) {
            if (hung.compareAndSet(false, true)) {
                s.add(HANGS, 1);
                s.fail("hang: " + what + (what.contains(e.describe()) ? "" : ", " + e.describe()));
            }
        }

        synchronized Arena arena() {
            Arena a = Arena.ofShared();
            arenas.add(a);
            return a;
        }

        synchronized void closeArenas() {
            for (Arena a : arenas) {
                try {
                    a.close();
                } catch (IllegalStateException ignored) {
                    // closed by a fault already, or (after a hang) still held by a native call: left to the GC's conscience
                }
            }
            arenas.clear();
        }
    }

    /** Runs one episode; counts into {@code s}. */
    static void episode(Episode e, Hooks hooks, Stats s, Consumer<String> log) {
        s.add(EPISODES, 1);
        s.add(CALLS, e.calls().size());
        if (e.fault() != null) {
            s.add(FAULTS + e.fault().ordinal(), 1);
            if (e.fault().fatal) {
                hooks.beforeFatal(e);
            }
        }
        Team team;
        try {
            team = hooks.builder(e).build();
        } catch (RuntimeException ex) {
            s.add(UNDOCUMENTED, 1);
            s.fail("team build failed: " + ex + " (" + e.describe() + ")");
            return;
        }
        int local = team.size();
        Ctx ctx = new Ctx(e, s, log, local, 0);
        Throwable[] runFailure = new Throwable[1];
        Thread driver = Thread.ofPlatform().daemon(true).name("chaos-driver").start(() -> {
            try {
                team.run(rank -> body(rank, ctx));
            } catch (Throwable t) {
                runFailure[0] = t;
            }
        });
        boolean hung = false;
        try {
            while (driver.isAlive()) {
                driver.join(50);
                long now = System.nanoTime();
                long bound = TimeUnit.MILLISECONDS.toNanos(e.timeoutMs()) + SLACK_NANOS;
                synchronized (ctx) {
                    for (int r = 0; r < local; r++) {
                        if (ctx.since[r] != 0 && now - ctx.since[r] > bound) {
                            hung = true;
                        }
                    }
                }
                if (hung) {
                    break;
                }
            }
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
        }
        if (hung) {
            s.stuck++;
            if (!ctx.hung.getAndSet(true)) {
                s.add(HANGS, 1);
            }
            StringBuilder b = new StringBuilder("hang: ").append(e.describe()).append(':');
            synchronized (ctx) {
                for (int r = 0; r < local; r++) {
                    if (ctx.since[r] != 0) {
                        b.append("\n    rank ").append(r).append(" in call ").append(ctx.at[r]).append(" (").append(e.calls().get(ctx.at[r]))
                                .append(") for ").append((System.nanoTime() - ctx.since[r]) / 1_000_000).append(" ms");
                        Thread t = ctx.threads[r];
                        if (t != null) {
                            StackTraceElement[] st = t.getStackTrace();
                            for (int i = 0; i < Math.min(8, st.length); i++) {
                                b.append("\n      at ").append(st[i]);
                            }
                        }
                    }
                }
            }
            s.fail(b.toString());
            log.accept("# chaos: " + b);
            // close on a thread of its own: a close that waits for a stuck rank must not stop the soak
            Thread closer = Thread.ofPlatform().daemon(true).start(team::close);
            try {
                closer.join(15_000);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        Throwable f = runFailure[0];
        if (f != null && !(f instanceof InjectedFault) && !(f instanceof Hung) && !documented(f) && cause(f, InjectedFault.class) == null) {
            s.add(UNDOCUMENTED, 1);
            s.fail("team.run threw " + f + " (" + e.describe() + ")");
        }
        if (e.fault() != null && e.fault().fatal && f == null && ctx.reported.get()) {
            s.fail("team.run returned normally after a rank failed (" + e.describe() + ")");
            s.add(UNDOCUMENTED, 1);
        }
        // the contract after close: a closed team cannot run again
        team.close();
        try {
            team.run(rank -> {
            });
            s.add(UNDOCUMENTED, 1);
            s.fail("team.run after close returned (" + e.describe() + ")");
        } catch (IllegalStateException expected) {
            // documented
        } catch (RuntimeException ex) {
            s.add(UNDOCUMENTED, 1);
            s.fail("team.run after close threw " + ex + " (" + e.describe() + ")");
        }
        ctx.closeArenas();
        if (e.fault() != null && isMiss(e, ctx)) {
            s.add(MISSED + e.fault().ordinal(), 1);
            s.fail("fault not reported: " + e.describe());
        }
    }

    /** Whether the contract demands an exception that no rank saw (set by the ranks as they go). */
    private static boolean isMiss(Episode e, Ctx ctx) {
        return switch (e.fault()) {
            case MISMATCH, STALL, THROW_BODY -> !ctx.reported.get();
            default -> ctx.missed;
        };
    }

    private static boolean documented(Throwable t) {
        for (Class<? extends RuntimeException> c : DOCUMENTED) {
            if (c.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static <T extends Throwable> T cause(Throwable t, Class<T> c) {
        for (int i = 0; t != null && i < 20; t = t.getCause(), i++) {
            if (c.isInstance(t)) {
                return c.cast(t);
            }
        }
        return null;
    }

    // ---- one rank ----

    private static void body(Rank rank, Ctx ctx) {
        Episode e = ctx.e;
        int me = rank.id();
        int li = rank.localId();
        synchronized (ctx) {
            ctx.threads[li] = Thread.currentThread();
        }
        for (int i = 0; i < e.calls().size(); i++) {
            Spec spec = e.calls().get(i);
            Fault fault = e.fault() != null && i == e.faultAt() ? e.fault() : null;
            boolean victim = fault != null && me == e.victim();
            if (victim && fault == Fault.STALL) {
                return;                                           // stops arriving: the others time out
            }
            synchronized (ctx) {
                ctx.since[li] = System.nanoTime();
                ctx.at[li] = i;
            }
            Ctx.CALL.get()[0] = i;
            try {
                long wrong = call(rank, ctx, spec, i, fault, victim);
                ctx.s.add(RANK_CALLS, 1);
                if (wrong > 0) {
                    ctx.s.add(WRONG, 1);
                    ctx.s.fail("wrong result: rank " + me + " call " + i + " (" + spec + "): " + wrong + " elements differ ("
                            + e.describe() + ")");
                } else {
                    ctx.s.add(OK, 1);
                }
            } catch (Throwable t) {
                ctx.s.add(RANK_CALLS, 1);
                classify(ctx, t, me, i, spec);
                if (t instanceof RuntimeException re) {
                    throw re;
                }
                if (t instanceof Error er) {
                    throw er;
                }
                throw new IllegalStateException(t);
            } finally {
                synchronized (ctx) {
                    ctx.since[li] = 0;
                }
            }
        }
    }

    /** Counts an exception a call ended with: documented (by type), the soak's own, or undocumented. */
    private static void classify(Ctx ctx, Throwable t, int me, int i, Spec spec) {
        if (t instanceof Hung) {
            return;               // counted as the episode's hang
        }
        ctx.reported.set(true);
        Episode e = ctx.e;
        if (e.fault() == null) {
            ctx.s.add(UNPROVOKED, 1);
            if (ctx.s.notes.size() < 10) {
                ctx.s.notes.add("exception without a fault: rank " + me + " call " + i + " (" + spec + "): " + t + " (" + e.describe() + ")");
            }
        }
        if (t instanceof InjectedFault) {
            // the soak's own: the fault it injected, or a rank it stopped (a bad call accepted, counted as such)
            ctx.s.add(EXC + EXCEPTION_NAMES.length - 1, 1);
            return;
        }
        for (int k = 0; k < DOCUMENTED.size(); k++) {
            if (DOCUMENTED.get(k).isInstance(t)) {
                ctx.s.add(EXC + k, 1);
                return;
            }
        }
        ctx.s.add(UNDOCUMENTED, 1);
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        String st = w.toString().lines().limit(8).reduce((a, b) -> a + "\n      " + b).orElse("");
        ctx.s.fail("undocumented exception: rank " + me + " call " + i + " (" + spec + "): " + st + "\n    (" + e.describe() + ")");
    }

    /** Buffers of one call, filled with its inputs (the receive side with a pattern no result has). */
    private record Bufs(MemorySegment send, MemorySegment recv) {
    }

    private static Bufs alloc(Arena a, Spec s, int p, int me) {
        long es = s.t().size();
        long n = s.n();
        MemorySegment send = null;
        MemorySegment recv = null;
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                send = a.allocate(Math.max(1, n * es), 64);
                recv = send;
            }
            case REDUCE, ALLREDUCE -> {
                send = a.allocate(Math.max(1, n * es), 64);
                recv = s.inPlace() ? send : a.allocate(Math.max(1, n * es), 64);
            }
            case REDUCE_SCATTER -> {
                send = a.allocate(Math.max(1, n * es * p), 64);
                recv = a.allocate(Math.max(1, n * es), 64);
            }
            case ALLGATHER -> {
                recv = a.allocate(Math.max(1, n * es * p), 64);
                send = s.inPlace() ? recv.asSlice(me * n * es, n * es) : a.allocate(Math.max(1, n * es), 64);
            }
            default -> throw new IllegalStateException(s.c().toString());
        }
        return new Bufs(send, recv);
    }

    private static Op dataOp(Spec s) {
        return s.op() == Op.USER ? Op.SUM : s.op();
    }

    private static void fill(Bufs b, Spec s, int p, int me) {
        long n = s.n();
        DType t = s.t();
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                for (long i = 0; i < n; i++) {
                    BenchData.put(b.send(), t, i, me == s.root() ? BenchData.input(t, null, me, i) : -1L);
                }
            }
            case REDUCE, ALLREDUCE -> {
                if (b.recv() != b.send()) {
                    b.recv().fill((byte) 0x5A);
                }
                BenchData.fill(b.send(), t, dataOp(s), me, n);
            }
            case REDUCE_SCATTER -> {
                b.recv().fill((byte) 0x5A);
                BenchData.fill(b.send(), t, dataOp(s), me, n * p);
            }
            case ALLGATHER -> {
                b.recv().fill((byte) 0x5A);
                for (long i = 0; i < n; i++) {
                    BenchData.put(b.send(), t, i, BenchData.input(t, null, me, i));
                }
            }
            default -> throw new IllegalStateException();
        }
    }

    /** Elements that differ from the reference. */
    private static long check(Bufs b, Spec s, int p, int me) {
        long n = s.n();
        DType t = s.t();
        long wrong = 0;
        switch (s.c()) {
            case BARRIER -> {
            }
            case BCAST -> {
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.input(t, null, s.root(), i)) ? 0 : 1;
                }
            }
            case REDUCE, ALLREDUCE -> {
                if (s.c() == Collective.ALLREDUCE || me == s.root()) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.fold(t, dataOp(s), p, i)) ? 0 : 1;
                    }
                }
            }
            case REDUCE_SCATTER -> {
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(b.recv(), t, i), BenchData.fold(t, dataOp(s), p, me * n + i)) ? 0 : 1;
                }
            }
            case ALLGATHER -> {
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(b.recv(), t, q * n + i), BenchData.input(t, null, q, i)) ? 0 : 1;
                    }
                }
            }
            default -> throw new IllegalStateException();
        }
        return wrong;
    }

    /** The victim's call under a mismatch: one of count, dtype, op, root or collective differs. */
    private static Spec mutate(Spec s, int variant, int p) {
        List<Spec> options = new ArrayList<>();
        if (s.c() != Collective.BARRIER) {
            options.add(new Spec(s.form(), s.c(), s.t(), s.op(), s.n() + 1, s.root(), s.inPlace(), s.waitMode(), s.rounds(), s.commutative()));
        }
        if (s.reduces() && s.form() != Form.USEROP) {
            DType t2 = switch (s.t()) {
                case F64 -> DType.I64;
                case I64 -> DType.F64;
                case F32 -> DType.I32;
                default -> DType.F32;
            };
            Op op2 = s.op().supports(t2) ? s.op() : Op.SUM;
            options.add(new Spec(s.form(), s.c(), t2, op2, s.n(), s.root(), s.inPlace(), s.waitMode(), s.rounds(), s.commutative()));
            Op op3 = s.op() == Op.MAX ? Op.MIN : Op.MAX;
            options.add(new Spec(s.form(), s.c(), s.t(), op3, s.n(), s.root(), s.inPlace(), s.waitMode(), s.rounds(), s.commutative()));
        }
        if (s.rooted()) {
            options.add(new Spec(s.form(), s.c(), s.t(), s.op(), s.n(), (s.root() + 1) % p, s.inPlace(), s.waitMode(), s.rounds(), s.commutative()));
        }
        if (s.form() != Form.USEROP) {
            options.add(s.c() == Collective.BARRIER
                    ? new Spec(s.form(), Collective.ALLREDUCE, DType.F64, Op.SUM, 1, 0, false, s.waitMode(), s.rounds(), s.commutative())
                    : new Spec(s.form(), Collective.BARRIER, s.t(), null, s.n(), s.root(), false, s.waitMode(), s.rounds(), s.commutative()));
        }
        return options.get(variant % options.size());
    }

    /**
     * One call on one rank, with the fault if this rank is its victim (or, for the coordinated faults, its peer).
     * Returns the elements that differ from the reference.
     */
    private static long call(Rank rank, Ctx ctx, Spec spec, int i, Fault fault, boolean victim) throws Exception {
        Episode e = ctx.e;
        int p = rank.size();
        int me = rank.id();
        if (fault == Fault.THROW_BODY && victim) {
            if (spec.form() != Form.BLOCKING && spec.form() != Form.USEROP && (e.variant() & 1) == 1) {
                // with a request of its own outstanding
                Arena a = ctx.arena();
                Bufs b = alloc(a, spec, p, me);
                fill(b, spec, p, me);
                issue(rank, ctx, spec, b);
            }
            throw new InjectedFault("injected: rank " + me + "'s body threw at call " + i);
        }
        // the peers of a coordinated fault wait until it happened, so the victim is inside its call when it does
        if (fault != null && !victim && (fault == Fault.INTERRUPT_BLOCKING || fault == Fault.INTERRUPT_AWAIT || fault == Fault.CLOSE_DURING)) {
            try {
                if (rank.team().processes() == 1) {   // across processes the victim may be elsewhere: the sleep alone
                    ctx.delivered.await(e.timeoutMs() + 5_000, TimeUnit.MILLISECONDS);
                }
                Thread.sleep(20);
            } catch (InterruptedException ie) {
                // the team, aborted by the victim, interrupts ranks that do not leave (Team.run): here the soak held it
                Thread.currentThread().interrupt();
                throw new InjectedFault("interrupted by the aborted team while the soak held this rank back");
            }
        }
        Spec s = fault == Fault.MISMATCH && victim ? mutate(spec, e.variant(), p) : spec;
        Arena arena = ctx.arena();
        Bufs b = alloc(arena, s, p, me);
        fill(b, s, p, me);
        if (victim && (fault == Fault.BAD_ARGS || fault == Fault.CLOSE_BEFORE)) {
            badCall(rank, ctx, s, b, i);
            // the contract: no shared state was touched, so the rank goes on with the right call (fresh buffers)
            arena = ctx.arena();
            b = alloc(arena, s, p, me);
            fill(b, s, p, me);
        }
        boolean interruptMe = victim && (fault == Fault.INTERRUPT_BLOCKING || fault == Fault.INTERRUPT_AWAIT);
        boolean closeMe = victim && fault == Fault.CLOSE_DURING;
        boolean check = !(victim && (fault == Fault.MISMATCH || fault == Fault.CLOSE_DURING));
        long wrong;
        if (s.form() == Form.BLOCKING || s.form() == Form.USEROP) {
            if (interruptMe) {
                interruptSoon(ctx, Thread.currentThread());
            }
                blocking(rank, ctx, s, b);
            wrong = check ? check(b, s, p, me) : 0;
        } else if (s.form() == Form.PERSISTENT) {
            wrong = 0;
            try (PersistentRequest pr = init(rank, s, b)) {
                for (int round = 0; round < s.rounds(); round++) {
                    if (round > 0) {
                        fill(b, s, p, me);
                    }
                    pr.start();
                    if (round == 0 && closeMe) {
                        closeNow(ctx, arena);
                    }
                    if (round == 0 && interruptMe) {
                        interruptSoon(ctx, Thread.currentThread());
                    }
                    complete(ctx, pr, s, true);
                    wrong += check ? check(b, s, p, me) : 0;
                }
            }
        } else {
            Request r = issue(rank, ctx, s, b);
            if (closeMe) {
                closeNow(ctx, arena);
            }
            if (interruptMe) {
                interruptSoon(ctx, Thread.currentThread());
            }
            complete(ctx, r, s, false);
            wrong = check ? check(b, s, p, me) : 0;
        }
        if (fault == Fault.MISMATCH && victim) {
            // the victim's call completed: whether the others reported it decides (isMiss)
            return 0;
        }
        if (interruptMe) {
            // the call ended normally although the thread was interrupted while it waited for peers that had not come
            ctx.missed = true;
            Thread.interrupted();
        }
        return wrong;
    }

    /** The bad call (or the call on a closed buffer): it must throw IllegalArgumentException and touch nothing shared. */
    private static void badCall(Rank rank, Ctx ctx, Spec s, Bufs good, int i) {
        Episode e = ctx.e;
        long es = s.t().size();
        MemorySegment send = good.send();
        MemorySegment recv = good.recv();
        long n = s.n();
        int root = s.root();
        DType t = s.t();
        Op op = s.op();
        String what;
        if (e.fault() == Fault.CLOSE_BEFORE) {
            Arena a = ctx.arena();
            Bufs b = alloc(a, s, rank.size(), rank.id());
            a.close();
            send = b.send();
            recv = b.recv();
            what = "buffers of a closed arena";
        } else {
            int v = e.variant() % 8;
            // a reduce's receive buffer is ignored off the root (Rank.reduce): a bad one there is no bad argument
            boolean recvMatters = s.c() != Collective.REDUCE || rank.id() == s.root();
            if (!recvMatters && (v == 2 || v >= 6)) {
                v = 0;
            }
            switch (v) {
                case 0 -> {
                    n = -1;
                    what = "count -1";
                }
                case 1 -> {
                    send = send.asSlice(0, es * n - 1);
                    if (recv == good.send()) {
                        recv = send;
                    }
                    what = "a send buffer one byte short";
                }
                case 2 -> {
                    recv = recv.asReadOnly();
                    if (s.c() == Collective.BCAST) {
                        send = recv;
                    }
                    what = "a read-only receive buffer";
                }
                case 3 -> {
                    root = s.rooted() ? rank.size() : root;
                    n = s.rooted() ? n : -5;
                    what = s.rooted() ? "root out of range" : "count -5";
                }
                case 4 -> {
                    if (s.reduces() && s.form() != Form.USEROP) {
                        t = DType.F64;
                        op = Op.BAND;
                        what = "band on f64";
                    } else {
                        n = Long.MIN_VALUE;
                        what = "count Long.MIN_VALUE";
                    }
                }
                case 5 -> {
                    send = null;
                    if (s.c() == Collective.BCAST) {
                        recv = null;
                    }
                    what = "a null buffer";
                }
                default -> {
                    if ((s.c() == Collective.ALLREDUCE || s.c() == Collective.REDUCE) && s.form() != Form.USEROP) {
                        // send and receive overlap by all but one element (neither in place nor disjoint); v 7: the
                        // send side a read-only view of the same memory
                        // native, or (every other variant) on the heap, where a read-only view has no heapBase
                        boolean heap = (e.variant() / 8) % 2 == 1;
                        MemorySegment base = heap ? MemorySegment.ofArray(new long[(int) ((es * (n + 1) + 7) / 8)])
                                : ctx.arena().allocate(es * (n + 1), 64);
                        send = base.asSlice(0, es * n);
                        recv = base.asSlice(es, es * n);
                        BenchData.fill(send, t, dataOp(s), rank.id(), n);   // if it is accepted, the peers' results stay right
                        if (v == 7) {
                            send = send.asReadOnly();
                        }
                        what = (v == 7 ? "overlapping send (a read-only view) and receive" : "overlapping send and receive")
                                + (heap ? " on the heap" : "");
                    } else {
                        n = -1;
                        what = "count -1";
                    }
                }
            }
        }
        Spec bad = new Spec(s.form(), s.c(), t, op, (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n)), root, s.inPlace(),
                s.waitMode(), s.rounds(), s.commutative());
        try {
            Bufs b = new Bufs(send, recv);
            switch (s.form()) {
                case BLOCKING, USEROP -> blockingRaw(rank, ctx, bad, b, n);
                case PERSISTENT -> initRaw(rank, bad, b, n).close();
                case ONESHOT -> issueRaw(rank, bad, b, n);
                case CHAIN -> chainRaw(rank, bad, b, n);
            }
        } catch (IllegalArgumentException expected) {
            ctx.s.add(EXC, 1);
            return;
        }
        // accepted: the call went ahead (a real collective the peers are part of) — the contract was not kept
        ctx.missed = true;
        ctx.s.fail("bad argument accepted (" + what + "): rank " + rank.id() + " call " + i + " (" + s + "), " + e.describe());
        throw new InjectedFault("the bad call (" + what + ") was accepted; this rank stops");
    }

    private static void interruptSoon(Ctx ctx, Thread victim) {
        Thread.ofPlatform().daemon(true).start(() -> {
            try {
                Thread.sleep(3);
            } catch (InterruptedException ignored) {
                // deliver at once
            }
            victim.interrupt();
            ctx.delivered.countDown();
        });
    }

    private static void closeNow(Ctx ctx, Arena arena) {
        try {
            arena.close();
        } catch (IllegalStateException busy) {
            ctx.s.add(CLOSE_REFUSED, 1);       // a native call holds the buffers: FFM refuses, nothing is freed
        }
        ctx.delivered.countDown();
    }

    // ---- the calls ----

    private static void blocking(Rank rank, Ctx ctx, Spec s, Bufs b) {
        blockingRaw(rank, ctx, s, b, s.n());
    }

    private static void blockingRaw(Rank rank, Ctx ctx, Spec s, Bufs b, long n) {
        if (s.form() == Form.USEROP) {
            UserOp op = s.commutative() ? ctx.commutative : ctx.ordered;
            if (s.c() == Collective.ALLREDUCE) {
                rank.allreduce(b.send(), b.recv(), n, op);
            } else {
                rank.reduce(b.send(), b.recv(), n, op, s.root());
            }
            return;
        }
        switch (s.c()) {
            case BARRIER -> rank.barrier();
            case BCAST -> rank.bcast(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.reduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.allreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.reduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.allgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        }
    }

    private static Request issue(Rank rank, Ctx ctx, Spec s, Bufs b) {
        return s.form() == Form.CHAIN ? chainRaw(rank, s, b, s.n()) : issueRaw(rank, s, b, s.n());
    }

    private static Request issueRaw(Rank rank, Spec s, Bufs b, long n) {
        return switch (s.c()) {
            case BARRIER -> rank.ibarrier();
            case BCAST -> rank.ibcast(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.ireduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.iallreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.ireduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.iallgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        };
    }

    private static PersistentRequest init(Rank rank, Spec s, Bufs b) {
        return initRaw(rank, s, b, s.n());
    }

    private static PersistentRequest initRaw(Rank rank, Spec s, Bufs b, long n) {
        return switch (s.c()) {
            case BARRIER -> rank.barrierInit();
            case BCAST -> rank.bcastInit(b.send(), n, s.t(), s.root());
            case REDUCE -> rank.reduceInit(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> rank.allreduceInit(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> rank.reduceScatterInit(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> rank.allgatherInit(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        };
    }

    /** The call's collective, a local step and a barrier, as one chain. */
    private static Request chainRaw(Rank rank, Spec s, Bufs b, long n) {
        Chain ch = rank.chain();
        switch (s.c()) {
            case BARRIER -> ch.barrier();
            case BCAST -> ch.bcast(b.send(), n, s.t(), s.root());
            case REDUCE -> ch.reduce(b.send(), b.recv(), n, s.t(), s.op(), s.root());
            case ALLREDUCE -> ch.allreduce(b.send(), b.recv(), n, s.t(), s.op());
            case REDUCE_SCATTER -> ch.reduceScatter(b.send(), b.recv(), n, s.t(), s.op());
            case ALLGATHER -> ch.allgather(b.send(), b.recv(), n, s.t());
            default -> throw new IllegalStateException();
        }
        return ch.then(() -> {
        }).barrier().start();
    }

    /**
     * Waits for a request the way the call draws ({@link Spec#waitMode}); when it fails, checks that it stays failed
     * (isDone and await throw again, its future completes exceptionally, a persistent request does not start again
     * into a round that completes), then rethrows the failure.
     */
    private static void complete(Ctx ctx, Request r, Spec s, boolean persistent) throws Exception {
        try {
            switch (s.waitMode()) {
                case 1 -> {
                    while (!r.isDone()) {
                        Thread.onSpinWait();
                        Thread.yield();
                    }
                }
                case 2 -> {
                    while (!r.await(Duration.ofMillis(1))) {
                        Thread.onSpinWait();
                    }
                }
                case 3 -> {
                    try {
                        r.toFuture().get(ctx.e.timeoutMs() + TimeUnit.NANOSECONDS.toMillis(SLACK_NANOS) / 2, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException ee) {
                        throw ee.getCause() instanceof RuntimeException re ? re : ee;
                    } catch (TimeoutException te) {
                        ctx.hang("toFuture().get did not complete within the timeout + slack (" + s + ")");
                        throw new Hung("toFuture().get hung");
                    }
                    if (persistent) {
                        r.await();    // the round's end observed (PersistentRequest.start), at once: the future completed
                    }
                }
                default -> r.await();
            }
        } catch (RuntimeException failure) {
            if (!(failure instanceof InjectedFault) && !(failure instanceof Hung)) {
                staysFailed(ctx, r, s, persistent, failure);
            }
            throw failure;
        }
    }

    private static void staysFailed(Ctx ctx, Request r, Spec s, boolean persistent, RuntimeException failure) {
        boolean wasInterrupted = Thread.interrupted();   // so the checks below see the request, not the interrupt
        String where = " after " + failure.getClass().getSimpleName() + " (" + s + "), " + ctx.e.describe();
        try {
            if (r.isDone()) {
                revived(ctx, "isDone() returned true" + where);
            }
        } catch (RuntimeException expected) {
            // still failed
        }
        try {
            if (r.await(Duration.ofMillis(200))) {
                revived(ctx, "await(200 ms) returned true" + where);
            }
        } catch (RuntimeException expected) {
            // still failed
        }
        try {
            r.toFuture().get(5, TimeUnit.SECONDS);
            revived(ctx, "toFuture().get() returned normally" + where);
        } catch (ExecutionException | java.util.concurrent.CancellationException expected) {
            // still failed
        } catch (TimeoutException te) {
            ctx.hang("the failed request's toFuture() was not complete 5 s later" + where);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        if (persistent && r instanceof PersistentRequest pr) {
            try {
                pr.start();
                // a start after a failed round: its round must fail, promptly
                try {
                    if (pr.await(Duration.ofSeconds(5))) {
                        revived(ctx, "a restarted persistent request completed" + where);
                    } else {
                        ctx.hang("a persistent request restarted after a failed round neither completed nor failed in 5 s" + where);
                    }
                } catch (RuntimeException expected) {
                    // still failed
                }
            } catch (RuntimeException expected) {
                // refused
            }
        }
        if (wasInterrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void revived(Ctx ctx, String what) {
        ctx.s.add(REVIVED, 1);
        ctx.s.fail("revived " + ctx.e.seed() + " " + what.substring(0, what.indexOf(' ')),
                "a failed request looked complete: " + what + " (the first of this team; every revival is counted)");
    }
}
