// Conformance, on every device of every backend: user kernels from strings (given in OpenCL C
// and in CUDA, each device builds its own), defines, scalars and local memory given as an
// argument; a second load of a program hits the caches.
#include <numeric>
#include <vector>

#include "conformance.hpp"

using duet::Range;

TEST_CASE("conformance: user kernels from strings, defines, scalars and local memory") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            auto opts = conformance::user_program(conformance::user_cl, conformance::user_cu,
                                                  "user source");
            opts.defines = {{"FACTOR", "2.0f"}};
            std::unique_ptr<duet::Kernel> k;
            try {
                k = dev->load_kernel("scale_add", opts);
            } catch (const duet::Error& e) {
                if (!conformance::compiler_missing(e))
                    throw;
                continue;
            }
            const int n = 300;
            std::vector<float> x(n, 1.5f), y(n, 1.f);
            auto dx = dev->alloc<float>(n), dy = dev->alloc<float>(n);
            q->write(*dx, x);
            q->write(*dy, y);
            q->launch(*k, Range(320).local(32), *dx, *dy, 3.0f, n);
            q->read(*dy, y);
            CHECK(y[0] == doctest::Approx(1.f + 3.f * 1.5f * 2.f));
            CHECK(y[n - 1] == doctest::Approx(10.f));

            auto r = dev->load_kernel("reverse_groups", opts);
            const int groups = 3, wg = 16;
            std::vector<int> in(groups * wg), out(groups * wg, 0);
            std::iota(in.begin(), in.end(), 0);
            auto din = dev->alloc<int>(in.size()), dout = dev->alloc<int>(in.size());
            q->write(*din, in);
            q->launch(*r, Range(groups * wg).local(wg), *din, *dout, duet::local(wg * sizeof(int)));
            q->read(*dout, out);
            CHECK(out[0] == wg - 1);
            CHECK(out[wg] == 2 * wg - 1);
            CHECK(out[groups * wg - 1] == 2 * wg);
        }
    }
}

TEST_CASE("conformance: a second load of a program hits the caches") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto k1 = dev->load_kernel("vecadd_naive");
            auto k2 = dev->load_kernel("vecadd_naive");
            CHECK(k2->cache_hit());
            CHECK(k2->provenance() == duet::Provenance::memory_cache);
            CHECK(k2->build_ms() == 0);
            CHECK(k1->build_options() == k2->build_options());
        }
    }
}
