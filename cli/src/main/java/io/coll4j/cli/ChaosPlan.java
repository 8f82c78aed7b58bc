package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The soak's plans: every rank and process derives the same episode (a team, its calls and the one injected
 * {@link Fault}) from its seed, so a seed replays a team ({@code collbench soak --chaos --replay SEED}).
 */
final class ChaosPlan {
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

    private static final Collective[] COLLECTIVES = {Collective.BARRIER, Collective.BCAST, Collective.REDUCE, Collective.ALLREDUCE,
            Collective.REDUCE_SCATTER, Collective.ALLGATHER};
    private static final DType[] DTYPES = {DType.F64, DType.F32, DType.I32, DType.I64};

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

    /** The victim's call under a mismatch: one of count, dtype, op, root or collective differs. */
    static Spec mutate(Spec s, int variant, int p) {
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

    private ChaosPlan() {
    }
}
