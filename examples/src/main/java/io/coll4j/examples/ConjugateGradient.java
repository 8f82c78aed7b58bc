package io.coll4j.examples;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;

/**
 * Conjugate gradient on the 3-D Poisson matrix ({@link Poisson3d}, matrix-free 7-point stencil): per iteration
 * one stencil sweep, three vector updates and two dot products whose sums every thread needs — two
 * allreduces of 8 bytes, the latency-bound case.
 *
 * <p>Every parallel version splits the grid into slabs of z-planes, one per thread. The stencil needs one
 * plane of each neighbour's search direction p; instead of a third synchronisation per iteration, each
 * thread computes its private copy of the neighbour plane of the next p itself, {@code r + β p}, from the
 * neighbour's r and current p. Nobody may overwrite those planes before the next allreduce: a thread updates
 * p in place except its two edge planes, whose next values go to private edge buffers that its own stencil
 * reads and that it copies into p only after the first allreduce of the next iteration (by then every
 * neighbour has made its copies); r changes only after that allreduce too. So coll4j and CyclicBarrier
 * synchronise exactly twice per iteration over the same four n³ arrays as the other versions (p in two
 * alternating buffers cost a fifth array and 20–30% at 128³, where the sweep runs from memory); parallel
 * streams pay three fork/joins (stencil+dot, update+dot, p update).
 *
 * <p>{@code coll4j-halo} is the distributed-memory form of the same solver: a thread updates the edge planes of its
 * slab of p in place, starts exchanging them with its neighbours as messages (an irecv and an isend per neighbour
 * in the chain of non-empty slabs, {@link HaloExchange}), updates the interior of the slab while they travel, and
 * waits for the ghosts (for its sends only before it writes its edge planes again); its stencil reads the received
 * ghost planes, never a neighbour's p. It computes the same numbers (the ghost is the neighbour's p, bitwise) with the
 * messages a code whose ranks do not share the arrays needs.
 */
@Command(name = "cg", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Conjugate gradient on the 3-D Poisson matrix (7-point stencil, matrix-free, zero Dirichlet boundary), "
                + "b random with a fixed seed, x0 = 0, until ||r||/||b|| < tol.",
                "Implementations: coll4j (two 8-byte allreduces per iteration), coll4j-halo (the same plus the halo planes "
                        + "exchanged as messages: an irecv and an isend per neighbour per iteration), cyclicbarrier (the same SPMD code, partial sums in a "
                        + "shared array and CyclicBarrier.await), streams (IntStream.range(0, n).parallel() over z-planes), single.",
                "Warm-up: 60 untimed solves of a 16^3 grid per implementation.",
                "Check: the true residual ||b - Ax||/||b|| is below 10 tol and the iteration count within 2%% (+1) of single's."})
public final class ConjugateGradient extends Workload {
    @Option(names = {"-n", "--grid"}, defaultValue = "64", description = "Grid points per dimension: n^3 unknowns (default: ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--tol", defaultValue = "1e-8", description = "Relative residual to stop at (default: ${DEFAULT-VALUE}).")
    double tol;

    @Option(names = "--max-iter", defaultValue = "5000", description = "Iteration limit (default: ${DEFAULT-VALUE}).")
    int maxIter;

    private double[] b;
    private Result reference;

    /**
     * What a solve returns: the solution, iterations run, rank 0's time in communication, and the time of
     * the solve itself (threads or the team already started: a long-running program starts them once), the median
     * iteration and the tail of slow ones ({@link IterationTimes#tail}).
     */
    public record Result(double[] x, int iterations, double commSeconds, double seconds, double medianIterationSeconds,
                         String tail) {
    }

    public ConjugateGradient() {
    }

    /** For tests and callers that skip the command line. */
    public ConjugateGradient(int n, double tol, int maxIter, int threads, long seed) {
        this.n = n;
        this.tol = tol;
        this.maxIter = maxIter;
        this.threads = threads;
        this.seed = seed;
    }

    public static void main(String[] args) {
        System.exit(Examples.execute(new ConjugateGradient(), args));
    }

    @Override
    protected String name() {
        return "cg";
    }

    @Override
    protected List<String> allImpls() {
        return List.of(Outcome.COLL4J, Outcome.COLL4J_HALO, Outcome.CYCLIC_BARRIER, Outcome.STREAMS, Outcome.SINGLE);
    }

    @Override
    protected String problem() {
        return String.format(Locale.ROOT, "%d^3 grid (%d unknowns) tol %.0e", n, (long) n * n * n, tol);
    }

    @Override
    protected int defaultRepeat() {
        return 3;
    }

    @Override
    protected void validate() {
        if (n < 1 || (long) n * n * n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--grid must be in 1..1290 (n^3 doubles in one array), got " + n);
        }
        if (!(tol > 0 && tol < 1)) {
            throw new IllegalArgumentException("--tol must be in (0, 1), got " + tol);
        }
        if (maxIter < 1) {
            throw new IllegalArgumentException("--max-iter must be >= 1, got " + maxIter);
        }
        if (maxIter > MAX_ITER) {
            throw new IllegalArgumentException("--max-iter must be at most " + MAX_ITER + ", got " + maxIter);
        }
    }

    /** The most iterations {@code --max-iter} may ask for. */
    static final int MAX_ITER = 10_000_000;

    @Override
    protected long heapBytes() {
        // b, the reference solution and an implementation's x, r, p, q and halo-padded copies: about ten n^3 vectors
        return product(10, 8, n, n, n);
    }

    @Override
    protected void prepare() {
        b = rhs(n, seed);
        reference = null;
    }

    @Override
    protected void release() {
        b = null;
        reference = null;
    }

    /** The right-hand side: uniform in [0, 1) from {@code seed}. */
    public static double[] rhs(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] b = new double[n * n * n];
        for (int i = 0; i < b.length; i++) {
            b[i] = rnd.nextDouble();
        }
        return b;
    }

    @Override
    protected Outcome run(String impl) throws Exception {
        Result r = solve(impl, b);
        double s = r.seconds();
        if (reference == null) {
            reference = impl.equals(Outcome.SINGLE) ? r : solve(Outcome.SINGLE, b);
        }
        double residual = Poisson3d.trueRelativeResidual(n, r.x(), b);
        boolean ok = check(r, reference, residual);
        String metric = String.format(Locale.ROOT, "%d it, %.0f it/s, median it %.1f us, %s, residual %.1e", r.iterations(),
                r.iterations() / s, r.medianIterationSeconds() * 1e6, r.tail(), residual);
        return new Outcome(impl, s, r.commSeconds(), ok, metric);
    }

    /**
     * 60 solves of a 16³ grid (~7 500 allreduces or barrier rounds): enough calls for C2 to compile the
     * communication path; a few full-size solves would be as many seconds and still leave it half in C1.
     */
    @Override
    protected void warmUp(String impl) throws Exception {
        ConjugateGradient small = new ConjugateGradient(16, 1e-8, 1000, threads, seed);
        small.placement = placement;
        small.waitStrategy = waitStrategy;
        double[] rhs = rhs(16, seed);
        for (int i = 0; i < 60; i++) {
            small.solve(impl, rhs);
        }
    }

    /** True residual below 10 tol and the iteration count within 2% (+1) of the reference's. */
    public boolean check(Result r, Result ref, double trueResidual) {
        return trueResidual < 10 * tol && Math.abs(r.iterations() - ref.iterations()) <= 1 + ref.iterations() / 50;
    }

    public double trueResidual(Result r, double[] rhs) {
        return Poisson3d.trueRelativeResidual(n, r.x(), rhs);
    }

    /** Solves {@code A x = rhs} with implementation {@code impl}. */
    public Result solve(String impl, double[] rhs) throws Exception {
        return switch (impl) {
            case Outcome.COLL4J -> coll4j(rhs);
            case Outcome.COLL4J_HALO -> coll4jHalo(rhs);
            case Outcome.CYCLIC_BARRIER -> cyclicBarrier(rhs);
            case Outcome.STREAMS -> streams(rhs);
            case Outcome.SINGLE -> single(rhs);
            default -> throw new IllegalArgumentException("impl: unknown '" + impl + "'");
        };
    }

    // ------------------------------------------------------------------ single thread and parallel streams

    private Result single(double[] rhs) {
        long t0 = System.nanoTime();
        int size = rhs.length;
        double[] x = new double[size];
        double[] r = rhs.clone();
        double[] p = rhs.clone();
        double[] q = new double[size];
        double bb = Poisson3d.dot(rhs, rhs, 0, size);
        double rr = bb;
        int it = 0;
        IterationTimes laps = new IterationTimes();
        laps.start();
        while (it < maxIter && Math.sqrt(rr / bb) >= tol) {
            double pq = 0;
            for (int z = 0; z < n; z++) {
                pq += Poisson3d.applyPlane(n, p, z, q);
            }
            double alpha = rr / pq;
            double rrNew = Poisson3d.updateXr(x, r, p, q, alpha, 0, size);
            double beta = rrNew / rr;
            rr = rrNew;
            Poisson3d.updateP(p, r, p, beta, 0, size);
            it++;
            laps.lap();
        }
        return new Result(x, it, Double.NaN, since(t0), laps.medianSeconds(), laps.tail());
    }

    private Result streams(double[] rhs) throws Exception {
        // parallel streams run in the pool they are started from: a pool of --threads, so -t means the same for all
        ForkJoinPool pool = new ForkJoinPool(threads);
        try {
            return pool.submit(() -> streamsIn(rhs)).get();
        } finally {
            pool.shutdown();
        }
    }

    private Result streamsIn(double[] rhs) {
        long t0 = System.nanoTime();
        int size = rhs.length;
        int plane = n * n;
        double[] x = new double[size];
        double[] r = rhs.clone();
        double[] p = rhs.clone();
        double[] q = new double[size];
        double bb = IntStream.range(0, n).parallel().mapToDouble(z -> Poisson3d.dot(rhs, rhs, z * plane, (z + 1) * plane)).sum();
        double rr = bb;
        int it = 0;
        IterationTimes laps = new IterationTimes();
        laps.start();
        while (it < maxIter && Math.sqrt(rr / bb) >= tol) {
            double pq = IntStream.range(0, n).parallel().mapToDouble(z -> Poisson3d.applyPlane(n, p, z, q)).sum();
            double alpha = rr / pq;
            double rrNew = IntStream.range(0, n).parallel()
                    .mapToDouble(z -> Poisson3d.updateXr(x, r, p, q, alpha, z * plane, (z + 1) * plane)).sum();
            double beta = rrNew / rr;
            rr = rrNew;
            IntStream.range(0, n).parallel().forEach(z -> Poisson3d.updateP(p, r, p, beta, z * plane, (z + 1) * plane));
            it++;
            laps.lap();
        }
        return new Result(x, it, Double.NaN, since(t0), laps.medianSeconds(), laps.tail());
    }

    // ------------------------------------------------------------------ SPMD: coll4j and CyclicBarrier

    /** How the SPMD solver sums one double over the threads: the only thing coll4j and CyclicBarrier differ in. */
    private interface ScalarSum {
        double sum(double mine) throws Exception;
    }

    /** Arrays every thread of the SPMD solver shares; each thread writes only its slab. */
    private static final class Shared {
        final double[] x;
        final double[] r;
        final double[] p;
        final double[] q;
        final IterationTimes laps = new IterationTimes();   // rank 0's
        volatile int iterations;
        volatile double seconds;

        Shared(double[] rhs) {
            x = new double[rhs.length];
            r = rhs.clone();
            p = rhs.clone();
            q = new double[rhs.length];
        }
    }

    /** The CG loop of thread {@code id} of {@code p}; {@code sum} is its allreduce. Returns the iterations. */
    private int spmd(Shared sh, int id, int threads, ScalarSum sum, CommClock clock, IterationTimes laps) throws Exception {
        int plane = n * n;
        int z0 = (int) ((long) n * id / threads);
        int z1 = (int) ((long) n * (id + 1) / threads);
        int from = z0 * plane;
        int to = z1 * plane;
        boolean hasBelow = z0 > 0 && z1 > z0;
        boolean hasAbove = z1 < n && z1 > z0;
        double[] ghostBelow = new double[plane];
        double[] ghostAbove = new double[plane];
        double[] r = sh.r;
        double[] x = sh.x;
        double[] q = sh.q;
        double[] p = sh.p;
        // this slab's edge planes of p while the neighbours may still read the old ones (see the class comment)
        double[] edgeLo = new double[plane];
        double[] edgeHi = z1 - z0 > 1 ? new double[plane] : edgeLo;
        if (z1 > z0) {
            System.arraycopy(p, from, edgeLo, 0, plane);
            System.arraycopy(p, to - plane, edgeHi, 0, plane);
        }
        // p0 = r0 = b: the ghost planes are the neighbours' planes of b
        if (hasBelow) {
            System.arraycopy(r, from - plane, ghostBelow, 0, plane);
        }
        if (hasAbove) {
            System.arraycopy(r, to, ghostAbove, 0, plane);
        }
        double mine = Poisson3d.dot(r, r, from, to);
        clock.start();
        double bb = sum.sum(mine);
        clock.stop();
        double rr = bb;
        int it = 0;
        laps.start();
        while (it < maxIter && Math.sqrt(rr / bb) >= tol) {
            double pq = 0;
            for (int z = z0; z < z1; z++) {
                double[] c = z == z0 ? edgeLo : z == z1 - 1 ? edgeHi : p;
                int cOff = c == p ? z * plane : 0;
                double[] lo = z - 1 == z0 ? edgeLo : z > z0 ? p : hasBelow ? ghostBelow : null;
                int loOff = lo == p ? (z - 1) * plane : 0;
                double[] hi = z + 1 == z1 - 1 ? edgeHi : z < z1 - 1 ? p : hasAbove ? ghostAbove : null;
                int hiOff = hi == p ? (z + 1) * plane : 0;
                pq += Poisson3d.applyPlane(n, c, cOff, lo, loOff, hi, hiOff, q, z * plane);
            }
            clock.start();
            pq = sum.sum(pq);
            clock.stop();
            // every neighbour has copied its ghost planes from the old edges before entering that allreduce
            if (z1 > z0) {
                System.arraycopy(edgeLo, 0, p, from, plane);
                System.arraycopy(edgeHi, 0, p, to - plane, plane);
            }
            double alpha = rr / pq;
            double rrNew = Poisson3d.updateXr(x, r, p, q, alpha, from, to);
            clock.start();
            rrNew = sum.sum(rrNew);   // after this every thread's r is final for the iteration: the ghosts read it
            clock.stop();
            double beta = rrNew / rr;
            rr = rrNew;
            if (hasBelow) {
                Poisson3d.ghostPlane(ghostBelow, r, p, beta, from - plane, plane);
            }
            if (hasAbove) {
                Poisson3d.ghostPlane(ghostAbove, r, p, beta, to, plane);
            }
            if (z1 > z0) {
                Poisson3d.ghostPlane(edgeLo, r, p, beta, from, plane);
                Poisson3d.ghostPlane(edgeHi, r, p, beta, to - plane, plane);
                Poisson3d.updateP(p, r, p, beta, Math.min(from + plane, to), Math.max(to - plane, from));
            }
            it++;
            laps.lap();
        }
        return it;
    }

    private Result coll4j(double[] rhs) {
        Shared sh = new Shared(rhs);
        CommClock[] clocks = new CommClock[threads];
        try (Team team = team(threads).build()) {
            team.run(rank -> {
                CommClock clock = new CommClock();
                clocks[rank.id()] = clock;
                ScalarSum sum = scalarSum(rank);
                rank.barrier();
                long t0 = System.nanoTime();
                int it = spmd(sh, rank.id(), rank.size(), sum, clock, rank.id() == 0 ? sh.laps : new IterationTimes());
                rank.barrier();
                if (rank.id() == 0) {
                    sh.iterations = it;
                    sh.seconds = since(t0);
                }
            });
        }
        return new Result(sh.x, sh.iterations, clocks[0].seconds(), sh.seconds, sh.laps.medianSeconds(), sh.laps.tail());
    }

    /** The rank's 8-byte allreduce through a plan (the algorithm picked once) and one in-place cell. */
    private static ScalarSum scalarSum(Rank rank) {
        MemorySegment cell = rank.allocate(8);
        CollectivePlan allreduce = rank.plan(Collective.ALLREDUCE, 1, DType.F64, Op.SUM);
        return mine -> {
            cell.set(ValueLayout.JAVA_DOUBLE, 0, mine);
            allreduce.execute(cell, cell);
            return cell.get(ValueLayout.JAVA_DOUBLE, 0);
        };
    }

    private Result coll4jHalo(double[] rhs) {
        Shared sh = new Shared(rhs);
        CommClock[] clocks = new CommClock[threads];
        try (Team team = team(threads).build()) {
            team.run(rank -> {
                CommClock clock = new CommClock();
                clocks[rank.id()] = clock;
                ScalarSum sum = scalarSum(rank);
                HaloExchange halo = new HaloExchange(rank, n, sh.p);
                rank.barrier();
                long t0 = System.nanoTime();
                int it = spmdHalo(sh, rank.id(), rank.size(), sum, halo, clock, rank.id() == 0 ? sh.laps : new IterationTimes());
                rank.barrier();
                if (rank.id() == 0) {
                    sh.iterations = it;
                    sh.seconds = since(t0);
                }
            });
        }
        return new Result(sh.x, sh.iterations, clocks[0].seconds(), sh.seconds, sh.laps.medianSeconds(), sh.laps.tail());
    }

    /** {@link #spmd} with the ghost planes received from the neighbours after every update of p. */
    private int spmdHalo(Shared sh, int id, int threads, ScalarSum sum, HaloExchange halo, CommClock clock, IterationTimes laps)
            throws Exception {
        int plane = n * n;
        int z0 = (int) ((long) n * id / threads);
        int z1 = (int) ((long) n * (id + 1) / threads);
        int from = z0 * plane;
        int to = z1 * plane;
        double[] r = sh.r;
        double[] x = sh.x;
        double[] q = sh.q;
        double[] p = sh.p;
        double[] ghosts = halo.ghosts();
        clock.start();
        halo.exchange();                        // p0 = b
        clock.stop();
        double mine = Poisson3d.dot(r, r, from, to);
        clock.start();
        double bb = sum.sum(mine);
        clock.stop();
        double rr = bb;
        int it = 0;
        laps.start();
        while (it < maxIter && Math.sqrt(rr / bb) >= tol) {
            double pq = 0;
            for (int z = z0; z < z1; z++) {
                double[] lo = z > z0 ? p : halo.hasBelow() ? ghosts : null;
                int loOff = lo == p ? (z - 1) * plane : 0;
                double[] hi = z < z1 - 1 ? p : halo.hasAbove() ? ghosts : null;
                int hiOff = hi == p ? (z + 1) * plane : plane;
                pq += Poisson3d.applyPlane(n, p, z * plane, lo, loOff, hi, hiOff, q, z * plane);
            }
            clock.start();
            pq = sum.sum(pq);
            clock.stop();
            double alpha = rr / pq;
            double rrNew = Poisson3d.updateXr(x, r, p, q, alpha, from, to);
            clock.start();
            rrNew = sum.sum(rrNew);
            clock.stop();
            double beta = rrNew / rr;
            rr = rrNew;
            // the neighbours took my edge planes before entering the allreduces just passed, so this wait returns
            // at once; after it nobody reads my p. The edge planes first, so their messages travel while this rank
            // updates the interior (the overlap a distributed-memory code gets from a non-blocking exchange)
            clock.start();
            halo.awaitSends();
            clock.stop();
            int lowEdge = Math.min(from + plane, to);
            int highEdge = Math.max(to - plane, lowEdge);
            Poisson3d.updateP(p, r, p, beta, from, lowEdge);
            Poisson3d.updateP(p, r, p, beta, highEdge, to);
            halo.start();
            Poisson3d.updateP(p, r, p, beta, lowEdge, highEdge);
            clock.start();
            halo.finish();
            clock.stop();
            it++;
            laps.lap();
        }
        halo.awaitSends();
        return it;
    }

    private Result cyclicBarrier(double[] rhs) throws Exception {
        Shared sh = new Shared(rhs);
        CommClock[] clocks = new CommClock[threads];
        CyclicBarrier barrier = new CyclicBarrier(threads);
        // two slots per thread, used alternately: a thread writes slot s again only after the next barrier,
        // which every thread passes after it has read slot s
        double[][] partial = new double[2][threads];
        Thread[] ts = new Thread[threads];
        Exception[] failure = new Exception[1];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = Thread.ofPlatform().name("cg-cyclicbarrier-" + t).unstarted(() -> {
                CommClock clock = new CommClock();
                clocks[id] = clock;
                int[] calls = {0};
                ScalarSum sum = mine -> {
                    double[] slot = partial[calls[0]++ & 1];
                    slot[id] = mine;
                    barrier.await();
                    double s = 0;
                    for (double v : slot) {
                        s += v;
                    }
                    return s;
                };
                try {
                    barrier.await();
                    long t0 = System.nanoTime();
                    int it = spmd(sh, id, threads, sum, clock, id == 0 ? sh.laps : new IterationTimes());
                    barrier.await();
                    if (id == 0) {
                        sh.iterations = it;
                        sh.seconds = since(t0);
                    }
                } catch (Exception e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    barrier.reset();   // the others get BrokenBarrierException instead of waiting forever
                }
            });
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure[0] != null && !(failure[0] instanceof BrokenBarrierException)) {
            throw failure[0];
        }
        if (failure[0] != null) {
            throw new IllegalStateException("cyclicbarrier CG failed", failure[0]);
        }
        return new Result(sh.x, sh.iterations, clocks[0].seconds(), sh.seconds, sh.laps.medianSeconds(), sh.laps.tail());
    }
}
