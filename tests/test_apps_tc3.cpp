// matmul's tc3 step: where it runs (as tf32), its bound (float32's, not TF32's) and, on the
// emulated tensor cores of any OpenCL device, an error of float32's size where tf32's is TF32's.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <regex>
#include <string>

#include "app.hpp"
#include "matmul.hpp"
#include "matmul_reference.hpp"
#include "matmul_tc3.hpp"
#include "test_util.hpp"

namespace {

// The first number after `label` in a note ("max 9.7e-08"), or -1.
double note_number(const std::string& note, const std::string& label) {
    std::smatch m;
    if (!std::regex_search(note, m, std::regex(label + " ([0-9.e+-]+)")))
        return -1;
    return std::stod(m[1].str());
}

} // namespace

TEST_CASE("apps: matmul tc3 runs where tf32 does and says why elsewhere") {
    duet::DeviceInfo info;
    info.backend = "cuda";
    info.kernel_language = duet::KernelLanguage::cuda;
    info.name = "NVIDIA H100 80GB HBM3";
    info.architecture = "sm_90";
    info.extensions = {"nv.mma_sync", "nv.wgmma"};
    info.caps.matrix_units = info.caps.inline_asm = true;
    CHECK(duet::apps::tc3_unsupported(info).empty());
    info.architecture = "sm_75"; // tensor cores, but no TF32: no nv.mma_sync
    info.extensions.clear();
    const std::string why = duet::apps::tc3_unsupported(info);
    CHECK(why.find("tc3") != std::string::npos);
    CHECK(why.find("NVIDIA H100") != std::string::npos);
    info.backend = "opencl";
    info.kernel_language = duet::KernelLanguage::opencl_c;
    info.architecture = "sm_86"; // NVIDIA's OpenCL, capability 8.6
    info.extensions = {"nv.mma_sync"};
    CHECK(duet::apps::tc3_unsupported(info).empty());
    info.extensions.clear();
    info.caps = {};
    info.name = "pthread-haswell";
    CHECK(duet::apps::tc3_unsupported(info).find("pthread-haswell") != std::string::npos);
    CHECK_FALSE(duet::apps::tf32_unsupported(info).empty());
}

TEST_CASE(
    "apps: tc3's bound is float32's: beyond a float dot product's, 2^-21 sum|a b|, not 2^-10") {
    using duet::apps::matmul_ref::entry_bound;
    using duet::apps::matmul_ref::tf32_entry_bound;
    for (const std::size_t K : {1u, 29u, 300u, 8192u}) {
        INFO("K = " << K);
        const double tc3 = duet::apps::tc3_entry_bound(1.0, K);
        CHECK(tc3 >= entry_bound(1.0, K));
        const double split = tc3 - entry_bound(1.0, 3 * K); // what the split leaves out
        CHECK(split <= std::ldexp(1.0, -21) * (1 + 1e-12));
        CHECK(split * 1000 < tf32_entry_bound(1.0, K, false) - entry_bound(1.0, K));
    }
}

TEST_CASE("apps: tc3 on emulated tensor cores is as accurate as float32, tf32 is not") {
    const auto& app = duet::apps::find_app("matmul");
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            duet::apps::RunConfig cfg;
            cfg.size = {37, 53, 29};
            cfg.reps = 1;
            cfg.warmup = 0;
            cfg.defines = {{"DUET_TF32_EMULATE", "1"}};
            double tc3 = -1, tf32 = -1;
            for (const auto& v : app.variants()) {
                if (v.name != "tc3" && v.name != "tf32")
                    continue;
                const auto r = app.run(*dev, v, cfg);
                INFO(v.name << ": " << r.note);
                CHECK(r.pass);
                if (v.name == "tc3")
                    tc3 = note_number(r.note, "against the FP64 reference max");
                else
                    tf32 = note_number(r.note, "max \\|error\\|");
            }
            INFO("tc3 " << tc3 << ", tf32 " << tf32 << " of sum|a*b|");
            REQUIRE(tc3 >= 0);
            REQUIRE(tf32 >= 0);
            CHECK(tc3 < 1e-6); // float32's size (2^-23 is 1.2e-7)
            CHECK(tf32 > 20 * tc3);
        }
    }
}

TEST_CASE("apps: tf32's B^T pass (matmul_tf32_bt) writes B transposed, exactly, at odd sizes") {
    // NVIDIA's OpenCL wgmma build of tf32 reads B^T, written first by this kernel of
    // kernels_cl/matmul_tf32.cl (any OpenCL device can run it): every element moved, none lost
    // at the edges of its 32 x 32 tiles, nothing written past N x K.
    const duet::apps::Step* tf32 = nullptr;
    for (const auto& s : duet::apps::find_app("matmul").steps())
        if (s.name == "tf32")
            tf32 = &s;
    REQUIRE(tf32 != nullptr);
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            const auto shapes = duet::apps::shapes_of(*tf32, duet::apps::RunConfig{}, dev->info());
            REQUIRE(!shapes.empty());
            duet::BuildOptions opts;
            opts.defines = shapes.back().defines; // the smallest shape: fits every device
            auto k = dev->load_kernel("matmul_tf32_bt", opts);
            auto q = dev->create_queue();
            for (const auto& [K, N] :
                 {std::pair{37, 45}, std::pair{1, 70}, std::pair{64, 1}, std::pair{33, 96}}) {
                INFO("K " << K << " N " << N);
                std::vector<float> b(std::size_t(K) * N), bt(b.size() + 16, -7.0f);
                for (std::size_t i = 0; i < b.size(); ++i)
                    b[i] = float(i) + 0.5f;
                auto db = dev->alloc<float>(b.size());
                auto dbt = dev->alloc<float>(bt.size());
                q->write(*db, b);
                q->write(*dbt, bt);
                const std::size_t gx = (N + 31) / 32 * 32, gy = (K + 31) / 32 * 8;
                q->launch(*k, duet::Range(gx, gy).local(32, 8), *db, *dbt, K, N);
                q->read(*dbt, bt);
                int wrong = 0;
                for (int n = 0; n < N; ++n)
                    for (int kk = 0; kk < K; ++kk)
                        wrong += bt[std::size_t(n) * K + kk] != b[std::size_t(kk) * N + n];
                CHECK(wrong == 0);
                for (std::size_t i = b.size(); i < bt.size(); ++i)
                    CHECK(bt[i] == -7.0f);
            }
        }
    }
}

TEST_CASE("apps: tf32's row padding (matmul_tf32_pad) copies each row and zeros the rest") {
    // NVIDIA's OpenCL tf32 and tc3 fed by tile maps read A (and tf32 B) with rows padded to a
    // multiple of 4 floats by this kernel of kernels_cl/matmul_tf32_wgmma.cl where K (N) is not:
    // every element in place, zeros after it, rows beyond the grid's (3 groups of rows) done too.
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto k = dev->load_kernel("matmul_tf32_pad");
            auto q = dev->create_queue();
            for (const auto& [M, K] : {std::pair{7, 37}, std::pair{1, 1}, std::pair{10, 258}}) {
                const int Kp = (K + 3) / 4 * 4;
                INFO("M " << M << " K " << K);
                std::vector<float> a(std::size_t(M) * K), ap(std::size_t(M) * Kp + 8, -7.0f);
                for (std::size_t i = 0; i < a.size(); ++i)
                    a[i] = float(i) + 0.5f;
                auto da = dev->alloc<float>(a.size());
                auto dap = dev->alloc<float>(ap.size());
                q->write(*da, a);
                q->write(*dap, ap);
                q->launch(*k, duet::Range((Kp + 255) / 256 * 256, 3).local(256, 1), *da, *dap, M, K,
                          Kp);
                q->read(*dap, ap);
                int wrong = 0;
                for (int m = 0; m < M; ++m)
                    for (int c = 0; c < Kp; ++c)
                        wrong += ap[std::size_t(m) * Kp + c] !=
                                 (c < K ? a[std::size_t(m) * K + c] : 0.0f);
                CHECK(wrong == 0);
                for (std::size_t i = std::size_t(M) * Kp; i < ap.size(); ++i)
                    CHECK(ap[i] == -7.0f);
            }
        }
    }
}

TEST_CASE("apps: tc3's split B^T (matmul_tc3_bt): hi and lo are TF32 and sum to B, zeros around") {
    // NVIDIA's OpenCL tc3 fed by tile maps reads B^T split by this kernel of
    // kernels_cl/matmul_tc3_wgmma.cl (any OpenCL device can run it): rows n < Np hold hi, rows
    // Np + n lo, each Kp floats; both have TF32's 10-bit mantissa, hi is B within 2^-11 and hi +
    // lo within 2^-21 of it, and rows n >= N and columns k >= K are zero.
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto k = dev->load_kernel("matmul_tc3_bt");
            auto q = dev->create_queue();
            for (const auto& [K, N] : {std::pair{37, 45}, std::pair{3, 130}, std::pair{64, 1}}) {
                const int Kp = (K + 3) / 4 * 4, Np = (N + 127) / 128 * 128;
                INFO("K " << K << " N " << N);
                std::vector<float> b(std::size_t(K) * N), bt(2 * std::size_t(Np) * Kp, -7.0f);
                for (std::size_t i = 0; i < b.size(); ++i)
                    b[i] = std::ldexp(1.0f + float(i % 977) / 977.0f, int(i % 9) - 4) *
                           (i % 3 ? 1.0f : -1.0f);
                auto db = dev->alloc<float>(b.size());
                auto dbt = dev->alloc<float>(bt.size());
                q->write(*db, b);
                q->write(*dbt, bt);
                q->launch(*k, duet::Range(Np, (Kp + 31) / 32 * 8).local(32, 8), *db, *dbt, K, N, Kp,
                          Np);
                q->read(*dbt, bt);
                int wrong = 0;
                const auto tf32 = [](float x) {
                    return (std::bit_cast<uint32_t>(x) & 0x1fffu) == 0;
                };
                for (int n = 0; n < Np; ++n)
                    for (int kk = 0; kk < Kp; ++kk) {
                        const float hi = bt[std::size_t(n) * Kp + kk];
                        const float lo = bt[std::size_t(Np + n) * Kp + kk];
                        if (n >= N || kk >= K) {
                            wrong += hi != 0.0f || lo != 0.0f;
                            continue;
                        }
                        const double x = b[std::size_t(kk) * N + n];
                        wrong += !tf32(hi) || !tf32(lo) ||
                                 std::fabs(x - hi) > std::ldexp(std::fabs(x), -11) ||
                                 std::fabs(x - (double(hi) + lo)) > std::ldexp(std::fabs(x), -21);
                    }
                CHECK(wrong == 0);
            }
        }
    }
}
