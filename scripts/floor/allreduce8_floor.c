/*
 * The floor of a loop of 8-byte allreduces (or barriers) between two cores, written the cheapest way C allows: each
 * thread owns one 128-byte-aligned line holding (call number, value by the call's parity); a call stores its value
 * and then its number there (a release store), spins with acquire loads on the peer's line until the peer's number for this call shows,
 * then adds the peer's value. Both threads write at the same time, so a call costs one hand-over of a line in each
 * direction in parallel: one one-way cache-line latency, half of line_pingpong.c's round trip, and nothing else (no
 * matching, no dispatch, no check words). A barrier is the same with no value. No library, MPI's included, can do an
 * allreduce at p = 2 in less than this on the same two cores: every rank has to see a line the other wrote after
 * the call began.
 *
 * Build: gcc -O2 -pthread scripts/floor/allreduce8_floor.c -o /tmp/allreduce8_floor
 * Run:   /tmp/allreduce8_floor [allreduce|barrier] [calls per batch] [cpuA cpuB]   (default allreduce, 1 000 000, 0 1)
 * Prints the time per call (µs) of 20 batches: best, median and mean, and checks every sum.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct line {
    _Alignas(128) _Atomic long seq;   /* the call this line's value belongs to; written last (release) */
    _Atomic double value[2];          /* by the call's parity, in the same line as seq: one hand-over carries both */
};

static struct line lines[2];
static long calls;
static int with_value = 1;
static int cpus[2] = {0, 1};
static double times[20];
static long wrong;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        perror("pthread_setaffinity_np");
        exit(1);
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *rank(void *arg) {
    int me = (int) (long) arg, peer = 1 - me;
    pin(cpus[me]);
    long n = 0;
    for (int b = -1; b < 20; b++) {                    /* batch -1 warms up */
        double t0 = now();
        for (long k = 0; k < calls; k++) {
            ++n;
            double mine = (double) (n + me);
            if (with_value) {
                atomic_store_explicit(&lines[me].value[n & 1], mine, memory_order_relaxed);
            }
            /* pairs with the peer's acquire load of seq below: the value is visible once the number is */
            atomic_store_explicit(&lines[me].seq, n, memory_order_release);
            /* pairs with the peer's release store of its seq: its value of call n is visible after this load. The
               peer writes that slot again at call n + 2, which it starts only after seeing this rank's seq n + 1,
               stored after this rank read the value: two slots by parity are enough */
            while (atomic_load_explicit(&lines[peer].seq, memory_order_acquire) < n) {
            }
            if (with_value) {
                double theirs = atomic_load_explicit(&lines[peer].value[n & 1], memory_order_relaxed);
                if (mine + theirs != (double) (2 * n + 1)) {
                    wrong++;
                }
            }
        }
        if (b >= 0 && me == 0) {
            times[b] = (now() - t0) / calls * 1e6;
        }
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        with_value = strcmp(argv[1], "barrier") != 0;
    }
    calls = argc > 2 ? atol(argv[2]) : 1000000;
    if (argc > 4) {
        cpus[0] = atoi(argv[3]);
        cpus[1] = atoi(argv[4]);
    }
    pthread_t t;
    pthread_create(&t, NULL, rank, (void *) 1L);
    rank((void *) 0L);
    pthread_join(t, NULL);
    double mean = 0;
    for (int b = 0; b < 20; b++) {
        mean += times[b] / 20;
    }
    qsort(times, 20, sizeof times[0], cmp);
    printf("%s floor cpu %d, %d: per call best %.3f us, median %.3f us, mean %.3f us (%ld per batch, %ld wrong)\n",
           with_value ? "8-byte allreduce" : "barrier", cpus[0], cpus[1], times[0], (times[9] + times[10]) / 2, mean,
           calls, wrong);
    return wrong != 0;
}
