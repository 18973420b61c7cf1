// Conformance, on every device of every backend: launch contracts of ranges, threads and queue
// lifetime. Ranges are checked before the driver sees them (CUDA has grid limits as well as
// size_t's), one Kernel runs from several threads at once, and a queue waits for its
// non-blocking transfers when destroyed.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "contract_kernels.hpp"

using conformance::contains;
using conformance::usage_error;
using duet::Range;

TEST_CASE("conformance: ranges are checked before the driver sees them") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            conformance::Axpy ax(*dev, 64);
            auto& [k, q, dx, dy] = ax;
            if (!k)
                continue;
            const bool cuda = conformance::runs_cuda(*dev);
            // 2^40 x 2^40 work-items: refused for the size_t overflow of the product, or on CUDA
            // for the grid's limit (checked first there, as seen on the H100).
            const std::size_t huge = std::size_t{1} << 40;
            std::string e = usage_error(
                [&] { q->launch(*k, Range(huge, huge).local(1, 1), *dx, *dy, 1.f, 64); });
            CHECK((contains(e, "size_t") || (cuda && contains(e, "maxGridSize"))));
            e = usage_error([&] { q->launch(*k, Range(huge, huge, huge), *dx, *dy, 1.f, 64); });
            CHECK((contains(e, "size_t") || (cuda && contains(e, "maxGridSize"))));
            const std::size_t max = std::numeric_limits<std::size_t>::max();
            e = usage_error([&] { q->launch(*k, Range(max).local(256), *dx, *dy, 1.f, 64); });
            CHECK(contains(e, "multiple"));
            e = usage_error([&] {
                q->launch(*k, Range(huge).local(k->max_work_group_size() * 2), *dx, *dy, 1.f, 64);
            });
            CHECK(contains(e, "limit"));
            if (cuda) { // CUDA's grid: 65535 blocks in y and z (OpenCL has no such limit)
                e = usage_error(
                    [&] { q->launch(*k, Range(1, 1 << 20).local(1, 1), *dx, *dy, 1.f, 64); });
                CHECK(contains(e, "maxGridSize"));
            }
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

TEST_CASE("conformance: one Kernel launched from several threads") {
    if (duet_test::under_oclgrind()) {
        // Oclgrind's own runtime crashes when several threads call it, whatever Duet does.
        MESSAGE("skipped under Oclgrind: its runtime is not thread-safe");
        return;
    }
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto k = conformance::load_or_skip(*dev, "axpy", conformance::contract_program());
            if (!k)
                continue;
            const int threads = 4, n = 1024, rounds = 40;
            std::atomic<int> wrong{0};
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t)
                pool.emplace_back([&, t] {
                    auto tq = dev->create_queue();
                    std::vector<float> x(n, float(t + 1)), y(n, 0.f);
                    auto dx = dev->alloc<float>(n), dy = dev->alloc<float>(n);
                    tq->write(*dx, x);
                    tq->write(*dy, y);
                    for (int r = 0; r < rounds; ++r)
                        tq->launch(*k, Range(n).local(64), *dx, *dy, 1.f, n);
                    tq->read(*dy, y);
                    for (int i = 0; i < n; ++i)
                        wrong += y[i] != float(rounds * (t + 1));
                });
            for (auto& th : pool)
                th.join();
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("conformance: a queue waits for its non-blocking transfers when destroyed") {
    for (auto* dev : conformance::every_device()) {
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
