/*
 * coll4j native reductions: C versions of the reduction kernels, used ONLY as the comparison point
 * for the Vector API kernels in the JMH suites (issue 5). dst = a op b for every dtype x op, and a
 * one-pass k-ary sum over f64. Each kernel is compiled twice, for AVX-512 and AVX2, by target
 * attribute; plain loops that gcc -O3 vectorises. Float MIN/MAX follow Java's Math.min/max: a NaN in
 * either operand gives NaN, and -0.0 < +0.0 — the comparisons below are written so gcc can still
 * vectorise them (compare + blend).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { F32 = 0, F64 = 1, I32 = 2, I64 = 3 };
enum { SUM = 0, PROD = 1, MIN = 2, MAX = 3, BAND = 4, BOR = 5, BXOR = 6 };

/*
 * Java Math.min/max in a form gcc vectorises (compare + blend + bitwise ops, no branches):
 *   m = x < y ? x : y          the ordinary case
 *   x == y: OR the bit patterns (min) / AND them (max) so min(-0.0, +0.0) = -0.0, max = +0.0
 *   unordered (a NaN): x + y, which is NaN
 */
#define JMINMAX_T(NAME, T, UT, LT, OPBITS)                                                            \
static inline T NAME(T x, T y) {                                                                    \
    UT ux, uy, um; T m;                                                                             \
    memcpy(&ux, &x, sizeof ux); memcpy(&uy, &y, sizeof uy);                                         \
    um = ux OPBITS uy;                                                                              \
    memcpy(&m, &um, sizeof m);                                                                      \
    T r = x LT y ? x : y;                                                                           \
    r = x == y ? m : r;                                                                             \
    return (x != x || y != y) ? x + y : r;                                                          \
}
JMINMAX_T(jmin_d, double, uint64_t, <, |)
JMINMAX_T(jmax_d, double, uint64_t, >, &)
JMINMAX_T(jmin_f, float, uint32_t, <, |)
JMINMAX_T(jmax_f, float, uint32_t, >, &)

#define KERNELS(SUFFIX, ATTR)                                                                       \
ATTR static void f64_##SUFFIX(int op, double *restrict d, const double *a, const double *b, size_t n) { \
    switch (op) {                                                                                   \
    case SUM:  for (size_t i = 0; i < n; i++) d[i] = a[i] + b[i]; break;                            \
    case PROD: for (size_t i = 0; i < n; i++) d[i] = a[i] * b[i]; break;                            \
    case MIN:  for (size_t i = 0; i < n; i++) d[i] = jmin_d(a[i], b[i]); break;                     \
    case MAX:  for (size_t i = 0; i < n; i++) d[i] = jmax_d(a[i], b[i]); break;                     \
    }                                                                                               \
}                                                                                                   \
ATTR static void f32_##SUFFIX(int op, float *restrict d, const float *a, const float *b, size_t n) {    \
    switch (op) {                                                                                   \
    case SUM:  for (size_t i = 0; i < n; i++) d[i] = a[i] + b[i]; break;                            \
    case PROD: for (size_t i = 0; i < n; i++) d[i] = a[i] * b[i]; break;                            \
    case MIN:  for (size_t i = 0; i < n; i++) d[i] = jmin_f(a[i], b[i]); break;                     \
    case MAX:  for (size_t i = 0; i < n; i++) d[i] = jmax_f(a[i], b[i]); break;                     \
    }                                                                                               \
}                                                                                                   \
ATTR static void i32_##SUFFIX(int op, int32_t *restrict d, const int32_t *a, const int32_t *b, size_t n) { \
    const uint32_t *ua = (const uint32_t *)a, *ub = (const uint32_t *)b; uint32_t *ud = (uint32_t *)d; \
    switch (op) {                                                                                   \
    case SUM:  for (size_t i = 0; i < n; i++) ud[i] = ua[i] + ub[i]; break;                         \
    case PROD: for (size_t i = 0; i < n; i++) ud[i] = ua[i] * ub[i]; break;                         \
    case MIN:  for (size_t i = 0; i < n; i++) d[i] = a[i] < b[i] ? a[i] : b[i]; break;              \
    case MAX:  for (size_t i = 0; i < n; i++) d[i] = a[i] > b[i] ? a[i] : b[i]; break;              \
    case BAND: for (size_t i = 0; i < n; i++) d[i] = a[i] & b[i]; break;                            \
    case BOR:  for (size_t i = 0; i < n; i++) d[i] = a[i] | b[i]; break;                            \
    case BXOR: for (size_t i = 0; i < n; i++) d[i] = a[i] ^ b[i]; break;                            \
    }                                                                                               \
}                                                                                                   \
ATTR static void i64_##SUFFIX(int op, int64_t *restrict d, const int64_t *a, const int64_t *b, size_t n) { \
    const uint64_t *ua = (const uint64_t *)a, *ub = (const uint64_t *)b; uint64_t *ud = (uint64_t *)d; \
    switch (op) {                                                                                   \
    case SUM:  for (size_t i = 0; i < n; i++) ud[i] = ua[i] + ub[i]; break;                         \
    case PROD: for (size_t i = 0; i < n; i++) ud[i] = ua[i] * ub[i]; break;                         \
    case MIN:  for (size_t i = 0; i < n; i++) d[i] = a[i] < b[i] ? a[i] : b[i]; break;              \
    case MAX:  for (size_t i = 0; i < n; i++) d[i] = a[i] > b[i] ? a[i] : b[i]; break;              \
    case BAND: for (size_t i = 0; i < n; i++) d[i] = a[i] & b[i]; break;                            \
    case BOR:  for (size_t i = 0; i < n; i++) d[i] = a[i] | b[i]; break;                            \
    case BXOR: for (size_t i = 0; i < n; i++) d[i] = a[i] ^ b[i]; break;                            \
    }                                                                                               \
}                                                                                                   \
ATTR static void many_sum_f64_##SUFFIX(double *restrict d, const double *const *s, int k, size_t n) { \
    const size_t strip = 512; /* 4 KiB of dst per strip: k source strips + dst stay in L1 */         \
    for (size_t base = 0; base < n; base += strip) {                                                \
        size_t m = n - base < strip ? n - base : strip;                                             \
        const double *s0 = s[0] + base;                                                             \
        for (size_t i = 0; i < m; i++) d[base + i] = s0[i];                                         \
        for (int j = 1; j < k; j++) {                                                               \
            const double *sj = s[j] + base;                                                         \
            for (size_t i = 0; i < m; i++) d[base + i] += sj[i];                                    \
        }                                                                                           \
    }                                                                                               \
}

KERNELS(avx512, __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl"))))
KERNELS(avx2, __attribute__((target("avx2,fma"))))
KERNELS(base, )

static int level = -1;

static int isa_level(void) {
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return level;
}

#define DISPATCH(T, CT)                                                                             \
    switch (isa_level()) {                                                                          \
    case 2: T##_avx512(op, (CT *)d, (const CT *)a, (const CT *)b, n); break;                        \
    case 1: T##_avx2(op, (CT *)d, (const CT *)a, (const CT *)b, n); break;                          \
    default: T##_base(op, (CT *)d, (const CT *)a, (const CT *)b, n); break;                         \
    }

/* dst = a op b over n elements; codes are the ordinals of io.coll4j.reductions.DType and Op. */
void coll4j_reduce(int dtype, int op, void *d, const void *a, const void *b, size_t n) {
    switch (dtype) {
    case F32: DISPATCH(f32, float) break;
    case F64: DISPATCH(f64, double) break;
    case I32: DISPATCH(i32, int32_t) break;
    case I64: DISPATCH(i64, int64_t) break;
    }
}

/*
 * dst = s0 + s1 + ... + s(k-1), left to right: one pass over memory strip by strip (each source and
 * dst read/written once from DRAM; the strip stays in L1 between the k partial adds).
 */
void coll4j_reduce_many_sum_f64(double *d, const double *const *s, int k, size_t n) {
    switch (isa_level()) {
    case 2: many_sum_f64_avx512(d, s, k, n); break;
    case 1: many_sum_f64_avx2(d, s, k, n); break;
    default: many_sum_f64_base(d, s, k, n); break;
    }
}

/* Which kernel set coll4j_reduce runs: 2 = AVX-512, 1 = AVX2, 0 = baseline x86-64. */
int coll4j_reduce_isa(void) {
    return isa_level();
}
