/*
 * reduce_kernels.h — the element loops of reduce.c, included once per ISA. Before including,
 * define KSUFFIX (name suffix) and KATTR (the function attributes: target ISA). Each loop is a plain
 * C loop that gcc -O3 auto-vectorises for that target; `#pragma GCC ivdep` tells it that dst never
 * partially overlaps a source (the Java side allows only the exact alias dst == a or dst == b, which
 * carries no dependence between iterations), so it vectorises without a run-time alias check.
 */
#define KCAT_(a, b) a##_##b
#define KCAT(a, b) KCAT_(a, b)
#define KNAME(name) KCAT(name, KSUFFIX)

#define KLOOP(name, T, EXPR)                                                                     \
    KATTR static void KNAME(name)(void *dst, const void *pa, const void *pb, size_t n) {         \
        T *d = dst;                                                                              \
        const T *a = pa;                                                                         \
        const T *b = pb;                                                                         \
        _Pragma("GCC ivdep")                                                                     \
        for (size_t i = 0; i < n; i++) {                                                         \
            T x = a[i], y = b[i];                                                                \
            d[i] = (EXPR);                                                                       \
        }                                                                                        \
    }

KLOOP(f32_sum, float, x + y)
KLOOP(f32_prod, float, x * y)
KLOOP(f32_min, float, java_minf(x, y))
KLOOP(f32_max, float, java_maxf(x, y))
KLOOP(f64_sum, double, x + y)
KLOOP(f64_prod, double, x * y)
KLOOP(f64_min, double, java_min(x, y))
KLOOP(f64_max, double, java_max(x, y))
/* integers: SUM and PROD on unsigned types wrap modulo 2^w, which is Java's two's-complement
   wrap-around (signed overflow would be undefined behaviour in C); MIN and MAX compare signed. */
KLOOP(i32_sum, uint32_t, x + y)
KLOOP(i32_prod, uint32_t, x * y)
KLOOP(i32_min, int32_t, x < y ? x : y)
KLOOP(i32_max, int32_t, x > y ? x : y)
KLOOP(i32_band, uint32_t, x & y)
KLOOP(i32_bor, uint32_t, x | y)
KLOOP(i32_bxor, uint32_t, x ^ y)
KLOOP(i64_sum, uint64_t, x + y)
KLOOP(i64_prod, uint64_t, x * y)
KLOOP(i64_min, int64_t, x < y ? x : y)
KLOOP(i64_max, int64_t, x > y ? x : y)
KLOOP(i64_band, uint64_t, x & y)
KLOOP(i64_bor, uint64_t, x | y)
KLOOP(i64_bxor, uint64_t, x ^ y)

/* Indexed [dtype][op] by the ordinals of io.coll4j.reductions.DType / Op; NULL = undefined pair. */
static const reduce_fn KNAME(table)[4][7] = {
    {KNAME(f32_sum), KNAME(f32_prod), KNAME(f32_min), KNAME(f32_max), NULL, NULL, NULL},
    {KNAME(f64_sum), KNAME(f64_prod), KNAME(f64_min), KNAME(f64_max), NULL, NULL, NULL},
    {KNAME(i32_sum), KNAME(i32_prod), KNAME(i32_min), KNAME(i32_max), KNAME(i32_band), KNAME(i32_bor), KNAME(i32_bxor)},
    {KNAME(i64_sum), KNAME(i64_prod), KNAME(i64_min), KNAME(i64_max), KNAME(i64_band), KNAME(i64_bor), KNAME(i64_bxor)},
};

/*
 * dst = s0 + s1 + ... + s(k-1), folded left to right, in one pass over memory: the elements are
 * taken in blocks of MANY_BLOCK doubles; a block's partial sums live in acc (L1-resident), every
 * source block is read once from memory and dst is written once [HMPI §2.4]. Sources are
 * folded into acc up to four at a time, each as ((acc + s_j) + s_j+1) + ..., so the order of the
 * additions is the scalar left fold's and the result is bitwise equal to it. dst may alias a
 * source exactly: a block of dst is written only after every source block was read.
 */
KATTR static void KNAME(many_sum_f64)(double *dst, const double *const *srcs, int k, size_t n) {
    double acc[MANY_BLOCK] __attribute__((aligned(64)));
    for (size_t base = 0; base < n; base += MANY_BLOCK) {
        size_t m = n - base < MANY_BLOCK ? n - base : MANY_BLOCK;
        const double *s0 = srcs[0] + base;
        for (size_t i = 0; i < m; i++) {
            acc[i] = s0[i];
        }
        int j = 1;
        for (; j + 4 <= k; j += 4) {
            const double *p = srcs[j] + base, *q = srcs[j + 1] + base;
            const double *r = srcs[j + 2] + base, *t = srcs[j + 3] + base;
            for (size_t i = 0; i < m; i++) {
                acc[i] = (((acc[i] + p[i]) + q[i]) + r[i]) + t[i];
            }
        }
        for (; j + 2 <= k; j += 2) {
            const double *p = srcs[j] + base, *q = srcs[j + 1] + base;
            for (size_t i = 0; i < m; i++) {
                acc[i] = (acc[i] + p[i]) + q[i];
            }
        }
        for (; j < k; j++) {
            const double *p = srcs[j] + base;
            for (size_t i = 0; i < m; i++) {
                acc[i] += p[i];
            }
        }
        double *d = dst + base;
        for (size_t i = 0; i < m; i++) {
            d[i] = acc[i];
        }
    }
}

#undef KLOOP
#undef KNAME
#undef KCAT
#undef KCAT_
