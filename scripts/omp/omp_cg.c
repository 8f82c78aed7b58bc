/*
 * The C reference for `./examples/run cg`: the same conjugate gradient (3-D Poisson matrix, matrix-free 7-point
 * stencil, zero Dirichlet boundary, x0 = 0, until ||r||/||b|| < tol) written with OpenMP the way a C user writes it:
 * one parallel region, `omp for schedule(static)` over z-planes with a reduction for each of the two dot products of
 * an iteration. It answers one question of issue 35: beside a CPU-bound process pinned to one of the two cores, can
 * any bulk-synchronous team of two threads beat one thread on the free core? Each iteration needs both threads; the
 * thread that shares its core runs only in its time slices, so the team moves at the slower thread's pace: run it with
 * OMP_NUM_THREADS=2 and 1 beside `taskset -c 1 sh -c 'while :; do :; done'` and compare.
 *
 * Build: gcc -O3 -march=native -fopenmp scripts/omp/omp_cg.c -o /tmp/omp_cg -lm
 * Run:   OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=active /tmp/omp_cg [n] [tol] [solves]
 *        (default 64, 1e-8, 3). Prints every solve's time and iterations, then the best, as examples/run cg does.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* q = A p on plane z (6 on the diagonal, -1 to each of the six neighbours, zero outside); returns p.q of the plane.
   Neighbours outside the grid read a row of zeros, so the inner loop has no branch and vectorises */
static double apply_plane(int n, const double *p, int z, double *q, const double *zeros) {
    long plane = (long) n * n;
    const double *c = p + z * plane;
    double *out = q + z * plane;
    double pq = 0;
    for (int y = 0; y < n; y++) {
        const double *row = c + (long) y * n;
        const double *up = y > 0 ? row - n : zeros;
        const double *down = y < n - 1 ? row + n : zeros;
        const double *lo = z > 0 ? row - plane : zeros;
        const double *hi = z < n - 1 ? row + plane : zeros;
        double *o = out + (long) y * n;
        o[0] = 6 * row[0] - row[1] - up[0] - down[0] - lo[0] - hi[0];
        pq += row[0] * o[0];
        for (int x = 1; x < n - 1; x++) {
            double v = 6 * row[x] - row[x - 1] - row[x + 1] - up[x] - down[x] - lo[x] - hi[x];
            o[x] = v;
            pq += row[x] * v;
        }
        o[n - 1] = 6 * row[n - 1] - row[n - 2] - up[n - 1] - down[n - 1] - lo[n - 1] - hi[n - 1];
        pq += row[n - 1] * o[n - 1];
    }
    return pq;
}

/* one solve; returns its iterations and writes its time */
static int solve(int n, double tol, const double *b, double *x, double *r, double *p, double *q, const double *zeros,
                 double *secs) {
    long size = (long) n * n * n;
    long plane = (long) n * n;
    double bb = 0, rr = 0, pq = 0, rr_new = 0;
    int it = 0;
    double t0 = now();
#pragma omp parallel
    {
#pragma omp for schedule(static) reduction(+ : bb)
        for (int z = 0; z < n; z++) {
            for (long i = z * plane; i < (z + 1) * plane; i++) {
                x[i] = 0;
                r[i] = b[i];
                p[i] = b[i];
                bb += b[i] * b[i];
            }
        }
#pragma omp single
        rr = bb;
        while (it < 5000 && sqrt(rr / bb) >= tol) {
#pragma omp single
            {
                pq = 0;
                rr_new = 0;
            }
#pragma omp for schedule(static) reduction(+ : pq)
            for (int z = 0; z < n; z++) {
                pq += apply_plane(n, p, z, q, zeros);
            }
            double alpha = rr / pq;
#pragma omp for schedule(static) reduction(+ : rr_new)
            for (int z = 0; z < n; z++) {
                for (long i = z * plane; i < (z + 1) * plane; i++) {
                    x[i] += alpha * p[i];
                    r[i] -= alpha * q[i];
                    rr_new += r[i] * r[i];
                }
            }
            double beta = rr_new / rr;
#pragma omp for schedule(static)
            for (int z = 0; z < n; z++) {
                for (long i = z * plane; i < (z + 1) * plane; i++) {
                    p[i] = r[i] + beta * p[i];
                }
            }
#pragma omp single
            {
                rr = rr_new;
                it++;
            }
        }
    }
    *secs = now() - t0;
    (void) size;
    return it;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double tol = argc > 2 ? atof(argv[2]) : 1e-8;
    int solves = argc > 3 ? atoi(argv[3]) : 3;
    long size = (long) n * n * n;
    double *b = malloc(size * sizeof(double)), *x = malloc(size * sizeof(double)), *r = malloc(size * sizeof(double)),
           *p = malloc(size * sizeof(double)), *q = malloc(size * sizeof(double)), *zeros = calloc(n, sizeof(double));
    srand48(42);
    for (long i = 0; i < size; i++) {
        b[i] = drand48();
    }
    double best = 1e30, secs;
    int it = solve(n, tol, b, x, r, p, q, zeros, &secs);     /* warm-up: pages touched, threads started */
    for (int s = 0; s < solves; s++) {
        it = solve(n, tol, b, x, r, p, q, zeros, &secs);
        printf("omp-cg threads %d: solve %d: %d it, %.4f s\n", omp_get_max_threads(), s + 1, it, secs);
        if (secs < best) best = secs;
    }
    printf("omp-cg,%d,%d^3,%d,%.4f\n", omp_get_max_threads(), n, it, best);
    free(b); free(x); free(r); free(p); free(q); free(zeros);
    return 0;
}
