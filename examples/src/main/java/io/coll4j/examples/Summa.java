package io.coll4j.examples;

import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import org.ejml.concurrency.EjmlConcurrency;
import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;
import org.ejml.dense.row.CommonOps_MT_DDRM;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * SUMMA dense matrix multiply {@code C = A·B} [MPI+MPI §5.2] on a {@link ProcessGrid}: rank (i, j) owns
 * block (i, j) of A, B and C. For every panel of the inner dimension, the rank holding A's columns of the
 * panel in grid row i broadcasts them along its row, the rank holding B's rows of the panel in grid column
 * j broadcasts them along its column, and every rank adds {@code A_panel · B_panel} to its C block with
 * EJML's GEMM. Panels are cut at both partitions' block edges and at {@code --panel} columns.
 *
 * <p>Row and column communicators are sub-teams split from the world team ({@link Rank#split}, MPI's
 * {@code MPI_Comm_split}), each placed on its members' PUs; a team of one rank (a 1 × p grid's columns)
 * is split like the others (split is a collective of the world team) but never used.
 */
@Command(name = "summa", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"SUMMA dense matrix multiply C = A*B (A, B uniform in [-1,1), fixed seed) on a rows x cols grid of ranks "
                + "(as square as -t allows: 2 -> 1x2, 4 -> 2x2), panels broadcast along rows and columns, local GEMM with EJML "
                + "(CommonOps_DDRM.multAdd).",
                "Implementations: coll4j (SUMMA, row and column sub-teams split from one team), ejml-mt (CommonOps_MT_DDRM.mult, "
                        + "EjmlConcurrency.setMaxThreads(-t)), single (CommonOps_DDRM.mult).",
                "Timed: the multiply, not the distribution of blocks. comm_s: packing and broadcasting panels.",
                "Check (every implementation, Freivalds): ||C v - A (B v)||_inf <= 1e-9 n ||A (B v)||_inf for a random v."})
public final class Summa extends Workload {
    @Option(names = {"-n", "--size"}, defaultValue = "4096", description = "Matrix order n (default: ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--panel", defaultValue = "512", description = "Largest panel width of the inner dimension (default: ${DEFAULT-VALUE}).")
    int panel;

    private DMatrixRMaj a;
    private DMatrixRMaj b;
    private double[] v;
    private double[] abv;

    /** The product, rank 0's time packing and broadcasting panels, and the multiply's time. */
    public record Result(DMatrixRMaj c, double commSeconds, double seconds) {
    }

    public Summa() {
    }

    /** For tests and callers that skip the command line. */
    public Summa(int n, int panel, int threads, long seed) {
        this.n = n;
        this.panel = panel;
        this.threads = threads;
        this.seed = seed;
    }

    public static void main(String[] args) {
        System.exit(Examples.execute(new Summa(), args));
    }

    @Override
    protected String name() {
        return "summa";
    }

    @Override
    protected List<String> allImpls() {
        return List.of(Outcome.COLL4J, Outcome.EJML_MT, Outcome.SINGLE);
    }

    @Override
    protected String problem() {
        return String.format(Locale.ROOT, "n=%d f64, grid %s, panel %d", n, ProcessGrid.of(threads), panel);
    }

    @Override
    protected void validate() {
        if (n < 1 || (long) n * n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--size must be in 1..46340, got " + n);
        }
        if (panel < 1) {
            throw new IllegalArgumentException("--panel must be >= 1, got " + panel);
        }
        ProcessGrid grid = ProcessGrid.of(threads);
        if (n < Math.max(grid.rows(), grid.cols())) {
            // a rank would own an empty block, which EJML refuses (MatrixDimensionException) mid-run
            throw new IllegalArgumentException("--size " + n + " is smaller than the " + grid + " grid of " + threads
                    + " threads: every rank needs at least one row and column of each block (n >= "
                    + Math.max(grid.rows(), grid.cols()) + ", or fewer threads)");
        }
    }

    @Override
    protected long heapBytes() {
        // A, B and one C of n x n doubles, the ranks' blocks of A, B and C (3 n^2 in all), the panels
        return product(7, 8, n, n);
    }

    @Override
    protected void prepare() {
        SplittableRandom rnd = new SplittableRandom(seed);
        a = random(n, rnd);
        b = random(n, rnd);
        v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = rnd.nextDouble(-1, 1);
        }
        abv = multiply(a, multiply(b, v));
    }

    @Override
    protected void release() {
        a = null;
        b = null;
    }

    /** Generates the matrices (for callers that skip {@link #call}). */
    public void generate() {
        prepare();
    }

    private static DMatrixRMaj random(int n, SplittableRandom rnd) {
        DMatrixRMaj m = new DMatrixRMaj(n, n);
        double[] d = m.data;
        for (int i = 0; i < d.length; i++) {
            d[i] = rnd.nextDouble(-1, 1);
        }
        return m;
    }

    private static double[] multiply(DMatrixRMaj m, double[] x) {
        int rows = m.numRows;
        int cols = m.numCols;
        double[] y = new double[rows];
        for (int i = 0; i < rows; i++) {
            double s = 0;
            for (int j = 0; j < cols; j++) {
                s += m.data[i * cols + j] * x[j];
            }
            y[i] = s;
        }
        return y;
    }

    /** Freivalds' check: C v against A (B v), O(n²). */
    public boolean check(DMatrixRMaj c) {
        double[] cv = multiply(c, v);
        double err = 0;
        double scale = 0;
        for (int i = 0; i < n; i++) {
            err = Math.max(err, Math.abs(cv[i] - abv[i]));
            scale = Math.max(scale, Math.abs(abv[i]));
        }
        return err <= 1e-9 * n * Math.max(scale, 1e-300);
    }

    @Override
    protected Outcome run(String impl) throws Exception {
        Result r = multiply(impl);
        boolean ok = check(r.c());
        double gflops = 2.0 * n * n * n / r.seconds() * 1e-9;
        return new Outcome(impl, r.seconds(), r.commSeconds(), ok, String.format(Locale.ROOT, "%.2f GFLOP/s", gflops));
    }

    /** Compute-bound, a few panels a run: no warm-up (a second n = 4096 multiply would double the run). */
    @Override
    protected void warmUp(String impl) {
    }

    /** Multiplies the prepared matrices with implementation {@code impl}. */
    public Result multiply(String impl) throws Exception {
        return switch (impl) {
            case Outcome.COLL4J -> summa();
            case Outcome.EJML_MT -> ejmlMt();
            case Outcome.SINGLE -> single();
            default -> throw new IllegalArgumentException("impl: unknown '" + impl + "'");
        };
    }

    private Result single() {
        DMatrixRMaj c = new DMatrixRMaj(n, n);
        long t0 = System.nanoTime();
        CommonOps_DDRM.mult(a, b, c);
        return new Result(c, Double.NaN, since(t0));
    }

    private Result ejmlMt() {
        DMatrixRMaj c = new DMatrixRMaj(n, n);
        EjmlConcurrency.setMaxThreads(threads);
        long t0 = System.nanoTime();
        CommonOps_MT_DDRM.mult(a, b, c);
        return new Result(c, Double.NaN, since(t0));
    }

    // ------------------------------------------------------------------ SUMMA

    /** One panel of the inner dimension: columns [k0, k1) of A, rows [k0, k1) of B. */
    private record Panel(int k0, int k1, int aOwnerCol, int bOwnerRow) {
        int width() {
            return k1 - k0;
        }
    }

    /** Panels cut at A's column-block edges, B's row-block edges and every {@code panel} columns. */
    static List<Panel> panels(int n, ProcessGrid g, int panel) {
        List<Panel> out = new ArrayList<>();
        int k = 0;
        while (k < n) {
            int ac = ProcessGrid.owner(n, g.cols(), k);
            int br = ProcessGrid.owner(n, g.rows(), k);
            int end = Math.min(n, Math.min(ProcessGrid.start(n, g.cols(), ac + 1), ProcessGrid.start(n, g.rows(), br + 1)));
            end = Math.min(end, k + panel);
            out.add(new Panel(k, end, ac, br));
            k = end;
        }
        return out;
    }

    private Result summa() {
        ProcessGrid g = ProcessGrid.of(threads);
        List<Panel> panels = panels(n, g, panel);
        DMatrixRMaj c = new DMatrixRMaj(n, n);
        double[] seconds = new double[1];
        CommClock[] clocks = new CommClock[threads];
        try (Team world = team(threads).build()) {
            world.run(rank -> {
                int i = g.row(rank.id());
                int j = g.col(rank.id());
                // MPI_Comm_split by grid row and by grid column: each sub-team is placed on its members'
                // PUs and has its own control lines, so row and column broadcasts never share a flag line
                Rank rowRank = rank.split(i, j);
                Rank colRank = rank.split(j, i);
                try {
                    clocks[rank.id()] = summaRank(rank, g.cols() == 1 ? null : rowRank, g.rows() == 1 ? null : colRank,
                            g, panels, c, seconds);
                } finally {
                    rowRank.close();
                    colRank.close();
                }
            });
        }
        return new Result(c, clocks[0].seconds(), seconds[0]);
    }

    /** Rank (i, j) of the grid: its blocks, the panel loop, and its block of C written back. */
    private CommClock summaRank(Rank world, Rank rowRank, Rank colRank, ProcessGrid g, List<Panel> panels, DMatrixRMaj c,
                                double[] seconds) {
        int i = g.row(world.id());
        int j = g.col(world.id());
        int r0 = ProcessGrid.start(n, g.rows(), i);
        int r1 = ProcessGrid.start(n, g.rows(), i + 1);
        int c0 = ProcessGrid.start(n, g.cols(), j);
        int c1 = ProcessGrid.start(n, g.cols(), j + 1);
        // A's block: rows of grid row i, columns of grid column j; B's block: rows of grid row i (B's row
        // partition has g.rows() blocks), columns of grid column j; C's block: rows i, columns j
        DMatrixRMaj aBlock = CommonOps_DDRM.extract(a, r0, r1, c0, c1);
        DMatrixRMaj bBlock = CommonOps_DDRM.extract(b, r0, r1, c0, c1);
        DMatrixRMaj cBlock = new DMatrixRMaj(r1 - r0, c1 - c0);
        int maxWidth = 0;
        for (Panel p : panels) {
            maxWidth = Math.max(maxWidth, p.width());
        }
        DMatrixRMaj aPanel = new DMatrixRMaj(r1 - r0, maxWidth);
        DMatrixRMaj bPanel = new DMatrixRMaj(maxWidth, c1 - c0);
        CommClock clock = new CommClock();
        world.barrier();
        long t0 = System.nanoTime();
        for (Panel p : panels) {
            int w = p.width();
            clock.start();
            // A(rows i, k0..k1) from the rank of row i that owns those columns
            aPanel.reshape(r1 - r0, w);
            if (p.aOwnerCol() == j) {
                int ac0 = ProcessGrid.start(n, g.cols(), j);
                CommonOps_DDRM.extract(aBlock, 0, r1 - r0, p.k0() - ac0, p.k1() - ac0, aPanel, 0, 0);
            }
            if (rowRank != null) {
                rowRank.bcast(MemorySegment.ofArray(aPanel.data), (long) (r1 - r0) * w, DType.F64, p.aOwnerCol());
            }
            // B(k0..k1, cols j) from the rank of column j that owns those rows: contiguous in its row-major block
            bPanel.reshape(w, c1 - c0);
            if (p.bOwnerRow() == i) {
                int br0 = ProcessGrid.start(n, g.rows(), i);
                System.arraycopy(bBlock.data, (p.k0() - br0) * (c1 - c0), bPanel.data, 0, w * (c1 - c0));
            }
            if (colRank != null) {
                colRank.bcast(MemorySegment.ofArray(bPanel.data), (long) w * (c1 - c0), DType.F64, p.bOwnerRow());
            }
            clock.stop();
            CommonOps_DDRM.multAdd(aPanel, bPanel, cBlock);
        }
        world.barrier();
        if (world.id() == 0) {
            seconds[0] = since(t0);
        }
        CommonOps_DDRM.insert(cBlock, c, r0, c0);
        return clock;
    }
}
