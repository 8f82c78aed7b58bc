/*
 * Open MPI reference point for collbench's point-to-point commands: latency, bw, bibw and multi-lat timed as
 * collbench times them (cli/.../P2pBenchmark.java), which is the OSU micro-benchmarks' way (osu_latency, osu_bw,
 * osu_bibw, osu_multi_lat): warm-up, a barrier, rank 0's wall clock over the timed iterations.
 *   latency / multi-lat: ping-pong of MPI_Send/MPI_Recv, half the round trip (multi-lat: pairs 2k, 2k+1 at once,
 *                        the mean over the pairs)
 *   bw:   rank 0 MPI_Isend x window, rank 1 MPI_Irecv x window, MPI_Waitall, a 4-byte answer; bytes*window*iters/elapsed
 *   bibw: both ranks MPI_Irecv x window then MPI_Isend x window, MPI_Waitall; both directions count
 * The same default iterations and warm-ups as collbench (latency 10000/1000 iterations, 100000/100 warm-up above 8K;
 * bandwidth 100/20 iterations, 1000/4 warm-up windows, window 64). Rows in collbench's point-to-point CSV.
 * Usage: mpirun -np 2 ompi_p2p latency 0 4194304 [rounds]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LARGE 8192
#define WINDOW 64

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    const char *test = argc > 1 ? argv[1] : "latency";
    long minb = argc > 2 ? atol(argv[2]) : 0, maxb = argc > 3 ? atol(argv[3]) : 4L << 20;
    int rounds = argc > 4 ? atoi(argv[4]) : 1;
    int lat = strcmp(test, "latency") == 0, multi = strcmp(test, "multi-lat") == 0;
    int bw = strcmp(test, "bw") == 0, bibw = strcmp(test, "bibw") == 0;
    if (!lat && !multi && !bw && !bibw) {
        if (r == 0) fprintf(stderr, "ompi_p2p: unknown test '%s' (latency, bw, bibw, multi-lat)\n", test);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t cap = (size_t) (maxb > 8 ? maxb : 8);
    char *sbuf = aligned_alloc(4096, (cap + 4095) / 4096 * 4096), *rbuf = aligned_alloc(4096, (cap + 4095) / 4096 * 4096);
    memset(sbuf, 1, cap);
    memset(rbuf, 0, cap);
    MPI_Request req[2 * WINDOW];
    int peer = r ^ 1, active = peer < p && (multi || r < 2);
    if (r == 0) printf("test,ranks,bytes,iterations,window,round,latency_us,bandwidth_MBps,valid,eager_limit\n");
    for (int round = 1; round <= rounds; round++) {
        for (long size = minb; ; size = size ? size * 2 : 1) {
            int band = bw || bibw;
            long iters = band ? (size > LARGE ? 20 : 100) : (size > LARGE ? 1000 : 10000);
            long skip = band ? (size > LARGE ? 4 : 1000) : (size > LARGE ? 100 : 100000);
            double start = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            for (long i = 0; i < skip + iters; i++) {
                if (i == skip) { MPI_Barrier(MPI_COMM_WORLD); start = MPI_Wtime(); }
                if (!active) continue;
                if (lat || multi) {
                    if ((r & 1) == 0) {
                        MPI_Send(sbuf, (int) size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                        MPI_Recv(rbuf, (int) size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Recv(rbuf, (int) size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        MPI_Send(sbuf, (int) size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    }
                } else if (bw) {
                    for (int w = 0; w < WINDOW; w++) {
                        if (r == 0) MPI_Isend(sbuf, (int) size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[w]);
                        else MPI_Irecv(rbuf, (int) size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[w]);
                    }
                    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                    if (r == 0) MPI_Recv(rbuf, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    else MPI_Send(sbuf, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
                } else {
                    for (int w = 0; w < WINDOW; w++) MPI_Irecv(rbuf, (int) size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[w]);
                    for (int w = 0; w < WINDOW; w++) MPI_Isend(sbuf, (int) size, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &req[WINDOW + w]);
                    MPI_Waitall(2 * WINDOW, req, MPI_STATUSES_IGNORE);
                }
            }
            double elapsed = MPI_Wtime() - start;
            double l = elapsed * 1e6 / (2.0 * iters), sum = 0;
            if (multi) {
                double mine = active && (r & 1) == 0 ? l : 0;
                MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                l = sum / (p / 2);
            }
            if (r == 0) {
                double mb = bibw ? 2.0 * size * WINDOW * iters / 1e6 : (double) size * WINDOW * iters / 1e6;
                if (band) printf("%s,%d,%ld,%ld,%d,%d,%.3f,%.2f,-,-\n", test, p, size, iters, WINDOW, round,
                                 elapsed * 1e6 / iters / WINDOW, mb / elapsed);
                else printf("%s,%d,%ld,%ld,1,%d,%.3f,%.2f,-,-\n", test, p, size, iters, round, l, l > 0 ? size / l : 0);
                fflush(stdout);
            }
            if (size >= maxb) break;
        }
    }
    free(sbuf); free(rbuf);
    MPI_Finalize();
    return 0;
}
