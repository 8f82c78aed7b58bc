/*
 * reduce.c — native reduction kernels. coll4j_reduce_many_nt is on the collectives' hot path: the
 * streaming fold (io.coll4j.bindings.copy.StreamingFold) that direct reduce-scatter and reduce and push
 * allreduce use when their result does not stay in cache. coll4j_reduce and coll4j_reduce_many_sum_f64
 * are the C comparison point for the Vector API kernels in the JMH suites (NativeReduce); no collective
 * calls those two.
 *
 *   int  coll4j_reduce(int dtype, int op, void *dst, const void *a, const void *b, size_t n)
 *        dst[i] = a[i] op b[i]; dtype F32=0 F64=1 I32=2 I64=3, op SUM=0 PROD=1 MIN=2 MAX=3
 *        BAND=4 BOR=5 BXOR=6 (the ordinals of io.coll4j.reductions.DType and Op); returns 0, or
 *        -1 (nothing written) for an unknown code or a bitwise op on a float type.
 *   void coll4j_reduce_many_sum_f64(double *dst, const double *const *srcs, int k, size_t n)
 *        dst[i] = s0[i] + s1[i] + ... + s(k-1)[i], left to right, in ONE pass over memory.
 *   int  coll4j_reduce_many_nt(int dtype, int op, void *const *dsts, int nd,
 *                              const void *const *srcs, int k, size_t n)
 *        every dsts[j][i] = s0[i] op s1[i] op ... op s(k-1)[i], left to right, written with
 *        non-temporal stores: the streaming fold of the bandwidth collectives (below). Returns 0,
 *        or -1 (nothing written) for an unknown code, a bitwise op on a float type, k < 1 or nd < 1.
 *   int  coll4j_reduce_isa(void)   2 = AVX-512 kernels, 1 = AVX2, 0 = baseline x86-64 (SSE2).
 *
 * Why the streaming fold is native: Java cannot issue a non-temporal store, and when a reduction's
 * output exceeds the cache, a temporal store reads every destination line for ownership first — a
 * third more DRAM traffic for a two-input fold [YHCCL §4.1, Table 4]. Folding into a Java stage and
 * NT-copying it out in a second downcall was measured no faster: with a stage large enough to
 * amortise the downcall (64 KiB) the loads of the next stage stall while the stage streams out. Here
 * the stage is NT_CHUNK bytes (L1), so the hardware prefetchers keep the sources streaming across the
 * alternation of fold and stream; 1 KiB was the fastest of 0.5/1/2/4/64 KiB on a 2-core Zen 4 guest
 * (f64 sum of two 32 MiB inputs per core, two cores: temporal 5.07 ms, fused 4.44 ms, 1 KiB stage
 * 3.97 ms, 64 KiB stage 5.17 ms, best of 12).
 *
 * Every loop is plain C that gcc -O3 auto-vectorises; the file is compiled once per ISA through
 * target attributes (reduce_kernels.h is included three times) and the widest path the CPU has is
 * chosen once at load by __builtin_cpu_supports. No -ffast-math: every float operation is the IEEE
 * one Java performs, so results are bitwise equal to Java's.
 *
 * MIN and MAX on floats match java.lang.Math.min/max exactly, including which operand is returned,
 * which x86 minps/maxps and C's fmin/fmax do not (fmin returns the non-NaN operand; minps returns
 * the second operand when either is NaN or both are zero). The rule, branch-free so it vectorises
 * as compares and blends on the bit patterns:
 *   max(x, y): r = x > y ? x : y         ordered compare: y when x <= y or either is NaN
 *              r = x == y ? bits(x) & bits(y) : r     equal values differ only for {+0.0, -0.0};
 *                                                     AND of the bits is +0.0 unless both are -0.0
 *              r = x != x ? x : r        x NaN -> x (Math.max returns a NaN first operand);
 *                                        y NaN (x not) -> y already, from the first line
 *   min(x, y): the same with x < y and OR of the bits (-0.0 unless both are +0.0).
 * Math.max(a, b) is `a != a ? a : (a == 0 && b == 0 && a is -0.0) ? b : (a >= b ? a : b)`: the two
 * agree on every input pair, and both return the first NaN operand. (Java does not pin down NaN
 * payloads — the JIT may reorder commutative operands — so the tests compare NaNs as NaNs.)
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <immintrin.h>

#pragma GCC optimize("tree-vectorize")

#define COLL4J_EXPORT __attribute__((visibility("default")))

typedef void (*reduce_fn)(void *dst, const void *a, const void *b, size_t n);

/* Doubles per block of the k-ary sum: 4 KiB of partial sums, well inside L1 beside the sources. */
#define MANY_BLOCK 512

/*
 * java_maxf/java_minf/java_max/java_min, generated from one body (see the table above): `cmp` picks
 * the larger or smaller, `join` combines the bits of equal values so the signed zeros come out as
 * Math.max/Math.min return them.
 */
#define JAVA_MINMAX(name, T, U, cmp, join)                                             \
    static inline __attribute__((always_inline)) T name(T x, T y) {                    \
        U xb, yb, rb;                                                                  \
        T r = x cmp y ? x : y;                                                         \
        memcpy(&xb, &x, sizeof(T));                                                    \
        memcpy(&yb, &y, sizeof(T));                                                    \
        memcpy(&rb, &r, sizeof(T));                                                    \
        rb = x == y ? (xb join yb) : rb;                                               \
        rb = x != x ? xb : rb;                                                         \
        memcpy(&r, &rb, sizeof(T));                                                    \
        return r;                                                                      \
    }

JAVA_MINMAX(java_maxf, float, uint32_t, >, &)
JAVA_MINMAX(java_minf, float, uint32_t, <, |)
JAVA_MINMAX(java_max, double, uint64_t, >, &)
JAVA_MINMAX(java_min, double, uint64_t, <, |)

/* AVX-512: F for the 512-bit float/int ops, DQ for 64-bit multiplies (vpmullq), BW for the
   blends on 32-bit lanes; 512-bit vectors preferred (gcc's tuning otherwise may stay at 256). */
#define KSUFFIX avx512
#define KATTR __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512")))
#include "reduce_kernels.h"
#undef KATTR
#undef KSUFFIX

#define KSUFFIX avx2
#define KATTR __attribute__((target("avx2")))
#include "reduce_kernels.h"
#undef KATTR
#undef KSUFFIX

#define KSUFFIX base
#define KATTR
#include "reduce_kernels.h"
#undef KATTR
#undef KSUFFIX

/* Bytes of the L1 stage of coll4j_reduce_many_nt (see the top). */
#define NT_CHUNK 1024

/* copy.c: the NT copy without its closing sfence (memcpy when the CPU has no NT path). */
void coll4j_nt_stream(void *dst, const void *src, size_t n);

typedef void (*many_fn)(double *dst, const double *const *srcs, int k, size_t n);

static int reduce_isa = 0;
static const reduce_fn (*table)[7] = table_base;
static many_fn many_sum_f64 = many_sum_f64_base;

__attribute__((constructor))
static void coll4j_reduce_init(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
            && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
        reduce_isa = 2;
        table = table_avx512;
        many_sum_f64 = many_sum_f64_avx512;
    } else if (__builtin_cpu_supports("avx2")) {
        reduce_isa = 1;
        table = table_avx2;
        many_sum_f64 = many_sum_f64_avx2;
    }
}

COLL4J_EXPORT int coll4j_reduce_isa(void) {
    return reduce_isa;
}

COLL4J_EXPORT int coll4j_reduce(int dtype, int op, void *dst, const void *a, const void *b, size_t n) {
    if (dtype < 0 || dtype > 3 || op < 0 || op > 6 || table[dtype][op] == NULL) {
        return -1;
    }
    table[dtype][op](dst, a, b, n);
    return 0;
}

COLL4J_EXPORT void coll4j_reduce_many_sum_f64(double *dst, const double *const *srcs, int k, size_t n) {
    if (k <= 0) {
        return;
    }
    many_sum_f64(dst, srcs, k, n);
}

/*
 * The streaming fold. Chunks are aligned to 64 bytes of dsts[0] (after a first, shorter chunk), so
 * every chunk's stores to dsts[0] are whole-line NT bursts; other destinations with another
 * alignment get a temporal partial line at each chunk edge. A chunk is read from every source before
 * it is written anywhere, so a destination may be exactly a source (in-place collectives). One sfence
 * at the end orders every streamed byte before the caller's later stores (its release flags).
 */
COLL4J_EXPORT int coll4j_reduce_many_nt(int dtype, int op, void *const *dsts, int nd,
                                        const void *const *srcs, int k, size_t n) {
    if (dtype < 0 || dtype > 3 || op < 0 || op > 6 || table[dtype][op] == NULL || k < 1 || nd < 1) {
        return -1;
    }
    static const size_t element_size[4] = {4, 8, 4, 8};
    const size_t es = element_size[dtype];
    const reduce_fn fold = table[dtype][op];
    _Alignas(64) unsigned char stage[NT_CHUNK];
    size_t first = (size_t)(-(uintptr_t)dsts[0]) & 63;
    if (first % es != 0) {
        first = 0;                              /* dst not element-aligned: plain chunks */
    }
    size_t total = n * es;
    for (size_t at = 0; at < total;) {
        size_t bytes = at == 0 && first != 0 ? first : NT_CHUNK;
        if (bytes > total - at) {
            bytes = total - at;
        }
        size_t m = bytes / es;
        const void *out;
        if (k == 1) {
            out = (const char *)srcs[0] + at;
        } else {
            fold(stage, (const char *)srcs[0] + at, (const char *)srcs[1] + at, m);
            for (int i = 2; i < k; i++) {
                fold(stage, stage, (const char *)srcs[i] + at, m);
            }
            out = stage;
        }
        for (int j = 0; j < nd; j++) {
            if ((const void *)((char *)dsts[j] + at) != out) {
                coll4j_nt_stream((char *)dsts[j] + at, out, bytes);
            }
        }
        at += bytes;
    }
    _mm_sfence();
    return 0;
}

/*
 * coll4j_reduce_many_nt with eight more pointer arguments the function does not read. The pointer
 * tables are plain native memory, so the FFM linker cannot see what they point into; the Java side
 * (StreamingFold) passes one segment of every memory session the tables point into as h0..h7, and the
 * linker keeps the session of every segment argument alive for the whole downcall. So no arena can be
 * closed (and its memory freed) while the fold streams through it: Arena.close fails instead.
 */
COLL4J_EXPORT int coll4j_reduce_many_nt_held(int dtype, int op, void *const *dsts, int nd,
                                             const void *const *srcs, int k, size_t n,
                                             const void *h0, const void *h1, const void *h2, const void *h3,
                                             const void *h4, const void *h5, const void *h6, const void *h7) {
    (void)h0; (void)h1; (void)h2; (void)h3; (void)h4; (void)h5; (void)h6; (void)h7;
    return coll4j_reduce_many_nt(dtype, op, dsts, nd, srcs, k, n);
}
