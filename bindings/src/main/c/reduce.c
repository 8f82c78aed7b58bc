/*
 * reduce.c — native reduction kernels: the C comparison point for coll4j's Vector API kernels in
 * the JMH suites (io.coll4j.bindings.copy.NativeReduce). Not used by any collective.
 *
 *   int  coll4j_reduce(int dtype, int op, void *dst, const void *a, const void *b, size_t n)
 *        dst[i] = a[i] op b[i]; dtype F32=0 F64=1 I32=2 I64=3, op SUM=0 PROD=1 MIN=2 MAX=3
 *        BAND=4 BOR=5 BXOR=6 (the ordinals of io.coll4j.reductions.DType and Op); returns 0, or
 *        -1 (nothing written) for an unknown code or a bitwise op on a float type.
 *   void coll4j_reduce_many_sum_f64(double *dst, const double *const *srcs, int k, size_t n)
 *        dst[i] = s0[i] + s1[i] + ... + s(k-1)[i], left to right, in ONE pass over memory.
 *   int  coll4j_reduce_isa(void)   2 = AVX-512 kernels, 1 = AVX2, 0 = baseline x86-64 (SSE2).
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

#pragma GCC optimize("tree-vectorize")

#define COLL4J_EXPORT __attribute__((visibility("default")))

typedef void (*reduce_fn)(void *dst, const void *a, const void *b, size_t n);

/* Doubles per block of the k-ary sum: 4 KiB of partial sums, well inside L1 beside the sources. */
#define MANY_BLOCK 512

static inline __attribute__((always_inline)) float java_maxf(float x, float y) {
    uint32_t xb, yb, rb;
    float r = x > y ? x : y;
    memcpy(&xb, &x, 4);
    memcpy(&yb, &y, 4);
    memcpy(&rb, &r, 4);
    rb = x == y ? (xb & yb) : rb;
    rb = x != x ? xb : rb;
    memcpy(&r, &rb, 4);
    return r;
}

static inline __attribute__((always_inline)) float java_minf(float x, float y) {
    uint32_t xb, yb, rb;
    float r = x < y ? x : y;
    memcpy(&xb, &x, 4);
    memcpy(&yb, &y, 4);
    memcpy(&rb, &r, 4);
    rb = x == y ? (xb | yb) : rb;
    rb = x != x ? xb : rb;
    memcpy(&r, &rb, 4);
    return r;
}

static inline __attribute__((always_inline)) double java_max(double x, double y) {
    uint64_t xb, yb, rb;
    double r = x > y ? x : y;
    memcpy(&xb, &x, 8);
    memcpy(&yb, &y, 8);
    memcpy(&rb, &r, 8);
    rb = x == y ? (xb & yb) : rb;
    rb = x != x ? xb : rb;
    memcpy(&r, &rb, 8);
    return r;
}

static inline __attribute__((always_inline)) double java_min(double x, double y) {
    uint64_t xb, yb, rb;
    double r = x < y ? x : y;
    memcpy(&xb, &x, 8);
    memcpy(&yb, &y, 8);
    memcpy(&rb, &r, 8);
    rb = x == y ? (xb | yb) : rb;
    rb = x != x ? xb : rb;
    memcpy(&r, &rb, 8);
    return r;
}

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
