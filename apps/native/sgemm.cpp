// matmul's native reference: OpenBLAS's cblas_sgemm where the build found OpenBLAS
// (DUET_HAVE_OPENBLAS), else a blocked loop on every core: each thread a band of rows of C, each
// step a 4 x 32 block of C held in registers while K runs, A read along its rows and B along its
// rows (vectorised over the 32 columns).
#include <algorithm>
#include <cstring>

#include "native.hpp"
#include "simd_clones.hpp"

#if DUET_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace duet::apps::native {

#if !DUET_HAVE_OPENBLAS
namespace {

constexpr std::size_t br = 4, bc = 32; // the block of C in registers

// Rows [i0, i0 + rows) x columns [j0, j0 + cols) of C, rows <= br, cols <= bc.
DUET_SIMD_CLONES void block(const float* __restrict a, const float* __restrict b,
                            float* __restrict c, std::size_t N, std::size_t K, std::size_t i0,
                            std::size_t j0, std::size_t rows, std::size_t cols) {
    float acc[br][bc] = {};
    if (rows == br && cols == bc) {
        for (std::size_t k = 0; k < K; ++k) {
            const float* brow = b + k * N + j0;
            for (std::size_t r = 0; r < br; ++r) {
                const float av = a[(i0 + r) * K + k];
                for (std::size_t j = 0; j < bc; ++j)
                    acc[r][j] += av * brow[j];
            }
        }
    } else {
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t r = 0; r < rows; ++r)
                for (std::size_t j = 0; j < cols; ++j)
                    acc[r][j] += a[(i0 + r) * K + k] * b[k * N + j0 + j];
    }
    for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(c + (i0 + r) * N + j0, acc[r], cols * sizeof(float));
}

void blocked_sgemm(const float* a, const float* b, float* c, std::size_t M, std::size_t N,
                   std::size_t K) {
    const std::size_t bands = (M + br - 1) / br;
    const unsigned threads = unsigned(std::clamp<std::size_t>(bands, 1, host_cpu().threads));
    on_threads(threads, [&](unsigned t) {
        // Columns outermost within a thread: a panel of B (K x 32) stays in cache across its rows.
        const std::size_t lo = bands * t / threads, hi = bands * (t + 1) / threads;
        for (std::size_t j0 = 0; j0 < N; j0 += bc)
            for (std::size_t band = lo; band < hi; ++band) {
                const std::size_t i0 = band * br;
                block(a, b, c, N, K, i0, j0, std::min(br, M - i0), std::min(bc, N - j0));
            }
    });
}

} // namespace
#endif

void sgemm(const float* a, const float* b, float* c, std::size_t M, std::size_t N, std::size_t K) {
#if DUET_HAVE_OPENBLAS
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(M), blasint(N), blasint(K), 1.0f,
                a, blasint(K), b, blasint(N), 0.0f, c, blasint(N));
#else
    blocked_sgemm(a, b, c, M, N, K);
#endif
}

std::string sgemm_library() {
#if DUET_HAVE_OPENBLAS
    std::string version = OPENBLAS_VERSION; // " OpenBLAS 0.3.21 "
    version.erase(0, version.find_first_not_of(' '));
    version.erase(version.find_last_not_of(' ') + 1);
    const int threads = openblas_get_num_threads(); // named where it is not the CPU's count
    return version + " (" + openblas_get_corename() + " kernels" +
           (unsigned(threads) == host_cpu().threads ? std::string()
                                                    : ", " + std::to_string(threads) + " threads") +
           ")";
#else
    return "blocked C++ loop, no OpenBLAS in this build";
#endif
}

std::string sgemm_warning() {
#if DUET_HAVE_OPENBLAS
    // OpenBLAS's kernels for CPUs without AVX2 (its names for SSE-era cores): on a CPU with wider
    // vectors these mean its CPU detection failed, seen with Debian's 0.3.21 on a 16-core Xeon VM
    // (Prescott kernels: 160 GFLOP/s at 2048^3 against 1000 with OPENBLAS_CORETYPE=SkylakeX).
    static const char* narrow[] = {"Prescott", "Core2",     "Penryn",     "Dunnington", "Nehalem",
                                   "Atom",     "Katmai",    "Coppermine", "Northwood",  "Banias",
                                   "Opteron",  "Barcelona", "Bobcat",     "Nano"};
    const std::string core = openblas_get_corename();
    const auto& cpu = host_cpu();
    if (cpu.vector_bits < 256)
        return {};
    for (const char* n : narrow)
        if (core == n)
            return "OpenBLAS did not recognise this CPU and uses its " + core + " kernels on a " +
                   cpu.isa +
                   " CPU: this sgemm figure understates the CPU (and every x CPU is too "
                   "high); set OPENBLAS_CORETYPE (e.g. " +
                   (cpu.vector_bits >= 512 ? "SkylakeX" : "Haswell") + ") and run again";
#endif
    return {};
}

} // namespace duet::apps::native
