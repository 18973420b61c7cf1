// API contracts on every OpenCL device, each a misuse that once crashed or silently misbehaved:
// arguments are per launch and checked against the kernel's signature, one Kernel launched
// from several threads, ranges checked before the driver, non-blocking transfers and queue
// lifetime, and the histogram kernel written as each language writes it.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "histogram_kernels.hpp"
#include "test_util.hpp"

using duet::Error;
using duet::Range;

namespace {

const char* const contract_cl = R"(
__kernel void axpy(__global const float* x, __global float* y, const float a, const int n) {
    const int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
)";

duet::BuildOptions contract_options() {
    duet::BuildOptions o;
    o.sources.opencl = contract_cl;
    o.sources.origin = "contract.cl";
    return o;
}

// axpy on one device, with a queue and its x and y buffers of n floats (unwritten).
struct Axpy {
    Axpy(duet::Device& dev, int n)
        : kernel(dev.load_kernel("axpy", contract_options())), queue(dev.create_queue()),
          x(dev.alloc<float>(n)), y(dev.alloc<float>(n)) {}
    std::unique_ptr<duet::Kernel> kernel;
    std::unique_ptr<duet::Queue> queue;
    std::unique_ptr<duet::Buffer> x, y;
};

template <class F> std::string usage_error(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == duet::ErrorKind::usage);
        return e.what();
    }
    FAIL("expected a usage Error");
    return {};
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("contracts: the histogram with a __local int* parameter and duet::local") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            duet::BuildOptions o;
            o.sources.opencl = duet_test::histogram_cl;
            o.sources.origin = "histogram.cl";
            auto k = dev->load_kernel("histogram", o);
            auto q = dev->create_queue();
            const int n = 4096 + 77;
            const duet_test::HistogramCase hc(n);
            const auto& data = hc.data;
            const auto& want = hc.want;
            std::vector<int> hist(256, -1);
            auto dd = dev->alloc<int>(n), dh = dev->alloc<int>(256);
            q->write(*dd, data);
            q->write(*dh, std::vector<int>(256, 0)); // not fill: Oclgrind counts it uninitialised
            q->launch(*k, Range(duet::round_up(n, 64)).local(64), *dd, *dh, n,
                      duet::local(256 * sizeof(int)));
            q->read(*dh, hist);
            CHECK(hist == want);
        }
    }
}

TEST_CASE("contracts: arguments are per launch and checked against the signature") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            const int n = 256;
            Axpy ax(*dev, n);
            auto& [k, q, dx, dy] = ax;
            std::vector<float> x(n, 2.f), y(n, 1.f);
            q->write(*dx, x);
            q->write(*dy, y);
            q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, n);
            q->read(*dy, y);
            CHECK(y[0] == 7.f);

            // The last argument left out: named, never taken from the launch before.
            std::string e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f); });
            CHECK(has(e, "argument 3"));
            CHECK(has(e, "not set"));
            CHECK(has(e, "4 arguments"));
            CHECK(has(e, "3 were given"));
            CHECK(has(e, "int n")); // the name, from -cl-kernel-arg-info
            // One too many: both counts and the signature.
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, n, n); });
            CHECK(has(e, "4 arguments"));
            CHECK(has(e, "5 were given"));
            // Kinds and sizes.
            e = usage_error([&] { q->launch(*k, Range(n).local(64), n, *dy, 3.f, n); });
            CHECK(has(e, "argument 0"));
            CHECK(has(e, "buffer"));
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, *dx, n); });
            CHECK(has(e, "argument 2"));
            e = usage_error([&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.0, n); });
            CHECK(has(e, "argument 2"));
            CHECK(has(e, "8-byte"));
            e = usage_error(
                [&] { q->launch(*k, Range(n).local(64), *dx, duet::local(64), 3.f, n); });
            CHECK(has(e, "argument 1"));
            e = usage_error(
                [&] { q->launch(*k, Range(n).local(64), *dx, *dy, 3.f, std::int64_t{n}); });
            CHECK(has(e, "argument 3"));
            // Nothing above reached the device: y is as the one good launch left it.
            q->read(*dy, y);
            CHECK(y[n - 1] == 7.f);
        }
    }
}

TEST_CASE("contracts: a tile map's shape is checked, and an OpenCL kernel takes none") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            const int n = 256;
            Axpy ax(*dev, n);
            auto& [k, q, dx, dy] = ax;
            const auto launch = [&](const duet::TileMap& t) {
                return usage_error([&] { q->launch(*k, Range(n).local(64), t, *dy, 3.f, n); });
            };
            // Shapes the tile copier cannot take, named before anything else is looked at.
            std::string e = launch(duet::tile_map(*dx, 8, 32, 300, 32));
            CHECK(has(e, "argument 0"));
            CHECK(has(e, "box of 300 x 32"));
            e = launch(duet::tile_map(*dx, 8, 32, 8, 64));
            CHECK(has(e, "box of 8 x 64"));
            e = launch(duet::tile_map(*dx, 16, 15, 8, 8));
            CHECK(has(e, "15 floats"));
            CHECK(has(e, "16 bytes"));
            e = launch(duet::tile_map(*dx, 16, 32, 8, 8)); // 512 floats over 256
            CHECK(has(e, "over a buffer of 1024 bytes"));
            e = launch(duet::tile_map(*dx, 0, 32, 8, 8));
            CHECK(has(e, "empty"));
            // A good shape where the kernel wants the buffer itself: its kind, named.
            e = launch(duet::tile_map(*dx, 8, 32, 8, 32));
            CHECK(has(e, "argument 0"));
            CHECK(has(e, "buffer parameter"));
            CHECK(has(e, "duet::tile_map"));
        }
    }
}

TEST_CASE("contracts: one Kernel launched from several threads") {
    if (duet_test::under_oclgrind()) {
        // Oclgrind's own runtime crashes when several threads call it, whatever Duet does.
        MESSAGE("skipped under Oclgrind: its runtime is not thread-safe");
        return;
    }
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto k = dev->load_kernel("axpy", contract_options());
            const int threads = 4, n = 1024, rounds = 40;
            std::atomic<int> wrong{0};
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t)
                pool.emplace_back([&, t] {
                    auto q = dev->create_queue();
                    std::vector<float> x(n, float(t + 1)), y(n, 0.f);
                    auto dx = dev->alloc<float>(n), dy = dev->alloc<float>(n);
                    q->write(*dx, x);
                    q->write(*dy, y);
                    for (int r = 0; r < rounds; ++r)
                        q->launch(*k, Range(n).local(64), *dx, *dy, 1.f, n);
                    q->read(*dy, y);
                    for (int i = 0; i < n; ++i)
                        wrong += y[i] != float(rounds * (t + 1));
                });
            for (auto& th : pool)
                th.join();
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("contracts: ranges are checked before the driver sees them") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            Axpy ax(*dev, 64);
            auto& [k, q, dx, dy] = ax;
            const std::size_t huge = std::size_t{1} << 40;
            std::string e = usage_error(
                [&] { q->launch(*k, Range(huge, huge).local(1, 1), *dx, *dy, 1.f, 64); });
            CHECK(has(e, "size_t"));
            e = usage_error([&] { q->launch(*k, Range(huge, huge, huge), *dx, *dy, 1.f, 64); });
            CHECK(has(e, "size_t"));
            const std::size_t max = std::numeric_limits<std::size_t>::max();
            e = usage_error([&] { q->launch(*k, Range(max).local(256), *dx, *dy, 1.f, 64); });
            CHECK(has(e, "multiple"));
            e = usage_error([&] {
                q->launch(*k, Range(huge).local(k->max_work_group_size() * 2), *dx, *dy, 1.f, 64);
            });
            CHECK(has(e, "limit"));
            // No local size: the runtime's rule picks one that divides (1000 = 8 x 125).
            auto x = dev->alloc<float>(1000), y = dev->alloc<float>(1000);
            q->write(*x, std::vector<float>(1000, 1.f));
            q->write(*y, std::vector<float>(1000, 0.f));
            q->launch(*k, Range(1000), *x, *y, 2.f, 1000);
            std::vector<float> res(1000);
            q->read(*y, res);
            CHECK(std::count(res.begin(), res.end(), 2.f) == 1000);
        }
    }
}

TEST_CASE("contracts: a queue waits for its non-blocking transfers when destroyed") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            const std::size_t n = std::size_t{1} << 20;
            auto buf = dev->alloc<int>(n);
            std::vector<int> host(n, -1);
            {
                auto q = dev->create_queue();
                q->fill(*buf, 42, n);
                q->read(*buf, host, /*blocking=*/false);
            } // the queue's destructor waits: `host` is complete, and may be freed after
            CHECK(std::count(host.begin(), host.end(), 42) == static_cast<long>(n));
        }
    }
}
