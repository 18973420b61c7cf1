// Part of test_cuda: the API contracts on every CUDA device (the OpenCL twins are in
// test_contracts.cpp): the histogram with `extern __shared__` bins, arguments per launch and
// checked against the kernel's parameter sizes, one Kernel from several threads, ranges
// checked against the grid limits. Kernels go through NVRTC; without it the checks say so.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <duet/duet.hpp>

#include "histogram_kernels.hpp"
#include "test_util.hpp"

namespace {

const char* const contract_cu = R"(
extern "C" __global__ void axpy(const float* x, float* y, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
// Two extern __shared__ arrays given by two duet::local arguments: the second starts at the
// first 16-byte boundary after the first (4 * 33 = 132 bytes: at 144).
extern "C" __global__ void two_locals(int* out) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* a = reinterpret_cast<int*>(smem);
    int* b = reinterpret_cast<int*>(smem + 144);
    const int l = threadIdx.x;
    a[l] = l;
    b[l] = 100 * l;
    __syncthreads();
    out[l] = a[32 - l] + b[l];
}
)";

duet::BuildOptions sources(const char* cu, const char* origin) {
    duet::BuildOptions o;
    o.sources.cuda = cu;
    o.sources.origin = origin;
    return o;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

template <class F> std::string usage_error(F&& f) {
    try {
        f();
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::usage);
        return e.what();
    }
    FAIL("expected a usage Error");
    return {};
}

// NVRTC may be missing where the driver is not.
std::unique_ptr<duet::Kernel> load_or_skip(duet::Device& dev, const char* name, const char* cu) {
    try {
        return dev.load_kernel(name, sources(cu, "test_cuda_contracts"));
    } catch (const duet::Error& e) {
        if (e.kind() != duet::ErrorKind::unavailable)
            throw;
        MESSAGE("NVRTC is not available, skipped: " << e.what());
        return nullptr;
    }
}

} // namespace

TEST_CASE("cuda contracts: histogram with extern __shared__ bins and duet::local") {
    for (auto* dev : duet_test::devices_of("cuda")) {
        SUBCASE(dev->label().c_str()) {
            auto k = load_or_skip(*dev, "histogram", duet_test::histogram_cu);
            if (!k)
                return;
            auto q = dev->create_queue();
            const int n = 4096 + 77;
            const duet_test::HistogramCase hc(n);
            const auto& data = hc.data;
            const auto& want = hc.want;
            std::vector<int> hist(256, -1);
            auto dd = dev->alloc<int>(n), dh = dev->alloc<int>(256);
            q->write(*dd, data);
            q->fill(*dh, 0, 256);
            // The same launch line as the OpenCL twin's (test_contracts.cpp).
            q->launch(*k, duet::Range(duet::round_up(n, 64)).local(64), *dd, *dh, n,
                      duet::local(256 * sizeof(int)));
            q->read(*dh, hist);
            CHECK(hist == want);

            auto two = load_or_skip(*dev, "two_locals", contract_cu);
            auto dout = dev->alloc<int>(33);
            q->launch(*two, duet::Range(33).local(33), *dout, duet::local(33 * sizeof(int)),
                      duet::local(33 * sizeof(int)));
            std::vector<int> out(33);
            q->read(*dout, out);
            int wrong = 0;
            for (int l = 0; l < 33; ++l)
                wrong += out[l] != (32 - l) + 100 * l;
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("cuda contracts: arguments per launch, sizes checked, ranges, threads") {
    for (auto* dev : duet_test::devices_of("cuda")) {
        SUBCASE(dev->label().c_str()) {
            auto k = load_or_skip(*dev, "axpy", contract_cu);
            if (!k)
                return;
            auto q = dev->create_queue();
            const int n = 256;
            auto dx = dev->alloc<float>(n), dy = dev->alloc<float>(n);
            q->fill(*dx, 2.f, n);
            q->fill(*dy, 1.f, n);
            q->launch(*k, duet::Range(n).local(64), *dx, *dy, 3.f, n);
            std::string e =
                usage_error([&] { q->launch(*k, duet::Range(n).local(64), *dx, *dy, 3.f); });
            CHECK(has(e, "argument 3"));
            CHECK(has(e, "not set"));
            CHECK(has(e, "(8 bytes, 8 bytes, 4 bytes, 4 bytes)"));
            e = usage_error([&] { q->launch(*k, duet::Range(n).local(64), *dx, *dy, 3.f, n, n); });
            CHECK(has(e, "4 arguments"));
            CHECK(has(e, "5 were given"));
            e = usage_error([&] { q->launch(*k, duet::Range(n).local(64), n, *dy, 3.f, n); });
            CHECK(has(e, "argument 0"));
            e = usage_error([&] { q->launch(*k, duet::Range(n).local(64), *dx, *dy, *dx, n); });
            CHECK(has(e, "argument 2"));
            e = usage_error([&] { q->launch(*k, duet::Range(n).local(64), *dx, *dy, 3.0, n); });
            CHECK(has(e, "argument 2"));
            std::vector<float> y(n);
            q->read(*dy, y);
            CHECK(y[n - 1] == 7.f);

            // Grid limits (y and z: 65535 blocks) and size_t overflow, before the driver.
            e = usage_error(
                [&] { q->launch(*k, duet::Range(1, 1 << 20).local(1, 1), *dx, *dy, 3.f, n); });
            CHECK(has(e, "maxGridSize"));
            const std::size_t huge = std::size_t{1} << 40;
            // 2^40 x 2^40 work-items: refused before the driver, for the grid's limit (checked
            // first on CUDA, as seen on the H100) or for the size_t overflow of the product.
            e = usage_error([&] { q->launch(*k, duet::Range(huge, huge), *dx, *dy, 3.f, n); });
            CHECK((has(e, "size_t") || has(e, "maxGridSize")));

            // One Kernel, several threads, each with its own buffers.
            const int threads = 4, rounds = 40;
            std::atomic<int> wrong{0};
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t)
                pool.emplace_back([&, t] {
                    auto tq = dev->create_queue();
                    auto tx = dev->alloc<float>(n), ty = dev->alloc<float>(n);
                    tq->fill(*tx, float(t + 1), n);
                    tq->fill(*ty, 0.f, n);
                    for (int r = 0; r < rounds; ++r)
                        tq->launch(*k, duet::Range(n).local(64), *tx, *ty, 1.f, n);
                    std::vector<float> res(n);
                    tq->read(*ty, res);
                    for (int i = 0; i < n; ++i)
                        wrong += res[i] != float(rounds * (t + 1));
                });
            for (auto& th : pool)
                th.join();
            CHECK(wrong == 0);
        }
    }
}
