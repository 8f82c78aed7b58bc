/*
 * Open MPI reference point for collbench: times MPI_Allreduce / MPI_Reduce_scatter_block / MPI_Reduce /
 * MPI_Bcast / MPI_Allgather / MPI_Barrier, and MPI_Gather / MPI_Scatter / MPI_Gatherv / MPI_Scatterv /
 * MPI_Allgatherv / MPI_Reduce_scatter / MPI_Alltoall / MPI_Alltoallv / MPI_Scan / MPI_Exscan
 * on MPI_DOUBLE + MPI_SUM over the same sizes and prints rows in
 * collbench's CSV header (docs/design.md, "CLI contract"), so the two tables can be compared line by line. Sizes are bytes per
 * rank with collbench's meaning (the input for reduce-scatter, the output for allgather, the root's whole
 * buffer for gather/scatter, a rank's whole send buffer for alltoall, the whole vector for the v-variants,
 * split unevenly exactly as collbench splits it: block j = floor(N(j+1)^2/p^2) - floor(N j^2/p^2)).
 * Timing as OSU by default: warm-up, then per iteration a barrier and the timed call; the max over ranks of
 * the average over iterations, min and max over single calls. With OMPI_BENCH_ITERS=N, timing as collbench:
 * N back-to-back calls in 20 batches, avg = the slowest rank's total / N, min and max over the batch means
 * (so "best batch" means the same on both sides; back-to-back calls include the ranks' skew, as in a loop
 * of collectives in an application).
 * Usage: mpirun -np 2 ompi_bench allreduce 8 67108864
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int has(const char *const *names, const char *c) {
    for (; *names; names++) if (strcmp(*names, c) == 0) return 1;
    return 0;
}

/* collbench's uneven split of n elements into p blocks (VectorLayouts.split) */
static void split(long n, int p, int *c) {
    for (int j = 0; j < p; j++) {
        long hi = (long) ((double) n * (j + 1) * (j + 1) / ((double) p * p));
        long lo = (long) ((double) n * j * j / ((double) p * p));
        if (n < (1L << 40)) { hi = n * (long) (j + 1) * (j + 1) / ((long) p * p); lo = n * (long) j * j / ((long) p * p); }
        c[j] = (int) (hi - lo);
    }
}

static void packed(const int *c, int p, int *d) {
    d[0] = 0;
    for (int j = 1; j < p; j++) d[j] = d[j - 1] + c[j - 1];
}

#define BATCHES 20   /* as collbench (CollectiveBenchmark.BATCHES) */

static long iterations_for(long bytes) {
    long it = 200000000L / (bytes + 4096);
    return it < 20 ? 20 : it > 10000 ? 10000 : it;
}

/* One call of collective coll on the buffers (the dispatch both timing modes share). */
static void call(const char *coll, int barrier, int r, double *send, double *recv, long n, long block,
                 int *cnt, int *dsp, int *sc, int *sd, int *rc, int *rd) {
    if (strcmp(coll, "allreduce") == 0) MPI_Allreduce(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce-scatter") == 0) MPI_Reduce_scatter_block(send, recv, (int) block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce") == 0) MPI_Reduce(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "bcast") == 0) MPI_Bcast(r == 0 ? send : recv, (int) n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgather") == 0) MPI_Allgather(send, (int) block, MPI_DOUBLE, recv, (int) block, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (strcmp(coll, "gather") == 0) MPI_Gather(send, (int) block, MPI_DOUBLE, recv, (int) block, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatter") == 0) MPI_Scatter(send, (int) block, MPI_DOUBLE, recv, (int) block, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "gatherv") == 0) MPI_Gatherv(send, cnt[r], MPI_DOUBLE, recv, cnt, dsp, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "scatterv") == 0) MPI_Scatterv(send, cnt, dsp, MPI_DOUBLE, recv, cnt[r], MPI_DOUBLE, 0, MPI_COMM_WORLD);
    else if (strcmp(coll, "allgatherv") == 0) MPI_Allgatherv(send, cnt[r], MPI_DOUBLE, recv, cnt, dsp, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (strcmp(coll, "reduce-scatter-v") == 0) MPI_Reduce_scatter(send, recv, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoall") == 0) MPI_Alltoall(send, (int) block, MPI_DOUBLE, recv, (int) block, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (strcmp(coll, "alltoallv") == 0) MPI_Alltoallv(send, sc, sd, MPI_DOUBLE, recv, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    else if (strcmp(coll, "scan") == 0) MPI_Scan(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (strcmp(coll, "exscan") == 0) MPI_Exscan(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (barrier) MPI_Barrier(MPI_COMM_WORLD);
    else { if (r == 0) fprintf(stderr, "ompi_bench: unknown collective '%s'\n", coll); MPI_Abort(MPI_COMM_WORLD, 2); }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const char *coll = argc > 1 ? argv[1] : "allreduce";
    long minb = argc > 2 ? atol(argv[2]) : 8, maxb = argc > 3 ? atol(argv[3]) : 64L << 20;
    int barrier = strcmp(coll, "barrier") == 0;
    /* OMPI_BENCH_ITERS=N: time as collbench does (N back-to-back calls in BATCHES batches) instead of OSU's way */
    const char *env = getenv("OMPI_BENCH_ITERS");
    long batched = env ? atol(env) : 0;
    if (batched > 0 && batched < BATCHES) batched = BATCHES;
    if (barrier) minb = maxb = 0;
    size_t cap = (size_t) (maxb > 8 ? maxb : 8);
    double *send = aligned_alloc(4096, cap), *recv = aligned_alloc(4096, cap);
    memset(send, 0, cap); memset(recv, 0, cap);
    for (size_t i = 0; i < cap / 8; i++) send[i] = r + 1e-3 * (double) (i % 1000);
    static const char *const blocked[] = {"reduce-scatter", "allgather", "gather", "scatter", "alltoall", 0};
    static const char *const partial[] = {"reduce-scatter", "allgather", "gather", "scatter", "alltoall", "gatherv", "scatterv",
                                         "allgatherv", "reduce-scatter-v", "alltoall", "alltoallv", 0};
    static const char *const reducing[] = {"allreduce", "reduce-scatter", "reduce", "reduce-scatter-v", "scan", "exscan", 0};
    int *cnt = malloc(sizeof(int) * p), *dsp = malloc(sizeof(int) * p), *one = malloc(sizeof(int) * p);
    int *sc = malloc(sizeof(int) * p), *sd = malloc(sizeof(int) * p), *rc = malloc(sizeof(int) * p), *rd = malloc(sizeof(int) * p);
    if (r == 0) printf("collective,algorithm,threads,bytes,count,dtype,op,iterations,avg_us,min_us,max_us,algbw_GBps,busbw_GBps,valid\n");
    for (long size = minb; ; size = size ? size * 2 : 8) {
        long b = size, n = b / 8, block = n / p, iters = iterations_for(b), warm = iters / 10 + 5;
        /* reduce-scatter and allgather move whole blocks: bytes per rank rounded down to p blocks (as collbench) */
        if (has(blocked, coll)) {
            if (block == 0) { if (size >= maxb) break; continue; }
            n = block * p, b = n * 8;
        }
        split(n, p, cnt);
        packed(cnt, p, dsp);
        for (int j = 0; j < p; j++) {
            one[j] = (int) block;
            sc[j] = cnt[(j + r) % p];
            rc[j] = cnt[(r + j) % p];
        }
        packed(sc, p, sd);
        packed(rc, p, rd);
        double gavg, gmin, gmax;
        if (batched > 0) {
            /* collbench's timing: back-to-back calls in BATCHES batches, each rank reading the clock per batch;
               avg = the slowest rank's total / iterations, min and max over the batches' slowest-rank means */
            iters = batched / BATCHES * BATCHES;
            long per = iters / BATCHES;
            double mine[BATCHES], slowest[BATCHES];
            for (long i = 0; i < warm; i++) call(coll, barrier, r, send, recv, n, block, cnt, dsp, sc, sd, rc, rd);
            MPI_Barrier(MPI_COMM_WORLD);
            double start = MPI_Wtime(), t = start;
            for (int k = 0; k < BATCHES; k++) {
                for (long i = 0; i < per; i++) call(coll, barrier, r, send, recv, n, block, cnt, dsp, sc, sd, rc, rd);
                double now = MPI_Wtime();
                mine[k] = (now - t) / per;
                t = now;
            }
            double avg = (t - start) / iters;
            MPI_Reduce(&avg, &gavg, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(mine, slowest, BATCHES, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            gmin = 1e30; gmax = 0;
            for (int k = 0; k < BATCHES; k++) { if (slowest[k] < gmin) gmin = slowest[k]; if (slowest[k] > gmax) gmax = slowest[k]; }
        } else {
            double tmin = 1e30, tmax = 0, total = 0;
            for (long i = -warm; i < iters; i++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                call(coll, barrier, r, send, recv, n, block, cnt, dsp, sc, sd, rc, rd);
                double t = MPI_Wtime() - t0;
                if (i >= 0) { total += t; if (t < tmin) tmin = t; if (t > tmax) tmax = t; }
            }
            double avg = total / iters;
            MPI_Reduce(&avg, &gavg, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&tmin, &gmin, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&tmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        }
        if (r == 0) {
            double alg = gavg > 0 && b > 0 ? b / gavg / 1e9 : 0;
            double f = strcmp(coll, "allreduce") == 0 ? 2.0 * (p - 1) / p
                     : has(partial, coll) ? (double) (p - 1) / p : 1.0;
            printf("%s,openmpi,%d,%ld,%ld,%s,%s,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,-\n", coll, p, b, barrier ? 0 : n,
                   barrier ? "-" : "f64", has(reducing, coll) ? "sum" : "-",
                   iters, gavg * 1e6, gmin * 1e6, gmax * 1e6, alg, alg * f);
            fflush(stdout);
        }
        if (size >= maxb) break;
    }
    free(send); free(recv); free(cnt); free(dsp); free(one); free(sc); free(sd); free(rc); free(rd);
    MPI_Finalize();
    return 0;
}
