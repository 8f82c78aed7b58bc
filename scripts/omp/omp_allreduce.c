/*
 * The C reference for `collbench allreduce --consume`: an allreduce among the threads of one process written
 * by hand with OpenMP, each thread reading its whole result after every call, timed as collbench times
 * (batches of back-to-back calls, the slowest thread's time, best batch and mean).
 *
 * Every thread t owns a send buffer in[t] and a receive buffer out[t] of n doubles (first-touched by t).
 * One call: a barrier (every input is ready), the reduction, a barrier (every result is complete), then
 * the thread reads out[t] (the consume). Two ways to write the reduction, both printed:
 *   split       the elements cut as omp for schedule(static) cuts them: thread t folds its share of every input and stores it into
 *               every out[] (the natural `#pragma omp for` loop; the peers' results are written remotely);
 *   replicated  every thread folds all inputs into its own out[t] (reads everything, writes only locally).
 *
 * Build: gcc -O3 -march=native -fopenmp scripts/omp/omp_allreduce.c -o /tmp/omp_allreduce
 * Run:   OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=active /tmp/omp_allreduce 8 32768 131072 2097152
 *        (sizes in bytes per rank; OMP_BENCH_ITERS overrides the iteration count)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* collbench's defaultIterations: 10 000 up to 8 KiB, else 2^28 / bytes within [20, 10 000] */
static long iterations(long bytes) {
    const char *env = getenv("OMP_BENCH_ITERS");
    if (env) return atol(env);
    if (bytes <= 8192) return 10000;
    long it = (1L << 28) / bytes;
    return it < 20 ? 20 : it > 10000 ? 10000 : it;
}

#define BATCHES 20

static double sink_total;

static void run(const char *name, int replicated, long n, long iters) {
    int p = omp_get_max_threads();
    double **in = malloc(p * sizeof(double *)), **out = malloc(p * sizeof(double *));
    double best = 1e30, total = 0;
    long batch = iters / BATCHES > 0 ? iters / BATCHES : 1;
    double *batch_time = calloc(BATCHES, sizeof(double));
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        in[t] = aligned_alloc(64, (n * 8 + 63) / 64 * 64 + 64);
        out[t] = aligned_alloc(64, (n * 8 + 63) / 64 * 64 + 64);
        for (long i = 0; i < n; i++) { in[t][i] = t + 1 + i % 7; out[t][i] = 0; }
        double sink = 0;
#pragma omp barrier
        for (int b = -5; b < BATCHES; b++) {     /* 5 warm-up batches, then the timed ones */
#pragma omp barrier
            double t0 = now();
            for (long it = 0; it < batch; it++) {
#pragma omp barrier
                if (replicated) {
                    double *restrict o = out[t];
                    const double *restrict a = in[0];
                    if (p == 2) {                /* the pair this reference is run with: a vectorised loop */
                        const double *restrict c = in[1];
#pragma omp simd
                        for (long i = 0; i < n; i++) o[i] = a[i] + c[i];
                    } else {
#pragma omp simd
                        for (long i = 0; i < n; i++) o[i] = a[i];
                        for (int q = 1; q < p; q++) {
                            const double *restrict c = in[q];
#pragma omp simd
                            for (long i = 0; i < n; i++) o[i] += c[i];
                        }
                    }
                } else {
                    /* thread t's contiguous share [lo, hi), as schedule(static) would cut it */
                    long lo = n * t / p, hi = n * (t + 1) / p;
                    if (p == 2) {
                        const double *restrict a = in[0], *restrict c = in[1];
                        double *restrict o0 = out[0], *restrict o1 = out[1];
#pragma omp simd
                        for (long i = lo; i < hi; i++) { double v = a[i] + c[i]; o0[i] = v; o1[i] = v; }
                    } else {
                        for (long i = lo; i < hi; i++) {
                            double v = in[0][i];
                            for (int q = 1; q < p; q++) v += in[q][i];
                            for (int q = 0; q < p; q++) out[q][i] = v;
                        }
                    }
                }
#pragma omp barrier
                /* the consume: read the whole result at load speed (an xor of its words vectorises; a
                   floating-point sum would be one dependent add per element and time the adder, not the read) */
                const unsigned long long *o = (const unsigned long long *) out[t];
                unsigned long long acc = 0;
                for (long i = 0; i < n; i++) acc ^= o[i];
                sink += (double) (acc & 0xff);
            }
            double dt = now() - t0;
#pragma omp critical
            { if (b >= 0 && dt > batch_time[b]) batch_time[b] = dt; }   /* the slowest thread's batch */
        }
#pragma omp atomic
        sink_total += sink;
    }
    for (int b = 0; b < BATCHES; b++) {
        double per = batch_time[b] / batch;
        if (per < best) best = per;
        total += batch_time[b];
    }
    long bytes = n * 8;
    double expect = 0;
    for (int q = 0; q < p; q++) expect += q + 1 + 3 % 7;
    int ok = 1;
    for (int q = 0; q < p && ok; q++) if (n > 3 && out[q][3] != expect) ok = 0;
    printf("%12ld %-11s %10.2f %10.2f  %s\n", bytes, name, total / (BATCHES * batch) * 1e6, best * 1e6, ok ? "ok" : "WRONG");
    for (int q = 0; q < p; q++) { free(in[q]); free(out[q]); }
    free(in); free(out); free(batch_time);
}

int main(int argc, char **argv) {
    printf("# omp_allreduce: %d threads, f64 sum, every thread reads its result after each call\n", omp_get_max_threads());
    printf("# %10s %-11s %10s %10s\n", "size(B)", "variant", "mean(us)", "best(us)");
    for (int a = 1; a < argc; a++) {
        long bytes = atol(argv[a]);
        long n = bytes / 8 > 0 ? bytes / 8 : 1;
        long iters = iterations(bytes);
        run("split", 0, n, iters);
        run("replicated", 1, n, iters);
    }
    fprintf(stderr, "# sink %g\n", sink_total);
    return 0;
}
