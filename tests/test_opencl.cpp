// The runtime API on every OpenCL device: transfers, launches, local memory, user kernels,
// timing, and each kind of bad input giving a clear Error.
#include <cmath>
#include <numeric>

#include <doctest/doctest.h>

#include "test_util.hpp"

using duet::Error;
using duet::Range;

namespace {

const char* user_cl = R"(
__kernel void scale_add(__global const float* x, __global float* y, const float s, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = y[i] + s * x[i] * FACTOR;
}
// Reverses each work-group's slice through local memory given as an argument.
__kernel void reverse_groups(__global const int* in, __global int* out, __local int* tmp) {
    int l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
    tmp[l] = in[g * n + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g * n + l] = tmp[n - 1 - l];
}
)";

} // namespace

TEST_CASE("OpenCL devices: transfers, fills, copies and vecadd") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            MESSAGE("device: " << dev->label());
            auto q = dev->create_queue();
            const int n = 1000; // not a multiple of the work-group size
            std::vector<float> a(n), b(n), c(n, -1.f);
            std::iota(a.begin(), a.end(), 0.f);
            for (int i = 0; i < n; ++i)
                b[i] = 0.5f * float(i);
            auto da = dev->alloc<float>(n), db = dev->alloc<float>(n), dc = dev->alloc<float>(n);
            CHECK(da->size() == n * sizeof(float));
            q->write(*da, a);
            q->write(*db, b);
            for (const char* kname : {"vecadd_naive", "vecadd_vec4"}) {
                INFO(kname);
                q->fill(*dc, -7.f, n);
                auto k = dev->load_kernel(kname);
                CHECK(k->name() == kname);
                CHECK(k->max_work_group_size() >= 1);
                auto ev = q->launch(*k, Range(duet::round_up(n, 64)).local(64), *da, *db, *dc, n);
                q->read(*dc, c);
                CHECK(ev.elapsed_ms() >= 0);
                int wrong = 0;
                for (int i = 0; i < n; ++i)
                    wrong += c[i] != a[i] + b[i];
                CHECK(wrong == 0);
            }
            // Device-to-device copy and a read at an offset.
            auto dd = dev->alloc<float>(n);
            q->copy(*da, *dd, n * sizeof(float));
            std::vector<float> tail(10);
            q->read_bytes(*dd, tail.data(), 10 * sizeof(float), (n - 10) * sizeof(float));
            CHECK(tail[9] == a[n - 1]);
            // Pinned host memory round trip.
            auto pinned = dev->alloc_host(n * sizeof(float));
            std::fill_n(static_cast<float*>(pinned->data()), n, 0.f);
            q->read_bytes(*da, pinned->data(), n * sizeof(float));
            CHECK(static_cast<float*>(pinned->data())[123] == 123.f);
        }
    }
}

TEST_CASE("OpenCL devices: user kernels from strings, defines, scalars and local memory") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            duet::BuildOptions opts;
            opts.sources.opencl = user_cl;
            opts.sources.origin = "user.cl";
            opts.defines = {{"FACTOR", "2.0f"}};
            auto k = dev->load_kernel("scale_add", opts);
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

TEST_CASE("OpenCL devices: bad input is a clear Error, never a crash") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            auto buf = dev->alloc<float>(16);
            std::vector<float> big(32), small(16);

            CHECK_THROWS_WITH_AS(q->write(*buf, big),
                                 doctest::Contains("does not fit a buffer of 64 bytes"), Error);
            CHECK_THROWS_WITH_AS(q->read(*buf, big), doctest::Contains("does not fit"), Error);
            CHECK_THROWS_AS(q->read_bytes(*buf, small.data(), 8, 60), Error);

            // Over the device's largest allocation.
            const std::size_t huge = dev->info().max_alloc_bytes + 4096;
            CHECK_THROWS_WITH_AS(dev->alloc_bytes(huge), doctest::Contains("largest allocation"),
                                 Error);
            CHECK_THROWS_AS(dev->alloc_bytes(0), Error);

            // A kernel name that is nowhere, and one missing from a user program.
            CHECK_THROWS_WITH_AS(dev->load_kernel("no_such_kernel"),
                                 doctest::Contains("no OpenCL kernel named 'no_such_kernel'"),
                                 Error);
            duet::BuildOptions opts;
            opts.sources.opencl = user_cl;
            opts.sources.origin = "user.cl";
            opts.defines = {{"FACTOR", "1.0f"}};
            try {
                dev->load_kernel("missing", opts);
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::not_found);
                CHECK(std::string(e.what()).find("scale_add") != std::string::npos);
            }

            // A source that does not compile: the message holds the build log and the options.
            duet::BuildOptions broken;
            broken.sources.opencl =
                "__kernel void oops(__global float* p) { p[0] = undeclared_thing; }";
            broken.sources.origin = "broken.cl";
            try {
                dev->load_kernel("oops", broken);
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::build);
                CHECK(std::string(e.what()).find("broken.cl") != std::string::npos);
                CHECK(e.build_log().find("undeclared_thing") != std::string::npos);
            }

            // Local sizes over the device's limit, and ranges that do not divide.
            auto k = dev->load_kernel("vecadd_naive");
            const std::size_t over = dev->info().max_work_group_size * 2;
            CHECK_THROWS_WITH_AS(q->launch(*k, Range(over).local(over), *buf, *buf, *buf, 16),
                                 doctest::Contains("limit"), Error);
            CHECK_THROWS_WITH_AS(q->launch(*k, Range(100).local(64), *buf, *buf, *buf, 16),
                                 doctest::Contains("not a multiple"), Error);
            // A scalar of the wrong width for an int parameter.
            CHECK_THROWS_AS(q->launch(*k, Range(16).local(16), *buf, *buf, *buf, std::size_t{16}),
                            Error);
            // An empty event.
            CHECK_THROWS_AS(duet::Event().elapsed_ms(), Error);
            // Bad defines.
            duet::BuildOptions bad_define;
            bad_define.defines = {{"1BAD", "x"}};
            CHECK_THROWS_AS(dev->load_kernel("vecadd_naive", bad_define), Error);
        }
    }
}

TEST_CASE("OpenCL devices: a second load of a program hits the caches") {
    for (auto* dev : duet_test::devices_of("opencl")) {
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

TEST_CASE("OpenCL devices: a queue without timing runs the same work; its events cannot be timed") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue({.timing = false});
            const int n = 777;
            std::vector<float> a(n, 1.25f), c(n, 0.f);
            auto da = dev->alloc<float>(n), dc = dev->alloc<float>(n);
            q->write(*da, a);
            auto k = dev->load_kernel("vecadd_naive");
            auto ev = q->launch(*k, Range(duet::round_up(n, 64)).local(64), *da, *da, *dc, n);
            ev.wait();
            q->read(*dc, c);
            CHECK(c[0] == 2.5f);
            CHECK(c[n - 1] == 2.5f);
            CHECK_THROWS_WITH_AS(ev.elapsed_ms(), doctest::Contains("timing off"), Error);
        }
    }
}
