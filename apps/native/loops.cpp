// The memory-bound apps' native loops: vecadd, the reduction and the 5x5 convolution on every
// core, each thread a contiguous part, the inner loops vectorised by the compiler for the widest
// vectors the CPU has (one clone per ISA, chosen when the program starts).
#include <algorithm>
#include <vector>

#include "native.hpp"
#include "simd_clones.hpp"
#include "stream.hpp"

namespace duet::apps::native {

namespace {

// [begin, end) of thread t's part of n items.
std::size_t part(std::size_t n, unsigned t, unsigned threads) {
    return n * t / threads;
}

// Threads worth starting for n items: at least `grain` items each (a thread costs tens of
// microseconds to start, more on a busy machine: small problems run on fewer).
unsigned threads_for(std::size_t n, std::size_t grain) {
    return unsigned(std::clamp<std::size_t>(n / grain, 1, host_cpu().threads));
}

DUET_SIMD_CLONES void add_part(const float* __restrict a, const float* __restrict b,
                               float* __restrict c, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}

// Lanes of independent partial sums: wide enough for two AVX-512 registers, so a core keeps
// several additions in flight and the loop runs at the speed of its loads.
constexpr std::size_t lanes = 32;

DUET_SIMD_CLONES float sum_part(const float* __restrict x, std::size_t n) {
    float acc[lanes] = {};
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j < lanes; ++j)
            acc[j] += x[i + j];
    for (std::size_t j = 0; i < n; ++i, ++j)
        acc[j] += x[i];
    float s = 0;
    for (std::size_t j = 0; j < lanes; ++j)
        s += acc[j];
    return s;
}

DUET_SIMD_CLONES std::int32_t sum_part_i32(const std::int32_t* __restrict x, std::size_t n) {
    std::int32_t acc[lanes] = {};
    std::size_t i = 0;
    for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j < lanes; ++j)
            acc[j] += x[i + j];
    for (std::size_t j = 0; i < n; ++i, ++j)
        acc[j] += x[i];
    std::int32_t s = 0;
    for (std::size_t j = 0; j < lanes; ++j)
        s += acc[j];
    return s;
}

// Outputs of the convolution summed side by side: 8 AVX2 or 4 AVX-512 registers of independent
// sums, enough to keep both FMA units busy through the FMA's latency (the 25 taps of one output
// form a chain of dependent FMAs).
constexpr std::size_t conv_lanes = 64;

// Rows [y0, y1) of the convolution. Inside a row, `conv_lanes` adjacent outputs at a time are
// summed over the 25 taps in registers (the tap loops unrolled, so the sums stay there) from
// contiguous (unaligned) loads of the five input rows; the 2 columns at each edge clamp, scalar.
DUET_SIMD_CLONES void conv_rows(const float* __restrict img, const float* __restrict f,
                                float* __restrict out, std::size_t W, std::size_t H, std::size_t y0,
                                std::size_t y1) {
    const long long w = static_cast<long long>(W), h = static_cast<long long>(H);
    float taps[25];
    for (int k = 0; k < 25; ++k)
        taps[k] = f[k];
    for (std::size_t y = y0; y < y1; ++y) {
        const float* row[5];
        for (int dy = 0; dy < 5; ++dy)
            row[dy] = img + std::clamp(static_cast<long long>(y) + dy - 2, 0LL, h - 1) * w;
        float* o = out + y * W;
        const auto scalar = [&](long long x) {
            float s = 0;
            for (int dy = 0; dy < 5; ++dy)
                for (int dx = 0; dx < 5; ++dx)
                    s += taps[dy * 5 + dx] * row[dy][std::clamp(x + dx - 2, 0LL, w - 1)];
            o[x] = s;
        };
        long long x = 0;
        for (; x < std::min(2LL, w); ++x)
            scalar(x);
        for (; x + static_cast<long long>(conv_lanes) + 2 <= w; x += conv_lanes) {
            float s[conv_lanes] = {};
#pragma GCC unroll 5
            for (int dy = 0; dy < 5; ++dy)
#pragma GCC unroll 5
                for (int dx = 0; dx < 5; ++dx) {
                    const float t = taps[dy * 5 + dx];
                    const float* in = row[dy] + x + dx - 2;
                    for (std::size_t i = 0; i < conv_lanes; ++i)
                        s[i] += t * in[i];
                }
            for (std::size_t i = 0; i < conv_lanes; ++i)
                o[x + i] = s[i];
        }
        for (; x < w; ++x)
            scalar(x);
    }
}

} // namespace

void vecadd(const float* a, const float* b, float* c, std::size_t n) {
    const unsigned threads = threads_for(n, 1 << 18);
    // Arrays larger than the cache: stores past it (stream.cpp), as the device's cpu step does.
    static const std::size_t cache = last_level_cache_bytes();
    const bool stream = 3 * n * sizeof(float) > (cache ? cache : std::size_t(32) << 20);
    on_threads(threads, [&](unsigned t) {
        const std::size_t lo = part(n, t, threads), hi = part(n, t + 1, threads);
        if (!stream || !stream_add(a + lo, b + lo, c + lo, hi - lo))
            add_part(a + lo, b + lo, c + lo, hi - lo);
    });
}

float reduce_f32(const float* x, std::size_t n) {
    const unsigned threads = threads_for(n, 1 << 18);
    std::vector<float> partial(threads);
    on_threads(threads, [&](unsigned t) {
        const std::size_t lo = part(n, t, threads), hi = part(n, t + 1, threads);
        partial[t] = sum_part(x + lo, hi - lo);
    });
    float s = 0;
    for (float p : partial)
        s += p;
    return s;
}

std::int32_t reduce_i32(const std::int32_t* x, std::size_t n) {
    const unsigned threads = threads_for(n, 1 << 18);
    std::vector<std::int32_t> partial(threads);
    on_threads(threads, [&](unsigned t) {
        const std::size_t lo = part(n, t, threads), hi = part(n, t + 1, threads);
        partial[t] = sum_part_i32(x + lo, hi - lo);
    });
    std::int32_t s = 0;
    for (auto p : partial)
        s += p;
    return s;
}

void conv5x5(const float* img, const float* filter, float* out, std::size_t W, std::size_t H) {
    const unsigned threads = threads_for(W * H, 1 << 16);
    on_threads(threads, [&](unsigned t) {
        conv_rows(img, filter, out, W, H, part(H, t, threads), part(H, t + 1, threads));
    });
}

} // namespace duet::apps::native
