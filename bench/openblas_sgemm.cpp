// OpenBLAS SGEMM on the host CPU: the CPU reference for matmul in docs/results/cpu.md
// (bench/cpu_perf.sh). Row-major C = A·B, float32, M = N = K = n, for each n on the command line.
//
//   usage: openblas_sgemm [--reps R] N [N...]
//
// Inputs are uniform in [-1, 1) from a fixed seed. Per size: one warm-up call, then R timed calls
// (wall clock, std::chrono::steady_clock), and one JSON line with the median. The result is
// checked: sampled entries of C against a dot product in double precision, the error relative to
// sum_k |a_ik * b_kj| (the scale of the rounding error of any summation order).
// Thread count: OpenBLAS's own, set with OPENBLAS_NUM_THREADS; reported as "threads", with the
// largest sampled error ("max_rel_error") and the kernel set OpenBLAS chose ("core").
// Exit codes: 0 success, 1 a wrong result, 2 bad arguments, 3 out of memory.
#include <cblas.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr unsigned kSeed = 42;
constexpr int kSamples = 64;        // entries of C checked per size
constexpr double kTolerance = 1e-5; // of sum_k |a_ik * b_kj|; float rounding is ~1e-7 of it
constexpr long kMaxN = 32768;       // n*n fits a blasint index comfortably below this

void usage(const char* prog, std::FILE* to = stderr) {
    std::fprintf(to,
                 "usage: %s [--reps R] N [N...]\n"
                 "  times OpenBLAS cblas_sgemm (row-major, C = A*B, float32, M=N=K=N) per size;\n"
                 "  one warm-up call, then R timed calls (default 5), one JSON line per size.\n"
                 "  N: 1..%ld; R: 1..10000. Threads: OPENBLAS_NUM_THREADS.\n",
                 prog, kMaxN);
}

// A whole decimal number in [lo, hi], or -1.
long parse_int(const char* s, long lo, long hi) {
    if (!s || !*s)
        return -1;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    return v;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Largest error of kSamples entries of C, each relative to sum_k |a_ik * b_kj|. NaN if any
// sampled entry is not finite.
double check(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
             long n, int* worst_i, int* worst_j) {
    std::mt19937 pick(kSeed + 1);
    std::uniform_int_distribution<long> idx(0, n - 1);
    double worst = 0.0;
    *worst_i = *worst_j = 0;
    for (int s = 0; s < kSamples; ++s) {
        // The corners first (edge handling), then random entries.
        const long i = s == 0 ? 0 : s == 1 ? n - 1 : idx(pick);
        const long j = s == 0 ? 0 : s == 1 ? n - 1 : idx(pick);
        double ref = 0.0, scale = 0.0;
        for (long k = 0; k < n; ++k) {
            const double p = static_cast<double>(a[i * n + k]) * static_cast<double>(b[k * n + j]);
            ref += p;
            scale += std::fabs(p);
        }
        const double got = c[i * n + j];
        if (!std::isfinite(got)) {
            *worst_i = static_cast<int>(i);
            *worst_j = static_cast<int>(j);
            return NAN;
        }
        const double err = std::fabs(got - ref) / std::max(scale, 1e-30);
        if (err > worst) {
            worst = err;
            *worst_i = static_cast<int>(i);
            *worst_j = static_cast<int>(j);
        }
    }
    return worst;
}

} // namespace

int main(int argc, char** argv) {
    long reps = 5;
    std::vector<long> sizes;
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (!std::strcmp(arg, "-h") || !std::strcmp(arg, "--help")) {
            usage(argv[0], stdout);
            return 0;
        }
        if (!std::strcmp(arg, "--reps") || !std::strncmp(arg, "--reps=", 7)) {
            const char* v = arg[6] == '=' ? arg + 7 : (i + 1 < argc ? argv[++i] : nullptr);
            reps = parse_int(v, 1, 10000);
            if (reps < 0) {
                std::fprintf(stderr,
                             "openblas_sgemm: --reps needs a whole number in 1..10000, got '%s'\n",
                             v ? v : "");
                usage(argv[0]);
                return 2;
            }
            continue;
        }
        const long n = parse_int(arg, 1, kMaxN);
        if (n < 0) {
            std::fprintf(stderr, "openblas_sgemm: not a size or an option: '%s'\n", arg);
            usage(argv[0]);
            return 2;
        }
        sizes.push_back(n);
    }
    if (sizes.empty()) {
        std::fprintf(stderr, "openblas_sgemm: no size given\n");
        usage(argv[0]);
        return 2;
    }

    const int threads = openblas_get_num_threads();
    // The kernel set OpenBLAS picked for this CPU (DYNAMIC_ARCH builds choose at start-up).
    std::string core;
    for (const char* p = openblas_get_corename(); p && *p; ++p)
        if (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
            core += *p;
    for (const long n : sizes) {
        std::vector<float> a, b, c;
        try {
            a.resize(static_cast<size_t>(n) * n);
            b.resize(static_cast<size_t>(n) * n);
            c.assign(static_cast<size_t>(n) * n, 0.0f);
        } catch (const std::bad_alloc&) {
            std::fprintf(stderr, "openblas_sgemm: out of memory for n=%ld (3 x %.1f MiB)\n", n,
                         4.0 * n * n / (1 << 20));
            return 3;
        }
        std::mt19937 gen(kSeed);
        std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
        for (auto& x : a)
            x = dist(gen);
        for (auto& x : b)
            x = dist(gen);

        const blasint dim = static_cast<blasint>(n);
        auto sgemm = [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, dim, dim, dim, 1.0f, a.data(),
                        dim, b.data(), dim, 0.0f, c.data(), dim);
        };
        sgemm(); // warm-up: thread pool start, page faults on C
        std::vector<double> ms;
        ms.reserve(static_cast<size_t>(reps));
        for (long r = 0; r < reps; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            sgemm();
            const auto t1 = std::chrono::steady_clock::now();
            ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        }

        int wi = 0, wj = 0;
        const double err = check(a, b, c, n, &wi, &wj);
        if (!(err <= kTolerance)) { // also catches NaN
            std::fprintf(stderr,
                         "openblas_sgemm: WRONG RESULT for n=%ld: C[%d][%d] = %g, error %g of "
                         "sum|a*b| (tolerance %g)\n",
                         n, wi, wj, static_cast<double>(c[static_cast<size_t>(wi) * n + wj]), err,
                         kTolerance);
            return 1;
        }

        const double med = median(ms);
        const double gflops = med > 0 ? 2.0 * n * n * n / (med * 1e6) : 0.0;
        std::printf(
            "{\"n\": %ld, \"ms_median\": %.4f, \"gflops\": %.2f, \"threads\": %d, \"reps\": %ld, "
            "\"max_rel_error\": %.3g, \"core\": \"%s\"}\n",
            n, med, gflops, threads, reps, err, core.c_str());
        std::fflush(stdout);
    }
    return 0;
}
