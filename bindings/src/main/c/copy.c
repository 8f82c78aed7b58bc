/*
 * coll4j native copy: non-temporal (streaming) and temporal copies for the copy engine (DESIGN §6).
 *
 * [YHCCL §4.1] A store that misses the cache triggers a read-for-ownership: the destination line is
 * read from DRAM only to be overwritten. For data that will not be re-read soon and a working set
 * larger than the cache, non-temporal stores write straight to memory and avoid that read, moving
 * 2 streams instead of 3. The ISA path (AVX-512, AVX2) is chosen once, at load, with
 * __builtin_cpu_supports; each path carries its own target attribute so the library is built without
 * -march and runs on any x86-64.
 *
 * Shape of every NT copy: temporal head up to the 64-byte boundary of dst (streaming stores need
 * aligned destinations), streamed body with unaligned loads, temporal tail, then sfence so the weakly
 * ordered streaming stores are globally visible before the caller publishes a flag.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

static inline size_t head_bytes(const void *dst, size_t n) {
    size_t mis = (uintptr_t)dst & 63;
    size_t head = mis ? 64 - mis : 0;
    return head < n ? head : n;
}

__attribute__((target("avx512f")))
static void nt_copy_avx512(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h; s += h; n -= h;
    while (n >= 256) {
        __m512i a = _mm512_loadu_si512((const void *)(s));
        __m512i b = _mm512_loadu_si512((const void *)(s + 64));
        __m512i c = _mm512_loadu_si512((const void *)(s + 128));
        __m512i e = _mm512_loadu_si512((const void *)(s + 192));
        _mm512_stream_si512((void *)(d), a);
        _mm512_stream_si512((void *)(d + 64), b);
        _mm512_stream_si512((void *)(d + 128), c);
        _mm512_stream_si512((void *)(d + 192), e);
        d += 256; s += 256; n -= 256;
    }
    while (n >= 64) {
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
        d += 64; s += 64; n -= 64;
    }
    memcpy(d, s, n);
    _mm_sfence();
}

__attribute__((target("avx2")))
static void nt_copy_avx2(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h; s += h; n -= h;
    while (n >= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_stream_si256((__m256i *)(d), a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
        _mm256_stream_si256((__m256i *)(d + 64), c);
        _mm256_stream_si256((__m256i *)(d + 96), e);
        d += 128; s += 128; n -= 128;
    }
    while (n >= 32) {
        _mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
        d += 32; s += 32; n -= 32;
    }
    memcpy(d, s, n);
    _mm_sfence();
}

/*
 * The temporal twins of the loops above: same shape, ordinary stores. They are the honest "temporal
 * copy" to compare NT with — glibc's memcpy (and so MemorySegment.copy, which ends in it) itself switches
 * to streaming stores above about 3/4 of the LLC, so it is not a temporal copy at large sizes.
 */
__attribute__((target("avx512f")))
static void t_copy_avx512(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h; s += h; n -= h;
    while (n >= 256) {
        __m512i a = _mm512_loadu_si512((const void *)(s));
        __m512i b = _mm512_loadu_si512((const void *)(s + 64));
        __m512i c = _mm512_loadu_si512((const void *)(s + 128));
        __m512i e = _mm512_loadu_si512((const void *)(s + 192));
        _mm512_store_si512((void *)(d), a);
        _mm512_store_si512((void *)(d + 64), b);
        _mm512_store_si512((void *)(d + 128), c);
        _mm512_store_si512((void *)(d + 192), e);
        d += 256; s += 256; n -= 256;
    }
    memcpy(d, s, n);
}

__attribute__((target("avx2")))
static void t_copy_avx2(void *dst, const void *src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t h = head_bytes(d, n);
    memcpy(d, s, h);
    d += h; s += h; n -= h;
    while (n >= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
        __m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));
        _mm256_store_si256((__m256i *)(d), a);
        _mm256_store_si256((__m256i *)(d + 32), b);
        _mm256_store_si256((__m256i *)(d + 64), c);
        _mm256_store_si256((__m256i *)(d + 96), e);
        d += 128; s += 128; n -= 128;
    }
    memcpy(d, s, n);
}

static void temporal_copy(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n);
}

static copy_fn nt_impl = temporal_copy;
static copy_fn t_impl = temporal_copy;
static int nt_isa = 0;

__attribute__((constructor))
static void coll4j_copy_init(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        nt_impl = nt_copy_avx512;
        t_impl = t_copy_avx512;
        nt_isa = 2;
    } else if (__builtin_cpu_supports("avx2")) {
        nt_impl = nt_copy_avx2;
        t_impl = t_copy_avx2;
        nt_isa = 1;
    }
}

/* 2 = AVX-512 (_mm512_stream_si512), 1 = AVX2 (_mm256_stream_si256), 0 = none (temporal fallback). */
int coll4j_nt_isa(void) {
    return nt_isa;
}

/* Non-temporal copy of n bytes; src and dst must not overlap (checked by the Java caller). */
void coll4j_nt_copy(void *dst, const void *src, size_t n) {
    nt_impl(dst, src, n);
}

/* Temporal copy with the same loop shape as coll4j_nt_copy but ordinary stores (see t_copy_avx512). */
void coll4j_copy(void *dst, const void *src, size_t n) {
    t_impl(dst, src, n);
}
