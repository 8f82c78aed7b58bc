/*
 * The physical floor of a small collective between two cores: one cache line handed from core A to core B
 * and back, each side spinning on the line until the other's write arrives (C11 release stores and
 * acquire loads, nothing else). One round trip is two hand-overs; an 8-byte allreduce at p = 2 needs at
 * least one hand-over each way (every rank must see the other's value), and a barrier likewise. In a loop of
 * calls the two directions overlap (both ranks write at once), so a call costs at least one one-way hand-over,
 * half this round trip: allreduce8_floor.c measures that loop itself.
 *
 * Build: gcc -O2 -pthread scripts/floor/line_pingpong.c -o /tmp/line_pingpong
 * Run:   /tmp/line_pingpong [cpuA cpuB] [round trips per batch]   (default cpus 0 1, 1 000 000)
 * Prints the round trip (µs) of 20 batches: best, median and mean.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(128) _Atomic long ping;   /* written by A, read by B */
static _Alignas(128) _Atomic long pong;   /* written by B, read by A: its own line, so the two never share one */
static long rounds;
static int cpu_b;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        perror("pthread_setaffinity_np");
        exit(1);
    }
}

static void *responder(void *arg) {
    (void) arg;
    pin(cpu_b);
    for (long i = 1; i <= rounds * 21; i++) {
        while (atomic_load_explicit(&ping, memory_order_acquire) != i) {
        }
        atomic_store_explicit(&pong, i, memory_order_release);
    }
    return NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int cpu_a = argc > 2 ? atoi(argv[1]) : 0;
    cpu_b = argc > 2 ? atoi(argv[2]) : 1;
    rounds = argc > 3 ? atol(argv[3]) : argc == 2 ? atol(argv[1]) : 1000000;
    pthread_t t;
    pthread_create(&t, NULL, responder, NULL);
    pin(cpu_a);
    double rt[20];
    long i = 0;
    for (int b = -1; b < 20; b++) {              /* batch -1 warms up */
        double t0 = now();
        for (long k = 0; k < rounds; k++) {
            ++i;
            atomic_store_explicit(&ping, i, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) != i) {
            }
        }
        if (b >= 0) rt[b] = (now() - t0) / rounds * 1e6;
    }
    pthread_join(t, NULL);
    double mean = 0;
    for (int b = 0; b < 20; b++) mean += rt[b] / 20;
    qsort(rt, 20, sizeof rt[0], cmp);
    printf("line ping-pong cpu %d <-> cpu %d: round trip best %.3f us, median %.3f us, mean %.3f us (%ld per batch)\n",
           cpu_a, cpu_b, rt[0], (rt[9] + rt[10]) / 2, mean, rounds);
    return 0;
}
