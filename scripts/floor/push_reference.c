/*
 * The floor of a 2-rank push allreduce (f64 sum) on a large vector, as two processes on a shared mapping and as two
 * threads of one process, doing the same work: each rank folds its half of both send buffers and writes it, with
 * non-temporal stores, into both receive buffers (what coll4j's push does among threads and, since the streaming
 * process push, among processes); a release/acquire flag hand-over before and after. "proc": fork on a MAP_SHARED
 * mapping of a /dev/shm file (4 KiB shmem pages; this kernel's shmem_enabled is never); "thread": private anonymous
 * memory (4 KiB pages too: THP is madvise and nothing madvises). If the two read the same, nothing in the kernel's
 * memory or the second process makes the process push slower: the rest is the Java side's.
 *
 * Build: gcc -O2 -mavx512f -pthread scripts/floor/push_reference.c -o /tmp/push_reference
 * Run:   /tmp/push_reference proc|thread [bytes] [iterations] [nt]   (default 64 MiB, 100, 1; nt 0: ordinary stores)
 * Prints the best and mean µs per call over the timed iterations (after 20 untimed), and one result element.
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static size_t N;            // doubles per vector
static int ITERS;
static int USE_NT = 1;
typedef struct { _Atomic long arrive[2][16]; } ctl_t;
static ctl_t *ctl;
static double *buf[4];      // send0 send1 recv0 recv1

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
static void bind(int cpu) { cpu_set_t s; CPU_ZERO(&s); CPU_SET(cpu, &s); sched_setaffinity(0, sizeof s, &s); }
static void barrier(int me, long round) {
    atomic_store_explicit(&ctl->arrive[me][0], round, memory_order_release);
    while (atomic_load_explicit(&ctl->arrive[1 - me][0], memory_order_acquire) < round) _mm_pause();
}
static void fold(int me) {
    size_t lo = N / 2 * me, hi = me ? N : N / 2;
    double *a = buf[0], *b = buf[1], *d0 = buf[2], *d1 = buf[3];
    for (size_t i = lo; i < hi; i += 8) {
        __m512d v = _mm512_add_pd(_mm512_load_pd(a + i), _mm512_load_pd(b + i));
        if (USE_NT) { _mm512_stream_pd(d0 + i, v); _mm512_stream_pd(d1 + i, v); }
        else { _mm512_store_pd(d0 + i, v); _mm512_store_pd(d1 + i, v); }
    }
    _mm_sfence();
}
static void *rank(void *arg) {
    int me = (int)(long)arg;
    bind(me);
    size_t lo = N / 2 * me, hi = me ? N : N / 2;
    for (size_t i = lo; i < hi; i++) { buf[0][i] = i; buf[1][i] = 2.0 * i; buf[2][i] = 0; buf[3][i] = 0; }  // first touch by the owner
    long round = 0;
    double best = 1e30, sum = 0;
    barrier(me, ++round);
    for (int it = 0; it < ITERS + 20; it++) {
        barrier(me, ++round);
        double t0 = now();
        fold(me);
        barrier(me, ++round);
        double t = now() - t0;
        if (it >= 20) { sum += t; if (t < best) best = t; }
    }
    if (me == 0) printf("min %.1f mean %.1f us  check %g\n", best, sum / ITERS, buf[3][N - 1]);
    return NULL;
}
int main(int argc, char **argv) {
    const char *mode = argv[1];
    N = (argc > 2 ? atol(argv[2]) : 64L << 20) / 8;
    ITERS = argc > 3 ? atoi(argv[3]) : 100;
    USE_NT = argc > 4 ? atoi(argv[4]) : 1;
    size_t bytes = N * 8, total = 4 * bytes + 4096;
    char *base;
    if (strcmp(mode, "proc") == 0) {
        char name[64]; snprintf(name, sizeof name, "/dev/shm/pushref-%d", getpid());
        int fd = open(name, O_RDWR | O_CREAT | O_EXCL, 0600); ftruncate(fd, total);
        base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); close(fd); unlink(name);
    } else {
        base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    }
    ctl = (ctl_t *)base;
    memset(ctl, 0, sizeof *ctl);
    for (int i = 0; i < 4; i++) buf[i] = (double *)(base + 4096 + i * bytes);
    if (strcmp(mode, "proc") == 0) {
        pid_t c = fork();
        if (c == 0) { rank((void *)1L); _exit(0); }
        rank((void *)0L);
        waitpid(c, NULL, 0);
    } else {
        pthread_t t; pthread_create(&t, NULL, rank, (void *)1L);
        rank((void *)0L);
        pthread_join(t, NULL);
    }
    return 0;
}
