/*
 * Open MPI reference point for collbench: times MPI_Allreduce / MPI_Reduce_scatter_block / MPI_Reduce /
 * MPI_Bcast / MPI_Allgather / MPI_Barrier on MPI_DOUBLE + MPI_SUM over the same sizes and prints rows in
 * collbench's CSV header (docs/design.md, "CLI contract"), so the two tables can be compared line by line. Sizes are bytes per
 * rank with collbench's meaning (the input for reduce-scatter, the output for allgather).
 * Timing as OSU: warm-up, then the max over ranks of the average over iterations.
 * Usage: mpirun -np 2 ompi_bench allreduce 8 67108864
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long iterations_for(long bytes) {
    long it = 200000000L / (bytes + 4096);
    return it < 20 ? 20 : it > 10000 ? 10000 : it;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const char *coll = argc > 1 ? argv[1] : "allreduce";
    long minb = argc > 2 ? atol(argv[2]) : 8, maxb = argc > 3 ? atol(argv[3]) : 64L << 20;
    int barrier = strcmp(coll, "barrier") == 0;
    if (barrier) minb = maxb = 0;
    size_t cap = (size_t) (maxb > 8 ? maxb : 8);
    double *send = aligned_alloc(4096, cap), *recv = aligned_alloc(4096, cap);
    memset(send, 0, cap); memset(recv, 0, cap);
    for (size_t i = 0; i < cap / 8; i++) send[i] = r + 1e-3 * (double) (i % 1000);
    if (r == 0) printf("collective,algorithm,threads,bytes,count,dtype,op,iterations,avg_us,min_us,max_us,algbw_GBps,busbw_GBps,valid\n");
    for (long size = minb; ; size = size ? size * 2 : 8) {
        long b = size, n = b / 8, block = n / p, iters = iterations_for(b), warm = iters / 10 + 5;
        /* reduce-scatter and allgather move whole blocks: bytes per rank rounded down to p blocks (as collbench) */
        if (strcmp(coll, "reduce-scatter") == 0 || strcmp(coll, "allgather") == 0) {
            if (block == 0) { if (size >= maxb) break; continue; }
            n = block * p, b = n * 8;
        }
        double tmin = 1e30, tmax = 0, total = 0;
        for (long i = -warm; i < iters; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (strcmp(coll, "allreduce") == 0) MPI_Allreduce(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else if (strcmp(coll, "reduce-scatter") == 0) MPI_Reduce_scatter_block(send, recv, (int) block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            else if (strcmp(coll, "reduce") == 0) MPI_Reduce(send, recv, (int) n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            else if (strcmp(coll, "bcast") == 0) MPI_Bcast(r == 0 ? send : recv, (int) n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            else if (strcmp(coll, "allgather") == 0) MPI_Allgather(send, (int) block, MPI_DOUBLE, recv, (int) block, MPI_DOUBLE, MPI_COMM_WORLD);
            else if (barrier) MPI_Barrier(MPI_COMM_WORLD);
            else { if (r == 0) fprintf(stderr, "ompi_bench: unknown collective '%s'\n", coll); MPI_Abort(MPI_COMM_WORLD, 2); }
            double t = MPI_Wtime() - t0;
            if (i >= 0) { total += t; if (t < tmin) tmin = t; if (t > tmax) tmax = t; }
        }
        double avg = total / iters, gavg, gmin, gmax;
        MPI_Reduce(&avg, &gavg, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&tmin, &gmin, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&tmax, &gmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (r == 0) {
            double alg = gavg > 0 && b > 0 ? b / gavg / 1e9 : 0;
            double f = strcmp(coll, "allreduce") == 0 ? 2.0 * (p - 1) / p
                     : (strcmp(coll, "reduce-scatter") == 0 || strcmp(coll, "allgather") == 0) ? (double) (p - 1) / p : 1.0;
            printf("%s,openmpi,%d,%ld,%ld,%s,%s,%ld,%.3f,%.3f,%.3f,%.3f,%.3f,-\n", coll, p, b, barrier ? 0 : n,
                   barrier ? "-" : "f64", (barrier || !strcmp(coll, "bcast") || !strcmp(coll, "allgather")) ? "-" : "sum",
                   iters, gavg * 1e6, gmin * 1e6, gmax * 1e6, alg, alg * f);
            fflush(stdout);
        }
        if (size >= maxb) break;
    }
    free(send); free(recv);
    MPI_Finalize();
    return 0;
}
