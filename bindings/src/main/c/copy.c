/*
 * copy.c — the copies of coll4j's copy engine (io.coll4j.bindings.copy.Copy).
 *
 * Two copies with the same loop shape that differ only in the store instruction, so a benchmark
 * of one against the other measures exactly what [YHCCL §4.1] measures (t-copy vs nt-copy):
 *
 *   coll4j_nt_copy  non-temporal: _mm512_stream_si512 (AVX-512F) or _mm256_stream_si256 (AVX2).
 *                   The stores bypass the cache hierarchy through write-combining buffers, so the
 *                   destination line is never read (no Read-For-Ownership) and never evicts useful
 *                   data. For a stream that exceeds the caches this moves 2 bytes per byte copied
 *                   instead of 3 (read src, RFO dst, write back dst) [YHCCL §4.1, Table 4].
 *   coll4j_t_copy   temporal: the same loop with _mm512_store_si512 / _mm256_store_si256. It is
 *                   written out instead of calling memcpy because glibc's memcpy itself switches to
 *                   non-temporal stores above __x86_shared_non_temporal_threshold (a fraction of
 *                   the LLC), which would make the comparison meaningless for large copies.
 *
 * Shape of both: a temporal head up to the next 64-byte boundary of dst (so every vector store of
 * the body is aligned and every NT burst fills a whole cache line / write-combining buffer), a body
 * of unaligned loads and aligned stores unrolled to four vectors, a temporal tail shorter than 64
 * bytes, and for the NT copy an sfence: NT stores are weakly ordered even on x86-TSO, so without it
 * a later ordinary store (e.g. the release store of the flag that publishes the copied slice) could
 * become visible before the data. After coll4j_nt_copy returns, every byte it wrote is ordered
 * before every later store of the calling thread.
 *
 * The ISA is chosen once, when the library is loaded, by __builtin_cpu_supports (which also checks
 * that the OS saves the vector state, XGETBV): AVX-512F, else AVX2, else none. With none, the
 * Java side never calls the NT copy (it falls back to MemorySegment.copy); the functions here stay
 * safe to call and degrade to memcpy.
 *
 * Contract (checked on the Java side before the call): src and dst do not overlap.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define COLL4J_EXPORT __attribute__((visibility("default")))

/* Values of coll4j_nt_isa(); mirrored by NativeCopy.ISA_* on the Java side. */
enum { COLL4J_ISA_NONE = 0, COLL4J_ISA_AVX2 = 1, COLL4J_ISA_AVX512 = 2 };

#define LINE 64

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

/* Bytes from d to the next 64-byte boundary, at most n. */
static inline size_t head_bytes(const void *d, size_t n) {
    size_t head = (size_t)(-(uintptr_t)d) & (LINE - 1);
    return head < n ? head : n;
}

/* The temporal head up to the next 64-byte boundary of dst; advances the cursors past it. */
static inline void copy_head(char **d, const char **s, size_t *n) {
    size_t head = head_bytes(*d, *n);
    memcpy(*d, *s, head);
    *d += head;
    *s += head;
    *n -= head;
}

/* ---- AVX-512F ------------------------------------------------------------------------------ */

/*
 * One loop, two store instructions: the NT and the temporal copy are generated from this macro so
 * they cannot drift apart (the comparison of [YHCCL §4.1] needs them identical but for the store).
 */
#define COPY_LOOP_AVX512(name, store)                                                  \
    __attribute__((target("avx512f")))                                                 \
    static void name(void *dst, const void *src, size_t n) {                           \
        char *d = dst;                                                                 \
        const char *s = src;                                                           \
        copy_head(&d, &s, &n);                                                         \
        size_t i = 0;                                                                  \
        for (; i + 4 * LINE <= n; i += 4 * LINE) {                                     \
            __m512i v0 = _mm512_loadu_si512(s + i);                                    \
            __m512i v1 = _mm512_loadu_si512(s + i + LINE);                             \
            __m512i v2 = _mm512_loadu_si512(s + i + 2 * LINE);                         \
            __m512i v3 = _mm512_loadu_si512(s + i + 3 * LINE);                         \
            store((void *)(d + i), v0);                                                \
            store((void *)(d + i + LINE), v1);                                         \
            store((void *)(d + i + 2 * LINE), v2);                                     \
            store((void *)(d + i + 3 * LINE), v3);                                     \
        }                                                                              \
        for (; i + LINE <= n; i += LINE) {                                             \
            store((void *)(d + i), _mm512_loadu_si512(s + i));                         \
        }                                                                              \
        memcpy(d + i, s + i, n - i);                                                   \
    }

COPY_LOOP_AVX512(nt_stream_avx512, _mm512_stream_si512)
COPY_LOOP_AVX512(t_copy_avx512, _mm512_store_si512)

__attribute__((target("avx512f")))
static void nt_copy_avx512(void *dst, const void *src, size_t n) {
    nt_stream_avx512(dst, src, n);
    _mm_sfence();
}

/* ---- AVX2 ---------------------------------------------------------------------------------- */

/* As COPY_LOOP_AVX512, with two 32-byte vectors per line. */
#define COPY_LOOP_AVX2(name, store)                                                    \
    __attribute__((target("avx2")))                                                    \
    static void name(void *dst, const void *src, size_t n) {                           \
        char *d = dst;                                                                 \
        const char *s = src;                                                           \
        copy_head(&d, &s, &n);                                                         \
        size_t i = 0;                                                                  \
        for (; i + 2 * LINE <= n; i += 2 * LINE) {                                     \
            __m256i v0 = _mm256_loadu_si256((const void *)(s + i));                    \
            __m256i v1 = _mm256_loadu_si256((const void *)(s + i + 32));               \
            __m256i v2 = _mm256_loadu_si256((const void *)(s + i + 64));               \
            __m256i v3 = _mm256_loadu_si256((const void *)(s + i + 96));               \
            store((void *)(d + i), v0);                                                \
            store((void *)(d + i + 32), v1);                                           \
            store((void *)(d + i + 64), v2);                                           \
            store((void *)(d + i + 96), v3);                                           \
        }                                                                              \
        for (; i + LINE <= n; i += LINE) {                                             \
            __m256i v0 = _mm256_loadu_si256((const void *)(s + i));                    \
            __m256i v1 = _mm256_loadu_si256((const void *)(s + i + 32));               \
            store((void *)(d + i), v0);                                                \
            store((void *)(d + i + 32), v1);                                           \
        }                                                                              \
        memcpy(d + i, s + i, n - i);                                                   \
    }

COPY_LOOP_AVX2(nt_stream_avx2, _mm256_stream_si256)
COPY_LOOP_AVX2(t_copy_avx2, _mm256_store_si256)

__attribute__((target("avx2")))
static void nt_copy_avx2(void *dst, const void *src, size_t n) {
    nt_stream_avx2(dst, src, n);
    _mm_sfence();
}

/* ---- no vector ISA: memcpy (the Java side does not call the NT copy then) -------------------- */

static void plain_copy(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}

/* ---- dispatch, decided once at load ---------------------------------------------------------- */

static int isa = COLL4J_ISA_NONE;
static copy_fn nt_copy = plain_copy;
static copy_fn nt_stream = plain_copy;
static copy_fn t_copy = plain_copy;

static int cpu_has(int which) {
    switch (which) {
        case COLL4J_ISA_AVX512: return __builtin_cpu_supports("avx512f");
        case COLL4J_ISA_AVX2: return __builtin_cpu_supports("avx2");
        case COLL4J_ISA_NONE: return 1;
        default: return 0;
    }
}

__attribute__((constructor))
static void coll4j_copy_init(void) {
    __builtin_cpu_init();
    if (cpu_has(COLL4J_ISA_AVX512)) {
        isa = COLL4J_ISA_AVX512;
        nt_copy = nt_copy_avx512;
        nt_stream = nt_stream_avx512;
        t_copy = t_copy_avx512;
    } else if (cpu_has(COLL4J_ISA_AVX2)) {
        isa = COLL4J_ISA_AVX2;
        nt_copy = nt_copy_avx2;
        nt_stream = nt_stream_avx2;
        t_copy = t_copy_avx2;
    }
}

/* Which NT path is active: 2 = AVX-512F, 1 = AVX2, 0 = none (callers fall back to a temporal copy). */
COLL4J_EXPORT int coll4j_nt_isa(void) {
    return isa;
}

/* Non-temporal copy of n bytes, src and dst not overlapping; ends with sfence (see top). */
COLL4J_EXPORT void coll4j_nt_copy(void *dst, const void *src, size_t n) {
    nt_copy(dst, src, n);
}

/*
 * coll4j_nt_copy without the closing sfence, for reduce.c's streaming fold, which streams many
 * chunks and fences once. Not exported: internal to libcoll4j.so. memcpy when there is no NT path.
 */
__attribute__((visibility("hidden"))) void coll4j_nt_stream(void *dst, const void *src, size_t n) {
    nt_stream(dst, src, n);
}

/* Temporal copy of n bytes with the same loop shape as coll4j_nt_copy; the benchmark baseline. */
COLL4J_EXPORT void coll4j_t_copy(void *dst, const void *src, size_t n) {
    t_copy(dst, src, n);
}

/*
 * Copy through one named ISA path (2, 1 or 0), non-temporal when nontemporal != 0, so tests reach
 * the AVX2 path on an AVX-512 machine too. Returns 0, or -1 (nothing copied) when this CPU lacks
 * the ISA.
 */
COLL4J_EXPORT int coll4j_copy_isa(int which, int nontemporal, void *dst, const void *src, size_t n) {
    if (!cpu_has(which)) {
        return -1;
    }
    switch (which) {
        case COLL4J_ISA_AVX512: (nontemporal ? nt_copy_avx512 : t_copy_avx512)(dst, src, n); return 0;
        case COLL4J_ISA_AVX2: (nontemporal ? nt_copy_avx2 : t_copy_avx2)(dst, src, n); return 0;
        default: plain_copy(dst, src, n); return 0;
    }
}
