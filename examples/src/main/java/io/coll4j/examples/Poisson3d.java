package io.coll4j.examples;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The 3-D Poisson matrix of the 7-point stencil on an n × n × n grid with zero Dirichlet boundary,
 * matrix-free: {@code (A p)[i] = 6 p[i] − Σ p[neighbour]} over the neighbours inside the grid. Vectors are
 * {@code double[n³]} in z-major order, index {@code (z·n + y)·n + x}; every kernel works on one z-plane, so
 * parallel versions split the grid into slabs of planes.
 */
public final class Poisson3d {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;

    private Poisson3d() {
    }

    /**
     * Writes plane z of {@code q = A p} and returns that plane's part of {@code p·q}. The planes below and
     * above come from {@code below}/{@code above} at the given offsets (a rank's own slab or its private copy
     * of a neighbour's plane); null at the grid's boundary.
     */
    public static double applyPlane(int n, double[] p, int off, double[] below, int belowOff, double[] above, int aboveOff,
                                    double[] q) {
        double[] zero = zeros(n * n);
        double[] lo = below != null ? below : zero;
        int loOff = below != null ? belowOff : 0;
        double[] hi = above != null ? above : zero;
        int hiOff = above != null ? aboveOff : 0;
        double dot = 0;
        for (int y = 0; y < n; y++) {
            int row = off + y * n;
            // the rows before and after in the plane; the zero plane stands in at the grid's edge
            double[] up = y > 0 ? p : zero;
            int upOff = y > 0 ? row - n : 0;
            double[] down = y < n - 1 ? p : zero;
            int downOff = y < n - 1 ? row + n : 0;
            int lr = loOff + y * n;
            int hr = hiOff + y * n;
            dot += applyRow(n, p, row, up, upOff, down, downOff, lo, lr, hi, hr, q);
        }
        return dot;
    }

    /**
     * One row of the stencil. The interior runs on the Vector API: C2 does not vectorise a loop that also
     * sums {@code c·s} (a floating-point reduction in source order), and the scalar loop cost ~3 ns a point.
     * Each q element is computed in the scalar expression's order, so q is bitwise the scalar one; the row's
     * dot product is summed in lanes, then across them, in a fixed order (the same in every implementation).
     */
    private static double applyRow(int n, double[] p, int row, double[] up, int upOff, double[] down, int downOff,
                                   double[] lo, int loOff, double[] hi, int hiOff, double[] q) {
        if (n == 1) {
            double c = p[row];
            double s = 6 * c - up[upOff] - down[downOff] - lo[loOff] - hi[hiOff];
            q[row] = s;
            return c * s;
        }
        double c0 = p[row];
        double s0 = 6 * c0 - p[row + 1] - up[upOff] - down[downOff] - lo[loOff] - hi[hiOff];
        q[row] = s0;
        double dot = c0 * s0;
        int x = 1;
        DoubleVector acc = DoubleVector.zero(D);
        for (; x <= n - 1 - D.length(); x += D.length()) {
            DoubleVector c = DoubleVector.fromArray(D, p, row + x);
            DoubleVector s = c.mul(6.0).sub(DoubleVector.fromArray(D, p, row + x - 1)).sub(DoubleVector.fromArray(D, p, row + x + 1))
                    .sub(DoubleVector.fromArray(D, up, upOff + x)).sub(DoubleVector.fromArray(D, down, downOff + x))
                    .sub(DoubleVector.fromArray(D, lo, loOff + x)).sub(DoubleVector.fromArray(D, hi, hiOff + x));
            s.intoArray(q, row + x);
            acc = acc.add(c.mul(s));
        }
        dot += sumLanes(acc);
        for (; x < n - 1; x++) {
            double c = p[row + x];
            double s = 6 * c - p[row + x - 1] - p[row + x + 1] - up[upOff + x] - down[downOff + x] - lo[loOff + x] - hi[hiOff + x];
            q[row + x] = s;
            dot += c * s;
        }
        int e = n - 1;
        double ce = p[row + e];
        double se = 6 * ce - p[row + e - 1] - up[upOff + e] - down[downOff + e] - lo[loOff + e] - hi[hiOff + e];
        q[row + e] = se;
        return dot + ce * se;
    }

    private static volatile double[] zeroPlane = new double[0];

    /** A shared read-only array of at least {@code size} zeros. */
    private static double[] zeros(int size) {
        double[] z = zeroPlane;
        if (z.length < size) {
            z = new double[size];
            zeroPlane = z;
        }
        return z;
    }

    /**
     * The lanes of {@code v} added in lane order: {@code reduceLanes(ADD)} leaves the order of a
     * floating-point sum to the platform (and C2's intrinsic may differ from the interpreter's), which would
     * let the same solve take a different path once compiled.
     */
    private static double sumLanes(DoubleVector v) {
        double s = 0;
        for (int l = 0; l < D.length(); l++) {
            s += v.lane(l);
        }
        return s;
    }

    /** Plane z of {@code q = A p} for a vector held whole (single thread, streams): neighbours from {@code p} itself. */
    public static double applyPlane(int n, double[] p, int z, double[] q) {
        int plane = n * n;
        int off = z * plane;
        return applyPlane(n, p, off, z > 0 ? p : null, off - plane, z < n - 1 ? p : null, off + plane, q);
    }

    /** {@code x += alpha p; r −= alpha q} over [from, to); returns the new {@code r·r} of that range (summed in lanes, as {@link #dot}). */
    public static double updateXr(double[] x, double[] r, double[] p, double[] q, double alpha, int from, int to) {
        int i = from;
        DoubleVector acc = DoubleVector.zero(D);
        for (; i <= to - D.length(); i += D.length()) {
            DoubleVector.fromArray(D, x, i).add(DoubleVector.fromArray(D, p, i).mul(alpha)).intoArray(x, i);
            DoubleVector ri = DoubleVector.fromArray(D, r, i).sub(DoubleVector.fromArray(D, q, i).mul(alpha));
            ri.intoArray(r, i);
            acc = acc.add(ri.mul(ri));
        }
        double rr = sumLanes(acc);
        for (; i < to; i++) {
            x[i] += alpha * p[i];
            double ri = r[i] - alpha * q[i];
            r[i] = ri;
            rr += ri * ri;
        }
        return rr;
    }

    /** {@code dst = r + beta p} over [from, to) (dst may be p). */
    public static void updateP(double[] dst, double[] r, double[] p, double beta, int from, int to) {
        int i = from;
        for (; i <= to - D.length(); i += D.length()) {
            DoubleVector.fromArray(D, r, i).add(DoubleVector.fromArray(D, p, i).mul(beta)).intoArray(dst, i);
        }
        for (; i < to; i++) {
            dst[i] = r[i] + beta * p[i];
        }
    }

    /** {@code dst[dstOff..] = r[srcOff..] + beta p[srcOff..]} over one plane (a rank's private copy of a neighbour's next p plane). */
    public static void ghostPlane(double[] dst, double[] r, double[] p, double beta, int srcOff, int planeSize) {
        int i = 0;
        for (; i <= planeSize - D.length(); i += D.length()) {
            DoubleVector.fromArray(D, r, srcOff + i).add(DoubleVector.fromArray(D, p, srcOff + i).mul(beta)).intoArray(dst, i);
        }
        for (; i < planeSize; i++) {
            dst[i] = r[srcOff + i] + beta * p[srcOff + i];
        }
    }

    /** {@code a·b} over [from, to): summed in lanes, then across them, then the tail, in that fixed order. */
    public static double dot(double[] a, double[] b, int from, int to) {
        int i = from;
        DoubleVector acc = DoubleVector.zero(D);
        for (; i <= to - D.length(); i += D.length()) {
            acc = acc.add(DoubleVector.fromArray(D, a, i).mul(DoubleVector.fromArray(D, b, i)));
        }
        double s = sumLanes(acc);
        for (; i < to; i++) {
            s += a[i] * b[i];
        }
        return s;
    }

    /** ‖b − A x‖ / ‖b‖, computed from scratch (the check; the solver's recurrence residual can drift). */
    public static double trueRelativeResidual(int n, double[] x, double[] b) {
        double[] ax = new double[x.length];
        for (int z = 0; z < n; z++) {
            applyPlane(n, x, z, ax);
        }
        double rr = 0;
        double bb = 0;
        for (int i = 0; i < x.length; i++) {
            double d = b[i] - ax[i];
            rr += d * d;
            bb += b[i] * b[i];
        }
        return Math.sqrt(rr / bb);
    }
}
