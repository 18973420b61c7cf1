// Every variant of every app on every OpenCL device, on small and odd sizes (not multiples of
// any tile or work-group size), checked against the CPU reference. Run again under Oclgrind.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "matmul.hpp" // matmul_steps, tf32_unsupported: which devices matmul's steps skip
#include "test_util.hpp"

namespace {

// Sizes that catch boundary bugs: 1, primes, one past a power of two. Oclgrind simulates
// every work-item, so it gets the smaller list.
std::vector<std::string> sizes_for(const std::string& app) {
    const bool sim = duet_test::under_oclgrind();
    static const std::map<std::string, std::vector<std::string>> full = {
        {"vecadd", {"1", "1000", "65537"}},
        {"matmul", {"1x1x1", "37x53x29", "129x65x257"}},
        {"conv5x5", {"1x1", "3x7", "37x53", "130x67"}},
        {"reduction", {"1", "1000", "65537", "1000003"}},
    };
    static const std::map<std::string, std::vector<std::string>> small = {
        {"vecadd", {"1", "1001"}},
        {"matmul", {"1x1x1", "37x53x29"}},
        {"conv5x5", {"1x1", "3x7", "37x21"}},
        {"reduction", {"1", "1000", "5003"}},
    };
    const auto& table = sim ? small : full;
    auto it = table.find(app);
    return it == table.end() ? std::vector<std::string>{} : it->second;
}

} // namespace

TEST_CASE("apps: every variant is correct on every device at odd sizes") {
    auto devs = duet_test::devices_of("opencl");
    for (auto* d : duet_test::devices_of("cuda"))
        devs.push_back(d);
    for (auto* dev : devs) {
        for (const auto* app : duet::apps::all_apps()) {
            const auto sizes = sizes_for(app->name());
            REQUIRE_MESSAGE(!sizes.empty(), "no test sizes for app " << app->name());
            for (const auto& size : sizes)
                for (const auto& v : app->variants()) {
                    SUBCASE((dev->info().id() + " " + app->name() + " " + v.name + " " + size)
                                .c_str()) {
                        duet::apps::RunConfig cfg;
                        cfg.size = app->parse_size(size);
                        cfg.reps = 1;
                        cfg.warmup = 0;
                        // matmul tf32 needs NVIDIA tensor cores; elsewhere (PoCL, Oclgrind) its
                        // OpenCL kernel runs with the mma emulated, which checks its fragments.
                        if ((v.name == "tf32" || v.name == "tc3") &&
                            dev->info().backend == "opencl" &&
                            !duet::apps::tf32_unsupported(dev->info()).empty())
                            cfg.defines.emplace_back("DUET_TF32_EMULATE", "1");
                        duet::apps::Result r;
                        try {
                            r = app->run(*dev, v, cfg);
                        } catch (const duet::Error& e) {
                            if (e.kind() != duet::ErrorKind::unsupported)
                                throw;
                            // On the small-device runs (tests/CMakeLists.txt) every step must
                            // find a shape that runs: a skip is a failure there.
                            if (std::getenv("DUET_TEST_NO_SKIP"))
                                FAIL("skipped on " << dev->label() << ": " << e.what());
                            MESSAGE("skipped on " << dev->label() << ": " << e.what());
                            continue;
                        }
                        INFO(dev->label() << " " << app->name() << " " << v.name << " size " << size
                                          << ": max error " << r.max_error << " (tolerance "
                                          << r.tolerance << ") " << r.note);
                        CHECK(r.verified);
                        CHECK(r.pass);
                        CHECK(r.kernel_ms.count == 1);
                    }
                }
        }
    }
}

TEST_CASE("apps: a wrong result is reported as a failure, not a pass") {
    // A vecadd kernel that skips the last element: the check must catch it.
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            const int n = 257;
            auto a = dev->alloc<float>(n), b = dev->alloc<float>(n), c = dev->alloc<float>(n);
            std::vector<float> ha(n, 1.f), hc(n);
            q->write(*a, ha);
            q->write(*b, ha);
            duet::apps::poison(*q, *c);
            auto k = dev->load_kernel("vecadd_naive");
            q->launch(*k, duet::Range(256).local(64), *a, *b, *c, n);
            q->read(*c, hc);
            CHECK(hc[0] == 2.f);
            CHECK(std::isnan(hc[n - 1])); // poisoned output the kernel never wrote stays NaN
        }
    }
}

TEST_CASE("apps: a kernel file built without its step record's tile macros names them") {
    // The kernels have no tile defaults (the step records are their one source): a build with no
    // defines fails with the #error naming the macro and the record, and with the record's
    // macros the same kernel builds. Not under Oclgrind, which reports every failed build as an
    // API error (what this test makes on purpose); the compiler's message is PoCL's to check.
    if (duet_test::under_oclgrind())
        return;
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            for (const auto& [kernel, macro] :
                 {std::pair{"matmul_wpt2", "WPT2_TS"}, std::pair{"matmul_reg4x4", "R4_BM"},
                  std::pair{"matmul_tiled16", "T16_TS"}, std::pair{"matmul_best", "BEST_BM"}}) {
                INFO(kernel);
                try {
                    dev->load_kernel(kernel);
                    FAIL("built with no tile macros");
                } catch (const duet::Error& e) {
                    const std::string what = std::string(e.what()) + e.build_log();
                    CHECK(what.find(macro) != std::string::npos);
                    CHECK(what.find("set by the host from the step record") != std::string::npos);
                    CHECK(what.find("apps/ladders/matmul_steps.cpp") != std::string::npos);
                }
            }
            duet::BuildOptions opts;
            opts.defines = {{"WPT2_TS", "16"}};
            CHECK(dev->load_kernel("matmul_wpt2", opts) != nullptr);
        }
    }
}

TEST_CASE("apps: matmul's register steps refuse no OpenCL device, PoCL 5 included") {
    // PoCL 5.0's work-group compiler aborted on reg4x4/reg8x8 until their tile loads were
    // reshaped (kernels_cl/matmul.clh, matmul_load4): they are no longer skipped there.
    duet::DeviceInfo info;
    info.backend = "opencl";
    info.platform_version = "OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC, LLVM 16.0.6";
    int seen = 0;
    for (const auto& step : duet::apps::matmul_steps())
        if (step.name == "reg4x4" || step.name == "reg8x8") {
            ++seen;
            INFO(step.name);
            CHECK(step.needs.refuses_note.empty());
            CHECK((!step.needs.refuses || step.needs.refuses(info).empty()));
        }
    CHECK(seen == 2);
}

TEST_CASE("apps: matmul tf32 runs where the device has nv.mma_sync, else says why") {
    duet::DeviceInfo info;
    info.backend = "cuda";
    info.kernel_language = duet::KernelLanguage::cuda;
    info.name = "NVIDIA H100 80GB HBM3";
    info.architecture = "sm_90";
    info.extensions = {"nv.mma_sync", "nv.wgmma"};
    info.caps.matrix_units = info.caps.inline_asm = true;
    CHECK(duet::apps::tf32_unsupported(info).empty());
    info.architecture = "sm_75"; // tensor cores, but no TF32: no nv.mma_sync
    info.extensions.clear();
    CHECK(duet::apps::tf32_unsupported(info).find("sm_75") != std::string::npos);
    info.backend = "opencl"; // NVIDIA's OpenCL: cl_nv_device_attribute_query's capability
    info.kernel_language = duet::KernelLanguage::opencl_c;
    info.device_version = "OpenCL 3.0 CUDA";
    info.architecture.clear(); // none reported
    CHECK_FALSE(duet::apps::tf32_unsupported(info).empty());
    info.architecture = "sm_86";
    info.extensions = {"nv.mma_sync"};
    CHECK(duet::apps::tf32_unsupported(info).empty());
    // Another vendor's GPU with matrix units, inline assembly and an architecture that reads
    // like a 9.x: no NVIDIA extension, so no tf32 (a version number no longer opens the gate).
    info = {};
    info.name = "AMD Instinct MI250X";
    info.vendor = "Advanced Micro Devices, Inc.";
    info.architecture = "gfx90a";
    info.caps.matrix_units = info.caps.inline_asm = true;
    CHECK(duet::apps::tf32_unsupported(info).find("gfx90a") != std::string::npos);
    info = {}; // PoCL, Intel: no architecture, the reason names the device and its vendor
    info.name = "pthread-haswell";
    info.vendor = "AuthenticAMD";
    CHECK(duet::apps::tf32_unsupported(info).find("pthread-haswell") != std::string::npos);
    CHECK(duet::apps::tf32_unsupported(info).find("AuthenticAMD") != std::string::npos);
}

TEST_CASE("apps: the cpu steps' streamed stores write what the ordinary ones do") {
    // vecadd's and conv5x5's cpu steps stream their stores past the cache only for outputs
    // larger than the device's cache (kernels_cl/cpu_stream.clh); a cache of 0 bytes makes every
    // size take that path, odd sizes and unaligned rows included.
    for (auto* dev : duet_test::devices_of("opencl"))
        for (const char* app_name : {"vecadd", "conv5x5"}) {
            const auto& app = duet::apps::find_app(app_name);
            std::optional<duet::apps::Variant> cpu;
            for (const auto& v : app.variants())
                if (v.name == "cpu")
                    cpu = v;
            REQUIRE(cpu);
            const std::vector<std::string> sizes =
                std::string(app_name) == "vecadd"
                    ? std::vector<std::string>{"1", "1001", "65536"}
                    : std::vector<std::string>{"3x7", "37x21",
                                               duet_test::under_oclgrind() ? "64x9" : "1030x67"};
            for (const auto& size : sizes)
                SUBCASE((dev->info().id() + " " + app_name + " " + size).c_str()) {
                    duet::apps::RunConfig cfg;
                    cfg.size = app.parse_size(size);
                    cfg.reps = 1;
                    cfg.warmup = 0;
                    cfg.verify = duet::apps::Verify::full;
                    cfg.defines = {{"CPU_CACHE_BYTES", "0"}};
                    const auto r = app.run(*dev, *cpu, cfg);
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.verified);
                    CHECK(r.pass);
                }
        }
}

TEST_CASE("apps: matmul's cpu step over several blocks of K and partial groups") {
    // kernels_cl/matmul_cpu.cl packs B's panel per block of K (CPU_KC) and keeps its sums across
    // the blocks; the odd sizes of the test above have one block at the default 256. A block of
    // 8 makes 37x53x29 four blocks, the last a part one, with partial groups at both edges, and
    // small groups (3 x 2 blocks) several groups each way.
    for (auto* dev : duet_test::devices_of("opencl")) {
        const auto& app = duet::apps::find_app("matmul");
        std::optional<duet::apps::Variant> cpu;
        for (const auto& v : app.variants())
            if (v.name == "cpu")
                cpu = v;
        REQUIRE(cpu);
        for (const char* gm : {"16", "3"})
            SUBCASE((dev->info().id() + " CPU_KC=8 CPU_GM=" + gm).c_str()) {
                duet::apps::RunConfig cfg;
                cfg.size = app.parse_size("37x53x29");
                cfg.reps = 1;
                cfg.warmup = 0;
                cfg.verify = duet::apps::Verify::full;
                cfg.defines = {
                    {"CPU_KC", "8"}, {"CPU_GM", gm}, {"CPU_GN", gm[0] == '3' ? "2" : "4"}};
                const auto r = app.run(*dev, *cpu, cfg);
                INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                CHECK(r.verified);
                CHECK(r.pass);
            }
    }
}
