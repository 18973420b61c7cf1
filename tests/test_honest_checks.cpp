// Results that never lie, the checks themselves: a sample says so and its row and column sums
// still see every output, every float of a reduction counts, guard zones on both sides of an
// output with a pattern of their own.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "conv5x5.hpp"
#include "cpu_steps.hpp"
#include "honest_util.hpp"
#include "matmul_reference.hpp"
#include "matmul_tc3.hpp"
#include "output.hpp"
#include "test_util.hpp"

using namespace duet::apps;
using duet_test::ChangedKernel;
using duet_test::quick;

TEST_CASE("a sampled check says so, and its sums catch a wrong element outside the sample") {
    Result r;
    r.variant = "naive";
    r.kernel_ms.median = 1.0;
    r.verified = r.pass = true;
    CHECK(runapp::check_label(r) == "PASS");
    r.sampled = true;
    CHECK(runapp::check_label(r) == "PASS (sample)");
    CHECK(runapp::to_json(r)["status"] == "pass");
    CHECK(runapp::to_json(r)["checked"] == "sample");
    // One entry of the app's output wrong (the last of row 37 plus 1), outside most samples.
    const std::vector<std::array<std::string, 3>> wrong = {
        {"matmul_naive.cl", "C[row * N + col] = acc;",
         "C[row * N + col] = acc + (row == 37 && col == N - 1 ? 1.0f : 0.0f);"},
        {"vecadd.cl", "c[i] = a[i] + b[i];", "c[i] = a[i] + b[i] + (i == 70001 ? 0.5f : 0.0f);"}};
    for (const auto& [file, from, to] : wrong) {
        ChangedKernel changed(file, from, to);
        const App& app = find_app(file == "vecadd.cl" ? "vecadd" : "matmul");
        for (auto* dev : duet_test::devices_of("opencl")) {
            SUBCASE((dev->info().id() + " " + file).c_str()) {
                RunConfig cfg = quick(app, file == "vecadd.cl" ? "100000" : "200x150x64");
                cfg.verify = Verify::sample;
                const auto bad = app.run(*dev, app.variants().front(), cfg);
                INFO(bad.note);
                CHECK(bad.sampled);
                CHECK(!bad.pass);
            }
        }
    }
}

TEST_CASE("sums: a sampled conv5x5 or matmul that is right passes; one wrong output fails") {
    // The reference sums against outputs computed in double (well inside every tolerance).
    const std::size_t W = 61, H = 47, K = 33;
    const auto img = random_floats(W * H, 3), filter = random_floats(25, 4);
    const auto b = random_floats(K * W, 5), a = random_floats(H * K, 6);
    std::vector<float> conv(W * H), mm(H * W);
    for (std::size_t y = 0; y < H; ++y)
        for (std::size_t x = 0; x < W; ++x) {
            double s = 0, m = 0;
            for (long long dy = 0; dy < 5; ++dy)
                for (long long dx = 0; dx < 5; ++dx)
                    s += double(filter[dy * 5 + dx]) *
                         img[std::clamp<long long>((long long)y + dy - 2, 0, H - 1) * W +
                             std::clamp<long long>((long long)x + dx - 2, 0, W - 1)];
            for (std::size_t k = 0; k < K; ++k)
                m += double(a[y * K + k]) * b[k * W + x];
            conv[y * W + x] = float(s);
            mm[y * W + x] = float(m);
        }
    Result r;
    r.pass = true;
    check_sums(r, conv, conv5x5_sums(img, filter, W, H));
    check_sums(r, mm, matmul_ref::matmul_sums(a, b, H, W, K));
    CHECK(r.pass);
    conv[20 * W + 30] += 0.01f;
    mm[46 * W + 60] -= 0.01f;
    check_sums(r, conv, conv5x5_sums(img, filter, W, H));
    CHECK(!r.pass);
    CHECK(r.note.find("row 20's sum") != std::string::npos);
    r.pass = true;
    check_sums(r, mm, matmul_ref::matmul_sums(a, b, H, W, K));
    CHECK(!r.pass);
}

TEST_CASE("sums: tc3's sampled check fails a wrong entry outside its sample") {
    const std::size_t M = 40, N = 56, K = 24;
    const auto a = random_floats(M * K, 7), b = random_floats(K * N, 8);
    std::vector<float> c(M * N);
    for (std::size_t i = 0; i < M; ++i)
        for (std::size_t j = 0; j < N; ++j) {
            double s = 0;
            for (std::size_t k = 0; k < K; ++k)
                s += double(a[i * K + k]) * b[k * N + j];
            c[i * N + j] = float(s);
        }
    std::vector<std::size_t> sample; // every third entry: (5, 1) is outside it
    for (std::size_t t = 0; t < M * N; t += 3)
        sample.push_back(t);
    const auto ref = matmul_ref::compute_reference(a, b, M, N, K, sample);
    REQUIRE(ref->sums);        // a sample carries the problem's row and column sums
    const auto checked = [&] { // as matmul's run sets a row up for its check
        Result r;
        r.error_kind = "of bound";
        r.tolerance = 1.0;
        r.verified = r.pass = r.sampled = true;
        tc3_check(r, c, *ref, a, b, N, K);
        return r;
    };
    CHECK(checked().pass);
    c[5 * N + 1] += 0.01f;
    const Result r = checked();
    CHECK_FALSE(r.pass);
    CHECK(r.note.find("row 5's sum") != std::string::npos);
}

TEST_CASE("every float counts: a reduction that loses one input fails, float as int") {
    // The interleaved step's first load changed to skip the last input value.
    ChangedKernel changed("reduction.cl", "sdata[lid] = gid < (uint)n ? in[gid] : (T)0;",
                          "sdata[lid] = gid + 1 < (uint)n ? in[gid] : (T)0;");
    const App& app = find_app("reduction");
    for (auto* dev : duet_test::devices_of("opencl"))
        for (const char* v : {"interleaved_f32", "interleaved_i32"})
            SUBCASE((dev->info().id() + " " + v).c_str()) {
                const auto r = app.run(*dev, select_variants(app, v).front(), quick(app, "100003"));
                INFO(r.note << " max error " << r.max_error << " tolerance " << r.tolerance);
                CHECK(r.verified);
                CHECK(!r.pass);
            }
}

TEST_CASE("guard zones: writes before the start, just past, far past the end fail, 0xFF too") {
    const std::vector<unsigned char> p = {1, 2, 3};
    CHECK(guard_intact({1, 2, 3}, p.data()));
    CHECK(!guard_intact({1, 0xFF, 3}, p.data()));
    CHECK(guard_zone_bytes(100, 256) == 4096);        // at least 4 KiB
    CHECK(guard_zone_bytes(1 << 20, 4096) == 131072); // an eighth of the output
    CHECK(guard_zone_bytes(std::size_t{1} << 32, 1) == std::size_t{16} << 20); // capped
    // A user kernel that writes the output and one more element, at `at`, with the poison's
    // own bytes (0xFF): element -1, n, and n + 300 (1200 bytes past the end).
    duet::BuildOptions opts;
    opts.sources.opencl = "__kernel void outside(__global float* c, int n, int at) {\n"
                          "  int i = get_global_id(0); if (i < n) c[i] = 1.0f;\n"
                          "  if (i == 0 && at != n - 1) c[at] = as_float(0xFFFFFFFFu); }\n";
    opts.sources.origin = "<outside>";
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            const int n = 1000;
            auto k = dev->load_kernel("outside", opts);
            auto q = dev->create_queue();
            // A checking device (Oclgrind) has no front zone: it reports such a write itself.
            const bool checker = dev->checker_reports() >= 0;
            for (const int at : {n - 1, -1, n, n + 300}) {
                CAPTURE(at);
                if (checker && at < 0)
                    continue;
                GuardedOutput c(*dev, *q, n * sizeof(float));
                REQUIRE(c.front_bytes() >= (checker ? 0 : 4096));
                REQUIRE(c.back_bytes() >= 4096);
                q->launch(*k, duet::Range(1024).local(64), c.buffer(), n, at);
                q->finish();
                Result r;
                r.verified = true;
                r.pass = true;
                c.check(r, *q);
                CHECK(r.pass == (at == n - 1));
                CHECK((r.note.find(at < 0 ? "before the start" : "past the end") !=
                       std::string::npos) == (at != n - 1));
            }
        }
    }
}

TEST_CASE("transfers: events that do not advance, or give a figure past the ceiling, are not "
          "believed") {
    // rusticl's events span a nanosecond: 64 MiB in 1e-6 ms would be 67108864 GB/s.
    const double bytes = 64.0 * (1 << 20);
    CHECK(transfer_ms(1e-6, 30.0, bytes, 100.0) == 30.0); // the host's
    CHECK(transfer_ms(29.0, 30.0, bytes, 100.0) == 29.0); // the events agree
    CHECK(transfer_ms(0.1, 1.0, bytes, 100.0) == 1.0);    // 671 GB/s: past the ceiling
    CHECK(transfer_ms(0.1, 0.2, bytes, 10.0) == 0.0);     // neither plausible: no figure
    CHECK(transfer_ms(0.1, 0.2, bytes, 0.0) == 0.1);      // no ceiling known
}

TEST_CASE("a device that ends long loops early gets enough work-items that none runs long") {
    duet::DeviceInfo info;
    CHECK(loop_bound_items(info, 1u << 30) == 1); // no limit
    info.max_loop_iterations = 65535;             // llvmpipe's
    CHECK(loop_bound_items(info, 100) == 1);
    CHECK(loop_bound_items(info, std::size_t{1} << 22) == 129); // 32767 iterations each at most
}
