// The CUDA backend's own checks. Without a CUDA device (CI: nvcc, no GPU) it must load and say
// why it has no devices. With devices: embedded fatbins, NVRTC-built kernels, dynamic shared
// memory and the CUDA limits its errors name. The device contract every backend keeps
// (transfers, fills, copies, user kernels, caches, timing, bad input) is tests/conformance/.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "test_util.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::vector<duet::Device*> cuda_devices() {
    std::vector<duet::Device*> out;
    for (auto* d : duet::devices())
        if (d->info().backend == "cuda")
            out.push_back(d);
    return out;
}

const duet::BackendReport* find_report(const std::vector<duet::BackendReport>& reports) {
    for (const auto& r : reports)
        if (r.name == "cuda")
            return &r;
    return nullptr;
}

// Runs `f`, which must throw duet::Error; returns it (or a default-kind Error if it did not).
template <class F> duet::Error expect_error(F&& f) {
    try {
        f();
    } catch (const duet::Error& e) {
        return e;
    }
    FAIL("expected a duet::Error");
    return duet::Error::usage("(nothing thrown)");
}

// A user kernel compiled by NVRTC: defines, and the duet_cuda.cuh header by name.
const char* const user_source = R"(
#include "duet_cuda.cuh"
extern "C" __global__ void scale_add(const float* x, float* y, int n) {
    const int i = duet_global_id(0);
    if (i < n)
        y[i] = SCALE * x[i] + OFFSET;
}
// Two local arguments: laid out 16-byte aligned, in order, in one dynamic shared block.
extern "C" __global__ void local_pair(const int* in, int* out, duet_local_t a, duet_local_t b) {
    int* s = DUET_LOCAL(int, a);
    float* t = DUET_LOCAL(float, b);
    const int l = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + l;
    s[l] = in[g];
    t[l] = 0.5f * in[g];
    __syncthreads();
    out[g] = s[n - 1 - l] + (int)(2.0f * t[l]);
}
// More dynamic shared memory than the 48 KiB CUDA allows without opting in.
extern "C" __global__ void local_big(int* out, duet_local_t a, int count) {
    int* s = DUET_LOCAL(int, a);
    for (int j = threadIdx.x; j < count; j += blockDim.x)
        s[j] = j;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[count - 1 - threadIdx.x];
}
)";

duet::BuildOptions user_options() {
    duet::BuildOptions o;
    o.sources.cuda = user_source;
    o.sources.origin = "test_cuda user source";
    o.defines = {{"SCALE", "2.0f"}, {"OFFSET", "1.0f"}};
    return o;
}

// NVRTC may be missing where the driver is not: such a machine says so instead of failing.
bool nvrtc_missing(const duet::Error& e) {
    if (e.kind() != duet::ErrorKind::unavailable)
        return false;
    MESSAGE("NVRTC is not available, NVRTC checks skipped: " << e.what());
    return true;
}

void check_vecadd(duet::Device& dev, const std::string& kernel_name) {
    const int n = (1 << 20) + 3; // not a multiple of 4 or of the block: tails are exercised
    std::vector<float> a(n), b(n), c(n, -1.f);
    for (int i = 0; i < n; ++i) {
        a[i] = 0.25f * static_cast<float>(i % 1000) - 7.f;
        b[i] = 1.f / static_cast<float>(1 + i % 37);
    }
    auto q = dev.create_queue(duet::QueueOptions::timed());
    auto da = dev.alloc<float>(n), db = dev.alloc<float>(n), dc = dev.alloc<float>(n);
    q->write(*da, a);
    q->write(*db, b);
    q->fill(*dc, 0xFFFFFFFFu, n); // NaN poison: an element the kernel misses cannot pass
    auto k = dev.load_kernel(kernel_name);
    CHECK(k->cache_hit()); // the embedded fatbin
    CHECK(contains(k->build_options(), "embedded"));
    CHECK(k->max_work_group_size() >= 256);
    const duet::Range range = kernel_name == "vecadd_naive"
                                  ? duet::Range(duet::round_up(n, 256)).local(256)
                                  : duet::Range(256 * 64).local(256);
    auto ev = q->launch(*k, range, *da, *db, *dc, n);
    q->read(*dc, c);
    CHECK(ev.elapsed_ms() >= 0.0);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += c[i] != a[i] + b[i];
    CHECK_MESSAGE(wrong == 0, kernel_name << ": " << wrong << " wrong elements");
}

} // namespace

TEST_CASE("cuda: the plugin loads and explains when it has no devices") {
    const auto reports = duet::backend_reports();
    const duet::BackendReport* r = find_report(reports);
    REQUIRE(r != nullptr);
    INFO("plugin: " << r->plugin << "; reason: " << r->reason);
    CHECK(r->loaded);
    CHECK_FALSE(r->version.empty());
    CHECK(r->platforms.size() == 1);
    if (r->device_count == 0) {
        MESSAGE("no CUDA device: " << r->reason);
        CHECK_FALSE(r->reason.empty());
        CHECK(cuda_devices().empty());
        const duet::Error e = expect_error([] { duet::select_device("0", "cuda"); });
        CHECK(contains(e.what(), r->reason));
        return;
    }
    CHECK(r->reason.empty());
    CHECK(cuda_devices().size() == static_cast<std::size_t>(r->device_count));
    for (auto* dev : cuda_devices()) {
        const auto& i = dev->info();
        INFO(dev->label());
        CHECK(i.vendor == "NVIDIA Corporation");
        CHECK(i.type == "GPU");
        CHECK(contains(i.device_version, "compute capability "));
        CHECK(i.architecture.rfind("sm_", 0) == 0);
        CHECK((i.uuid.empty() || i.uuid.size() == 32));
        CHECK(i.pci_bus_id.size() == 12);
        CHECK(i.compute_units > 0);
        CHECK(i.clock_mhz > 0);
        CHECK(i.global_mem_bytes > 0);
        CHECK(i.subgroup_width == 32);
        CHECK(i.max_work_group_size >= 1024);
        CHECK(i.local_mem_bytes >= 48 * 1024);
    }
}

TEST_CASE("cuda: every device runs kernels, transfers and reports errors") {
    // Fails with DUET_REQUIRE_CUDA=1 (set it on a GPU machine) when there is no device.
    for (auto* devp : duet_test::devices_of("cuda")) {
        duet::Device& dev = *devp;
        SUBCASE(dev.label().c_str()) {
            MESSAGE("on " << dev.label());

            SUBCASE("vecadd_naive and vecadd_vec4 match the CPU") {
                check_vecadd(dev, "vecadd_naive");
                check_vecadd(dev, "vecadd_vec4");
            }

            SUBCASE("launch limits and argument checks are usage errors") {
                auto q = dev.create_queue();
                auto k = dev.load_kernel("vecadd_naive");
                auto a = dev.alloc<float>(4096);
                int n = 4096;
                auto e = expect_error(
                    [&] { q->launch(*k, duet::Range(64, 64).local(64, 32), *a, *a, *a, n); });
                CHECK(e.kind() == duet::ErrorKind::usage);
                CHECK(contains(e.what(), std::to_string(k->max_work_group_size())));
                e = expect_error(
                    [&] { q->launch(*k, duet::Range(4096).local(2048), *a, *a, *a, n); });
                CHECK(e.kind() == duet::ErrorKind::usage);
                CHECK(contains(e.what(), "maxThreadsDim"));
                e = expect_error([&] {
                    q->launch(*k, duet::Range(64, 64, 256).local(1, 1, 128), *a, *a, *a, n);
                });
                CHECK(e.kind() == duet::ErrorKind::usage);
                CHECK(contains(e.what(), "maxThreadsDim"));
                // size_t where the kernel takes int: caught before the kernel reads garbage.
                e = expect_error([&] {
                    q->launch(*k, duet::Range(4096).local(256), *a, *a, *a, std::size_t{4096});
                });
                CHECK(e.kind() == duet::ErrorKind::usage);
                e = expect_error([&] { q->launch(*k, duet::Range(4096).local(256), *a, *a, n); });
                CHECK(e.kind() == duet::ErrorKind::usage);
                // No local size: the backend picks a divisor (1000 = 8 x 125).
                std::vector<float> ones(1000, 1.f), out(1000);
                auto x = dev.alloc<float>(1000), y = dev.alloc<float>(1000);
                q->write(*x, ones);
                q->launch(*k, duet::Range(1000), *x, *x, *y, 1000);
                q->read(*y, out);
                CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 2.f; }));
            }

            SUBCASE("an NVRTC-built kernel with defines and local memory runs correctly") {
                try {
                    auto k = dev.load_kernel("scale_add", user_options());
                    CHECK(contains(k->build_options(), "-DSCALE=2.0f"));
                    CHECK(contains(k->build_options(), "-arch="));
                    auto again = dev.load_kernel("scale_add", user_options());
                    CHECK(again->cache_hit());
                    CHECK(again->build_ms() == 0.0); // the device's loaded module
                    const int n = 10000;
                    std::vector<float> x(n), y(n);
                    for (int i = 0; i < n; ++i)
                        x[i] = static_cast<float>(i) * 0.5f;
                    auto q = dev.create_queue();
                    auto dx = dev.alloc<float>(n), dy = dev.alloc<float>(n);
                    q->write(*dx, x);
                    q->launch(*k, duet::Range(duet::round_up(n, 128)).local(128), *dx, *dy, n);
                    q->read(*dy, y);
                    int wrong = 0;
                    for (int i = 0; i < n; ++i)
                        wrong += y[i] != 2.0f * x[i] + 1.0f;
                    CHECK(wrong == 0);

                    auto pair = dev.load_kernel("local_pair", user_options());
                    const int blocks = 4, threads = 256;
                    std::vector<int> in(blocks * threads), res(blocks * threads);
                    for (int i = 0; i < blocks * threads; ++i)
                        in[i] = i;
                    auto din = dev.alloc<int>(in.size()), dout = dev.alloc<int>(in.size());
                    q->write(*din, in);
                    // 1028 bytes: the second argument starts at 1040, the next 16-byte boundary.
                    q->launch(*pair, duet::Range(blocks * threads).local(threads), *din, *dout,
                              duet::local(threads * sizeof(int) + 4),
                              duet::local(threads * sizeof(float)));
                    q->read(*dout, res);
                    wrong = 0;
                    for (int bl = 0; bl < blocks; ++bl)
                        for (int l = 0; l < threads; ++l) {
                            const int g = bl * threads + l;
                            wrong += res[g] != in[bl * threads + threads - 1 - l] + in[g];
                        }
                    CHECK(wrong == 0);

                    auto big = dev.load_kernel("local_big", user_options());
                    const int count = 64 * 1024 / 4; // 64 KiB: over 48 KiB, needs the opt-in
                    auto dbig = dev.alloc<int>(256);
                    q->launch(*big, duet::Range(256).local(256), *dbig, duet::local(count * 4),
                              count);
                    std::vector<int> big_out(256);
                    q->read(*dbig, big_out);
                    wrong = 0;
                    for (int l = 0; l < 256; ++l)
                        wrong += big_out[l] != count - 1 - l;
                    CHECK(wrong == 0);
                    const auto e = expect_error([&] {
                        q->launch(*big, duet::Range(256).local(256), *dbig,
                                  duet::local(std::size_t{16} << 20), count);
                    });
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(contains(e.what(), "sharedMemPerBlockOptin"));
                } catch (const duet::Error& e) {
                    if (!nvrtc_missing(e))
                        throw;
                }
            }

            SUBCASE("an app's target architecture: PTX of an older one runs, another major's "
                    "machine code is refused") {
                try {
                    const int cc = std::atoi(dev.info().architecture.c_str() + 3); // sm_NN
                    duet::BuildOptions o = user_options();
                    o.compiler_options["cuda-c++"] = {"-arch=compute_75"};
                    auto k = dev.load_kernel("scale_add", o);
                    CHECK(contains(k->build_options(), "-arch=compute_75"));
                    std::vector<float> x(256, 3.f), y(256);
                    auto q = dev.create_queue();
                    auto dx = dev.alloc<float>(256), dy = dev.alloc<float>(256);
                    q->write(*dx, x);
                    q->launch(*k, duet::Range(256).local(128), *dx, *dy, 256);
                    q->read(*dy, y);
                    CHECK(std::all_of(y.begin(), y.end(), [](float v) { return v == 7.f; }));
                    o.compiler_options["cuda-c++"] = {cc >= 80 ? "-arch=sm_75" : "-arch=sm_80"};
                    const auto e = expect_error([&] { dev.load_kernel("scale_add", o); });
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(contains(e.what(), "this GPU is"));
                } catch (const duet::Error& e) {
                    if (!nvrtc_missing(e))
                        throw;
                }
            }

            SUBCASE("an NVRTC compile error carries the log, the options and the device") {
                duet::BuildOptions o;
                o.sources.cuda = "extern \"C\" __global__ void broken(float* x) { x[0] = nope; }";
                o.sources.origin = "broken.cu";
                o.defines = {{"SOMETHING", "1"}};
                const auto e = expect_error([&] { dev.load_kernel("broken", o); });
                if (!nvrtc_missing(e)) {
                    CHECK(e.kind() == duet::ErrorKind::build);
                    CHECK(contains(e.build_log(), "nope"));
                    CHECK(contains(e.what(), "broken"));
                    CHECK(contains(e.what(), "-DSOMETHING=1"));
                    CHECK(contains(e.what(), dev.info().id()));
                }
            }

            SUBCASE("a kernel that is not there is a not_found error listing what is") {
                auto e = expect_error([&] { dev.load_kernel("no_such_kernel_anywhere"); });
                CHECK(e.kind() == duet::ErrorKind::not_found);
                CHECK(contains(e.what(), "no_such_kernel_anywhere"));
                for (const auto& n : duet::kernel_names(duet::KernelLanguage::cuda))
                    if (n.rfind("duet_", 0) != 0) { // the message starts its list with this one
                        CHECK(contains(e.what(), n));
                        break;
                    }
                e = expect_error([&] { dev.load_kernel("not_in_module", user_options()); });
                if (!nvrtc_missing(e)) {
                    CHECK(e.kind() == duet::ErrorKind::not_found);
                    CHECK(contains(e.what(), "not_in_module"));
                    CHECK(contains(e.what(), "scale_add"));
                }
            }

            SUBCASE("an allocation larger than the device's memory is an error naming it") {
                const std::uint64_t total = dev.info().global_mem_bytes;
                const auto e = expect_error([&] { dev.alloc_bytes(total + (1ull << 30)); });
                CHECK(contains(e.what(), std::to_string(total + (1ull << 30))));
            }
        }
    }
}
