/*
 * Diagnostic companion of omp_allreduce.c (the issue-35 reference): the same timing and the same consume (every
 * thread reads its whole result after each call), with the two-thread reduction written five ways, so that the
 * cost of writing the peer's result can be told apart from the cost of reading it. p = 2 only.
 *
 *   split       omp_allreduce.c's split: thread t folds its half and stores each sum into out[0] and out[1] in the
 *               same loop (a store to the peer's line between two local ones);
 *   replicated  omp_allreduce.c's replicated: every thread folds both inputs into its own out[t];
 *   fold+copy   coll4j's push in its temporal form: thread t folds its half into out[t], then copies that half
 *               into the peer's out[] with one memcpy;
 *   tiled+copy  the same, 8 KiB at a time (each tile copied to the peer while it is still in L1);
 *   tiled-both  8 KiB tiles, each sum stored into both results in the same loop (split, tiled).
 *
 * Build: gcc -O3 -march=native -fopenmp scripts/omp/omp_allreduce_variants.c -o /tmp/omp_variants
 * Run:   OMP_NUM_THREADS=2 OMP_PROC_BIND=close OMP_PLACES=cores OMP_WAIT_POLICY=active /tmp/omp_variants 131072 2097152
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SPLIT, REPLICATED, FOLD_COPY, TILED_COPY, TILED_BOTH };
static const char *NAMES[] = {"split", "replicated", "fold+copy", "tiled+copy", "tiled-both"};
#define TILE_ELEMENTS 1024
#define BATCHES 20

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* as omp_allreduce.c (collbench's defaultIterations) */
static long iterations(long bytes) {
    const char *env = getenv("OMP_BENCH_ITERS");
    if (env) return atol(env);
    if (bytes <= 8192) return 10000;
    long it = (1L << 28) / bytes;
    return it < 20 ? 20 : it > 10000 ? 10000 : it;
}

static double sink_total;

static void reduce(int variant, int t, long n, double **in, double **out) {
    const double *restrict a = in[0], *restrict c = in[1];
    double *restrict mine = out[t], *restrict other = out[1 - t];
    long lo = n * t / 2, hi = n * (t + 1) / 2;
    switch (variant) {
    case REPLICATED:
#pragma omp simd
        for (long i = 0; i < n; i++) mine[i] = a[i] + c[i];
        break;
    case SPLIT: {
        double *restrict o0 = out[0], *restrict o1 = out[1];
#pragma omp simd
        for (long i = lo; i < hi; i++) { double v = a[i] + c[i]; o0[i] = v; o1[i] = v; }
        break;
    }
    default: {
        long tile = variant == FOLD_COPY ? hi - lo : TILE_ELEMENTS;
        for (long s = lo; s < hi; s += tile) {
            long e = s + tile < hi ? s + tile : hi;
            if (variant == TILED_BOTH) {
#pragma omp simd
                for (long i = s; i < e; i++) { double v = a[i] + c[i]; mine[i] = v; other[i] = v; }
            } else {
#pragma omp simd
                for (long i = s; i < e; i++) mine[i] = a[i] + c[i];
                memcpy(other + s, mine + s, (size_t) (e - s) * 8);
            }
        }
    }
    }
}

static void run(int variant, long n, long iters) {
    double *in[2], *out[2];
    double best = 1e30, total = 0;
    long batch = iters / BATCHES > 0 ? iters / BATCHES : 1;
    double batch_time[BATCHES] = {0};
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        in[t] = aligned_alloc(64, (n * 8 + 63) / 64 * 64 + 64);
        out[t] = aligned_alloc(64, (n * 8 + 63) / 64 * 64 + 64);
        for (long i = 0; i < n; i++) { in[t][i] = t + 1 + i % 7; out[t][i] = 0; }
        double sink = 0;
#pragma omp barrier
        for (int b = -5; b < BATCHES; b++) {
#pragma omp barrier
            double t0 = now();
            for (long it = 0; it < batch; it++) {
#pragma omp barrier
                reduce(variant, t, n, in, out);
#pragma omp barrier
                const unsigned long long *o = (const unsigned long long *) out[t];
                unsigned long long acc = 0;
                for (long i = 0; i < n; i++) acc ^= o[i];
                sink += (double) (acc & 0xff);
            }
            double dt = now() - t0;
#pragma omp critical
            { if (b >= 0 && dt > batch_time[b]) batch_time[b] = dt; }
        }
#pragma omp atomic
        sink_total += sink;
    }
    for (int b = 0; b < BATCHES; b++) {
        double per = batch_time[b] / batch;
        if (per < best) best = per;
        total += batch_time[b];
    }
    int ok = 1;
    for (int q = 0; q < 2; q++)
        for (long i = 0; i < n && ok; i++)
            if (out[q][i] != (double) (1 + i % 7) + (double) (2 + i % 7)) ok = 0;
    printf("%12ld %-11s %10.2f %10.2f  %s\n", n * 8, NAMES[variant], total / (BATCHES * batch) * 1e6, best * 1e6,
           ok ? "ok" : "WRONG");
    for (int q = 0; q < 2; q++) { free(in[q]); free(out[q]); }
}

int main(int argc, char **argv) {
    printf("# omp_allreduce_variants: 2 threads, f64 sum, every thread reads its result after each call\n");
    printf("# %10s %-11s %10s %10s\n", "size(B)", "variant", "mean(us)", "best(us)");
    for (int a = 1; a < argc; a++) {
        long bytes = atol(argv[a]);
        long n = bytes / 8 > 0 ? bytes / 8 : 1;
        for (int v = SPLIT; v <= TILED_BOTH; v++) run(v, n, iterations(bytes));
    }
    fprintf(stderr, "# sink %g\n", sink_total);
    return 0;
}
