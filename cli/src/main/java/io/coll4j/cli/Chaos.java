package io.coll4j.cli;

import static io.coll4j.cli.ChaosStats.CALLS;
import static io.coll4j.cli.ChaosStats.EPISODES;
import static io.coll4j.cli.ChaosStats.FAULTS;
import static io.coll4j.cli.ChaosStats.HANGS;
import static io.coll4j.cli.ChaosStats.MISSED;
import static io.coll4j.cli.ChaosStats.SIZE;
import static io.coll4j.cli.ChaosStats.UNDOCUMENTED;

import io.coll4j.Team;
import io.coll4j.cli.ChaosPlan.Episode;
import io.coll4j.cli.ChaosPlan.Fault;
import io.coll4j.reductions.Op;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The misuse soak ({@code collbench soak --chaos}): random sequences of blocking collectives, one-shot requests
 * ({@code i*}), persistent requests ({@code *Init}, several rounds), chains and user-op reductions on teams of 2..5
 * ranks with a short timeout, and in most teams one injected {@link ChaosPlan.Fault}. Every team ("episode") is a function of
 * its seed, the same on every rank (and every process, {@code --mpi}).
 *
 * <p>Oracle (docs/design.md, "Error contract"): every call on every rank either returns the scalar reference's
 * result ({@link BenchData}) or throws a documented exception ({@link ChaosContract#DOCUMENTED}) within the team timeout plus
 * {@link #SLACK_NANOS} (a watchdog per rank and call), a failed request stays failed (isDone, await, toFuture and a
 * persistent request's next start), and a fault the contract says is reported (a mismatch, a bad argument, an
 * interrupt of a waiting rank) is reported. A fatal fault aborts the team; the episode ends and the next team is
 * built. Bad arguments and buffers closed before the call are an {@link IllegalArgumentException} that touches no
 * shared state, so the rank retries the call correctly on the same team.
 *
 * <p>This class runs episodes (a team each, with a watchdog per rank and call); {@link ChaosPlan} draws them,
 * {@link ChaosRank} runs a rank's calls and injects the fault, {@link ChaosCalls} makes and checks the calls,
 * {@link ChaosContract} holds the error contract and {@link ChaosStats} the counters.
 */
final class Chaos {
    /** Beyond the team timeout, how long a call may take to end before it is a hang. */
    static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The soak stops after this many hangs: each leaves threads behind that may spin. */
    static final int MAX_HANGS = 3;

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

    private Chaos() {
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
    static ChaosStats run(long calls, long seed, Duration maxTime, Set<Fault> faults, Consumer<String> log) {
        ChaosStats s = new ChaosStats();
        SplittableRandom teams = new SplittableRandom(seed);
        long deadline = System.nanoTime() + maxTime.toNanos();
        while (s.get(CALLS) < calls && System.nanoTime() < deadline && s.stuck < MAX_HANGS) {
            Episode e = ChaosPlan.plan(teams.nextLong(), faults, false, 1, 0, (int) Math.min(Integer.MAX_VALUE, calls - s.get(CALLS)));
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
            ChaosStats s = new ChaosStats();
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
                Episode e = ChaosPlan.plan(teamSeed, kinds, true, processes, localRanks, (int) Math.min(Integer.MAX_VALUE, calls - s.get(CALLS)));
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
                            ChaosStats.summary(sum, List.of(), List.of()).forEach(l -> print.accept("  " + l));
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
    private static long[] merge(Team keeper, ChaosStats s) {
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

    /** Runs one episode; counts into {@code s}. */
    static void episode(Episode e, Hooks hooks, ChaosStats s, Consumer<String> log) {
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
        ChaosContext ctx = new ChaosContext(e, s, log, local, 0);
        Throwable[] runFailure = new Throwable[1];
        Thread driver = Thread.ofPlatform().daemon(true).name("chaos-driver").start(() -> {
            try {
                team.run(rank -> ChaosRank.body(rank, ctx));
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
        if (f != null && !(f instanceof InjectedFault) && !(f instanceof Hung) && !ChaosContract.documented(f) && ChaosContract.cause(f, InjectedFault.class) == null) {
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
        if (e.fault() != null && ChaosContract.isMiss(e, ctx)) {
            s.add(MISSED + e.fault().ordinal(), 1);
            s.fail("fault not reported: " + e.describe());
        }
    }
}
