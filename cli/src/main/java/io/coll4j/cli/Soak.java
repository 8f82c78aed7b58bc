package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Random collectives against the scalar reference ({@link BenchData}): collective × algorithm × dtype ×
 * op × count × root × in place × heap / native / unaligned native buffers, on teams of 2..5 ranks, with
 * and without {@code reproducible}. The call sequence is a function of the seed (every rank draws the
 * same one), so a failure is reproduced by running the same seed again. Counts calls and wrong results
 * per collective and algorithm.
 */
final class Soak {
    /** Calls per team before the next team (another size, reproducible or not) is built. */
    static final int CALLS_PER_TEAM = 2_000;
    /** Largest count drawn (rarely); most calls are small, so a million of them takes minutes, not hours. */
    static final int MAX_COUNT = 1 << 15;
    /** The widest element of any dtype (a 16-byte pair): what the pool buffers are sized for. */
    static final int MAX_ELEMENT_BYTES = java.util.Arrays.stream(DType.values()).mapToInt(DType::size).max().orElseThrow();

    /** One call: every rank derives it from the same random stream. */
    record Call(Collective collective, String algorithm, DType dtype, Op op, int count, int root, boolean inPlace,
                int memory) {
        String key() {
            return collective.cliName() + " " + algorithm;
        }

        @Override
        public String toString() {
            return collective.cliName() + "/" + algorithm + " " + dtype + (op == null ? "" : " " + op) + " count=" + count
                    + " root=" + root + (inPlace ? " in-place" : "") + " " + MEMORY[memory];
        }
    }

    static final String[] MEMORY = {"heap", "native", "unaligned"};

    /** Per collective × algorithm: calls made and results that differed from the reference. */
    static final class Result {
        final Map<String, long[]> counts = new TreeMap<>();
        final List<String> failures = new ArrayList<>();
        long calls;
        long wrong;

        synchronized void add(String key, long calls, long wrong) {
            long[] c = counts.computeIfAbsent(key, k -> new long[2]);
            c[0] += calls;
            c[1] += wrong;
            this.calls += calls;
            this.wrong += wrong;
        }
    }

    private Soak() {
    }

    /** Runs {@code calls} random collectives (or until {@code maxTime} has passed) from {@code seed}. */
    static Result run(long calls, long seed, Duration maxTime) {
        Result result = new Result();
        SplittableRandom teams = new SplittableRandom(seed);
        long deadline = System.nanoTime() + maxTime.toNanos();
        long done = 0;
        while (done < calls && System.nanoTime() < deadline) {
            int p = 2 + teams.nextInt(4);
            boolean reproducible = teams.nextBoolean();
            long teamSeed = teams.nextLong();
            int n = (int) Math.min(CALLS_PER_TEAM, calls - done);
            runTeam(p, reproducible, teamSeed, n, result);
            done += n;
        }
        return result;
    }

    private static void runTeam(int p, boolean reproducible, long seed, int calls, Result result) {
        AtomicLong[] wrongs = new AtomicLong[calls];
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Call> sequence = sequence(p, seed, calls);
        try (Team team = Team.builder().ranks(p).reproducible(reproducible).timeout(Duration.ofSeconds(120)).build()) {
            for (int i = 0; i < calls; i++) {
                wrongs[i] = new AtomicLong();
            }
            team.run(rank -> {
                long poolBytes = (long) MAX_COUNT * MAX_ELEMENT_BYTES * p + 64;
                MemorySegment[] pool = {rank.allocate(poolBytes), rank.allocate(poolBytes)};
                {
                    for (int i = 0; i < calls; i++) {
                        Call c = sequence.get(i);
                        long bad = one(rank, c, pool);
                        if (bad > 0) {
                            wrongs[i].addAndGet(bad);
                            if (failures.size() < 10) {
                                failures.add("p=" + p + (reproducible ? " reproducible" : "") + " seed=" + seed + " call " + i
                                        + " rank " + rank.id() + ": " + c + ": " + bad + " wrong elements");
                            }
                        }
                    }
                }
            });
        }
        for (int i = 0; i < calls; i++) {
            result.add(sequence.get(i).key(), 1, wrongs[i].get() > 0 ? 1 : 0);
        }
        synchronized (result) {
            result.failures.addAll(failures);
        }
    }

    static List<Call> sequence(int p, long seed, int calls) {
        SplittableRandom r = new SplittableRandom(seed);
        Collective[] cs = Collective.values();
        List<Call> out = new ArrayList<>(calls);
        while (out.size() < calls) {
            Collective c = cs[r.nextInt(cs.length)];
            DType t = DType.values()[r.nextInt(DType.values().length)];
            Op op = null;
            if (c.reduces()) {
                // every op the dtype supports except USER (a UserOp is a Java object, not a CLI value)
                Op[] ops = java.util.Arrays.stream(Op.values()).filter(o -> o.supports(t) && o != Op.USER).toArray(Op[]::new);
                op = ops[r.nextInt(ops.length)];
            }
            int size = r.nextInt(100);
            int count = size < 70 ? r.nextInt(65) : size < 95 ? r.nextInt(2049) : r.nextInt(MAX_COUNT + 1);
            List<CollectiveAlgorithm> algs = new ArrayList<>();
            for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
                if (a.supports(p, count, t, op)) {
                    algs.add(a);
                }
            }
            String alg = algs.get(r.nextInt(algs.size())).name();
            int root = r.nextInt(p);
            boolean inPlace = c != Collective.REDUCE_SCATTER && c != Collective.BARRIER && r.nextBoolean();
            out.add(new Call(c, alg, t, op, count, root, inPlace, r.nextInt(MEMORY.length)));
        }
        return out;
    }

    /** Heap, or the rank's native pool buffer {@code which} (page aligned, or 3 bytes off for unaligned). */
    private static MemorySegment buffer(MemorySegment[] pool, int which, long bytes, int memory) {
        return switch (memory) {
            case 0 -> MemorySegment.ofArray(new byte[(int) bytes]);
            case 1 -> pool[which].asSlice(0, bytes);
            default -> pool[which].asSlice(3, bytes);
        };
    }

    /** Runs call {@code c} on {@code rank}; returns how many result elements differ from the reference. */
    static long one(Rank rank, Call c, MemorySegment[] pool) {
        int p = rank.size();
        int me = rank.id();
        DType t = c.dtype();
        long es = t.size();
        long n = c.count();
        CollectivePlan plan = rank.plan(c.collective(), n, t, c.op(), c.root(), c.algorithm());
        long wrong = 0;
        switch (c.collective()) {
            case BARRIER -> plan.execute(null, null);
            case BCAST -> {
                MemorySegment buf = buffer(pool, 0, n * es, c.memory());
                for (long i = 0; i < n; i++) {
                    BenchData.put(buf, t, i, me == c.root() ? BenchData.input(t, null, me, i) : -1L);
                }
                plan.execute(buf, null);
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(buf, t, i), BenchData.input(t, null, c.root(), i)) ? 0 : 1;
                }
            }
            case REDUCE, ALLREDUCE -> {
                MemorySegment send = buffer(pool, 0, n * es, c.memory());
                MemorySegment recv = c.inPlace() ? send : buffer(pool, 1, n * es, c.memory());
                BenchData.fill(send, t, c.op(), me, n);
                plan.execute(send, recv);
                if (c.collective() == Collective.ALLREDUCE || me == c.root()) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(recv, t, i), BenchData.fold(t, c.op(), p, i)) ? 0 : 1;
                    }
                }
            }
            case REDUCE_SCATTER -> {
                MemorySegment send = buffer(pool, 0, n * es * p, c.memory());
                MemorySegment recv = buffer(pool, 1, n * es, c.memory());
                BenchData.fill(send, t, c.op(), me, n * p);
                plan.execute(send, recv);
                for (long i = 0; i < n; i++) {
                    wrong += BenchData.same(t, BenchData.get(recv, t, i), BenchData.fold(t, c.op(), p, me * n + i)) ? 0 : 1;
                }
            }
            case ALLGATHER -> {
                MemorySegment recv = buffer(pool, 1, n * es * p, c.memory());
                MemorySegment send = c.inPlace() ? recv.asSlice(me * n * es, n * es) : buffer(pool, 0, n * es, c.memory());
                for (long i = 0; i < n; i++) {
                    BenchData.put(send, t, i, BenchData.input(t, null, me, i));
                }
                plan.execute(send, recv);
                for (int q = 0; q < p; q++) {
                    for (long i = 0; i < n; i++) {
                        wrong += BenchData.same(t, BenchData.get(recv, t, q * n + i), BenchData.input(t, null, q, i)) ? 0 : 1;
                    }
                }
            }
        }
        return wrong;
    }
}
