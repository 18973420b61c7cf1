// Non-temporal store loops (stream.hpp). An ordinary store to a line not in the cache reads the
// line first: a copy then moves 3n bytes for n, vecadd 4 for every 3. These stores write whole
// lines without reading them; an sfence orders them before anything the caller does next.
#include <cstring>

#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "native.hpp"
#include "stream.hpp"

namespace duet::apps::native {

namespace {

#if defined(__x86_64__)
__attribute__((target("avx"))) void stream_copy_avx(const float* src, float* dst, std::size_t n) {
    for (std::size_t i = 0; i < n / sizeof(float); i += 16) {
        const __m256 x = _mm256_load_ps(src + i), y = _mm256_load_ps(src + i + 8);
        _mm256_stream_ps(dst + i, x);
        _mm256_stream_ps(dst + i + 8, y);
    }
    _mm_sfence();
}

void stream_copy_sse(const float* src, float* dst, std::size_t n) {
    for (std::size_t i = 0; i < n / sizeof(float); i += 16)
        for (std::size_t j = 0; j < 16; j += 4)
            _mm_stream_ps(dst + i + j, _mm_load_ps(src + i + j));
    _mm_sfence();
}

__attribute__((target("avx"))) void stream_add_avx(const float* a, const float* b, float* c,
                                                   std::size_t n) {
    std::size_t i = 0;
    for (; i < n && (reinterpret_cast<std::uintptr_t>(c + i) & 31) != 0; ++i)
        c[i] = a[i] + b[i];
    for (; i + 16 <= n; i += 16) {
        const __m256 x = _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
        const __m256 y = _mm256_add_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8));
        _mm256_stream_ps(c + i, x);
        _mm256_stream_ps(c + i + 8, y);
    }
    _mm_sfence();
    for (; i < n; ++i)
        c[i] = a[i] + b[i];
}
#endif

} // namespace

void stream_copy(const float* src, float* dst, std::size_t n) {
#if defined(__x86_64__)
    if (host_cpu().vector_bits >= 256)
        stream_copy_avx(src, dst, n);
    else
        stream_copy_sse(src, dst, n);
#else
    std::memcpy(dst, src, n);
#endif
}

bool stream_add(const float* a, const float* b, float* c, std::size_t n) {
#if defined(__x86_64__)
    if (host_cpu().vector_bits >= 256) {
        stream_add_avx(a, b, c, n);
        return true;
    }
#endif
    (void)a, (void)b, (void)c, (void)n;
    return false;
}

std::size_t last_level_cache_bytes() {
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    for (const int level : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
        const long bytes = sysconf(level);
        if (bytes > 0)
            return std::size_t(bytes);
    }
#endif
    return 0;
}

} // namespace duet::apps::native
