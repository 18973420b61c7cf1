// Every variant of every app on every OpenCL device, on small and odd sizes (not multiples of
// any tile or work-group size), checked against the CPU reference. Run again under Oclgrind.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <tuple>
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
                        if (v.name == "tf32" && dev->info().backend == "opencl" &&
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

TEST_CASE(
    "apps: matmul tf32 runs where tensor cores are (compute capability 8.0+), else says why") {
    duet::DeviceInfo info;
    info.backend = "cuda";
    info.kernel_language = duet::KernelLanguage::cuda;
    info.name = "NVIDIA H100 80GB HBM3";
    info.device_version = "compute capability 9.0";
    info.caps.matrix_units = info.caps.inline_asm = true;
    CHECK(duet::apps::tf32_unsupported(info).empty());
    info.device_version = "compute capability 7.5"; // tensor cores, but no TF32
    CHECK(duet::apps::tf32_unsupported(info).find("compute capability 7.5") != std::string::npos);
    info.backend = "opencl"; // NVIDIA's OpenCL: cl_nv_device_attribute_query's capability
    info.kernel_language = duet::KernelLanguage::opencl_c;
    info.device_version = "OpenCL 3.0 CUDA";
    CHECK_FALSE(duet::apps::tf32_unsupported(info).empty());
    info.details = {{"Compute capability (NV)", "8.6"}};
    CHECK(duet::apps::tf32_unsupported(info).empty());
    info.caps.inline_asm = false; // a compiler that takes no PTX
    CHECK_FALSE(duet::apps::tf32_unsupported(info).empty());
    info.caps.inline_asm = true;
    info.details = {{"Compute capability (NV)", "7.0"}};
    CHECK_FALSE(duet::apps::tf32_unsupported(info).empty());
    info.details.clear(); // PoCL, AMD, Intel: no capability, the reason names the device
    info.caps = {};
    info.name = "pthread-haswell";
    info.vendor = "AuthenticAMD";
    CHECK(duet::apps::tf32_unsupported(info).find("pthread-haswell") != std::string::npos);
}

TEST_CASE("apps: matmul best takes warp tiles and 16-deep tiles on NVIDIA's OpenCL only, "
          "float loads where rows are unaligned, and never over the user's defines") {
    duet::DeviceInfo info; // NVIDIA's OpenCL on a GPU: inline PTX, 32-wide warps, 48 KiB
    info.backend = "opencl";
    info.kernel_language = duet::KernelLanguage::opencl_c;
    info.device_type = duet::DeviceType::gpu;
    info.caps.inline_asm = true;
    info.subgroup_width = 32;
    info.local_mem_bytes = 49152;
    duet::apps::RunConfig cfg;
    using D = duet::apps::Defines;
    CHECK(duet::apps::best_defines(cfg, info, 4096, 4096) ==
          D{{"BEST_WTX", "4"}, {"BEST_BK", "16"}});
    cfg.defines = {{"BEST_BK", "8"}, {"BEST_WTX", "0"}}; // the user's, to compare: kept
    CHECK(duet::apps::best_defines(cfg, info, 4096, 4096).empty());
    cfg.defines = {{"BEST_BK", "8"}};
    CHECK(duet::apps::best_defines(cfg, info, 4096, 4096) == D{{"BEST_WTX", "4"}});
    cfg.defines.clear();
    auto other = info; // AMD's 64-wide wavefronts, a device with 32 KiB, a CPU, CUDA: nothing
    other.subgroup_width = 64;
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4096).empty());
    other = info;
    other.local_mem_bytes = 32768;
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4096).empty());
    other = info;
    other.device_type = duet::DeviceType::cpu;
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4096).empty());
    other = info;
    other.caps.inline_asm = false;
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4096).empty());
    other = info;
    other.kernel_language = duet::KernelLanguage::cuda; // its kernel's own defaults
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4096).empty());
    // Rows not 16-byte aligned (B's N or A's K not a multiple of 4), on every device.
    CHECK(duet::apps::best_defines(cfg, other, 4097, 4096) == D{{"BEST_UNALIGNED", "1"}});
    CHECK(duet::apps::best_defines(cfg, other, 4096, 4098) == D{{"BEST_UNALIGNED", "1"}});
    CHECK(duet::apps::best_defines(cfg, info, 4095, 4096) ==
          D{{"BEST_UNALIGNED", "1"}, {"BEST_WTX", "4"}, {"BEST_BK", "16"}});
    cfg.defines = {{"BEST_UNALIGNED", "0"}}; // the user's 0 compares with the checked loads
    CHECK(duet::apps::best_defines(cfg, other, 4097, 4097).empty());
}

TEST_CASE("apps: matmul best split in K adds its slices up right, any number of them") {
    // Slices of K (grid z) write partial products that matmul_split_sum adds; 5 slices of 29 are
    // more than its 4 tiles of 8, so one slice is empty and must contribute zeros.
    auto devs = duet_test::devices_of("opencl");
    for (auto* d : duet_test::devices_of("cuda"))
        devs.push_back(d);
    const auto& app = duet::apps::find_app("matmul");
    std::optional<duet::apps::Variant> best; // variants() returns its list by value
    for (const auto& v : app.variants())
        if (v.name == "best")
            best = v;
    REQUIRE(best);
    for (auto* dev : devs)
        for (const char* splits : {"2", "3", "5"})
            for (const char* size : {"37x53x29", "129x65x257"}) {
                SUBCASE((dev->info().id() + " split " + splits + " " + size).c_str()) {
                    duet::apps::RunConfig cfg;
                    cfg.size = app.parse_size(size);
                    cfg.reps = 1;
                    cfg.warmup = 0;
                    // 3 slices of aligned copies (BEST_ALIGN), the others of the operands.
                    cfg.defines = {{"BEST_SPLITK", splits},
                                   {"BEST_ALIGN", std::string(splits) == "3" ? "1" : "0"}};
                    const auto r = app.run(*dev, *best, cfg);
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.pass);
                    CHECK(r.note.find(std::string("K split in ") + splits) != std::string::npos);
                }
            }
}

TEST_CASE("apps: matmul best gives C's thin edges to matmul_best_edge where that saves a wave") {
    duet::DeviceInfo gpu; // an H100 as the plan sees it: 132 compute units
    gpu.device_type = duet::DeviceType::gpu;
    gpu.compute_units = 132;
    gpu.max_work_group_size = 1024;
    duet::apps::RunConfig cfg;
    const auto plan = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                          std::size_t K) {
        const auto p = duet::apps::best_plan(cfg, info, M, N, K, 128, 256);
        return std::tuple{p.splits, p.edge_rows, p.edge_cols};
    };
    const auto aligned = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                             std::size_t K) {
        return duet::apps::best_plan(cfg, info, M, N, K, 128, 256).align;
    };
    // Whole blocks: nothing to do. 4097^2 is 561 blocks in 5 waves of 132, or split in 3, 13
    // waves of 3 slices with partial products to add; its 33x16 blocks of whole columns are 4
    // full waves (the last row of blocks computes one row of C, in time that is paid anyway), and
    // the last column is 129 edge tiles.
    CHECK(plan(gpu, 4096, 4096, 4096) == std::tuple{std::size_t(1), false, false});
    CHECK(plan(gpu, 4097, 4097, 4097) == std::tuple{std::size_t(1), false, true});
    CHECK(plan(gpu, 8193, 8193, 8193) == std::tuple{std::size_t(1), false, true}); // 65x32: 16
    // 5120^3: 800 whole blocks, 6.06 waves; split in 3, 19 waves of 3 slices.
    CHECK(plan(gpu, 5120, 5120, 5120) == std::tuple{std::size_t(3), false, false});
    auto gpu32 = gpu; // 32 compute units: only the 32x16 whole blocks make whole waves
    gpu32.compute_units = 32;
    CHECK(plan(gpu32, 4097, 4097, 4097) == std::tuple{std::size_t(1), true, true});
    // 4095 rows are 31 blocks and 127 rows, nearly a whole block: only the column goes to edges.
    CHECK(plan(gpu, 4095, 4097, 4099) == std::tuple{std::size_t(1), false, true});
    // 4000: 160 columns and 32 rows left, too wide for edge tiles to be cheaper.
    CHECK(plan(gpu, 4000, 4000, 4000) == std::tuple{std::size_t(1), false, false});
    auto cpu = gpu; // CPUs, and devices whose groups cannot hold 256 work-items: best alone
    cpu.device_type = duet::DeviceType::cpu;
    CHECK(plan(cpu, 4097, 4097, 4097) == std::tuple{std::size_t(1), false, false});
    auto small = gpu;
    small.max_work_group_size = 128;
    CHECK(std::get<0>(plan(small, 4097, 4097, 4097)) == 3); // the split fills the last wave
    CHECK_FALSE(std::get<2>(plan(small, 4097, 4097, 4097)));
    cfg.defines = {{"BEST_EDGES", "0"}};
    CHECK(plan(gpu, 4097, 4097, 4097) == std::tuple{std::size_t(3), false, false});
    cfg.defines.clear(); // 4224: 33 rows of blocks and a half column of them; 528 edge tiles
    CHECK(plan(gpu, 4224, 4224, 4224) == std::tuple{std::size_t(1), false, true});
    cfg.defines = {{"BEST_EDGES", "0"}}; // or split in 3 (13 waves)
    CHECK(plan(gpu, 4224, 4224, 4224) == std::tuple{std::size_t(3), false, false});
    cfg.defines = {{"BEST_EDGES", "1"}}; // the user's 1: every remainder, on any device
    CHECK(plan(cpu, 4000, 4096, 64) == std::tuple{std::size_t(1), true, false});
    // Aligned copies where N or K is not a multiple of 4: in CUDA on GPUs from 2048^3 up, or
    // when asked.
    cfg.defines.clear();
    CHECK_FALSE(aligned(gpu, 4096, 4097, 4096)); // an OpenCL device
    gpu.kernel_language = duet::KernelLanguage::cuda;
    CHECK(aligned(gpu, 4096, 4097, 4096));
    CHECK(aligned(gpu, 4096, 4096, 4097));
    CHECK_FALSE(aligned(gpu, 4097, 4096, 4096)); // M's rows are C's and A's count: aligned
    CHECK_FALSE(aligned(gpu, 1025, 1025, 1025));
    CHECK_FALSE(aligned(cpu, 4097, 4097, 4097));
    cfg.defines = {{"BEST_ALIGN", "1"}};
    CHECK(aligned(cpu, 5, 7, 9));
    CHECK_FALSE(aligned(cpu, 5, 8, 12)); // nothing to align
    cfg.defines.clear(); // copies of over 2^31-1 elements (M x Np here): not by default,
    CHECK_FALSE(aligned(gpu, 46340, 46341, 8));
    cfg.defines = {{"BEST_ALIGN", "1"}}; // and a usage error when asked
    CHECK_THROWS_AS(aligned(gpu, 46340, 46341, 8), duet::Error);
    cfg.defines = {{"BEST_ALIGN", "0"}};
    CHECK_FALSE(aligned(gpu, 4097, 4097, 4097));
    // Clamped loads (BEST_CLAMP) where rows are aligned and best's blocks reach past C's edges.
    cfg.defines.clear();
    const auto clamp = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                           std::size_t K) {
        return duet::apps::best_plan(cfg, info, M, N, K, 128, 256).clamp;
    };
    CHECK(clamp(gpu, 4000, 4000, 4000));
    CHECK(clamp(cpu, 300, 520, 260));
    CHECK_FALSE(clamp(gpu, 4096, 4096, 4096));
    CHECK(clamp(gpu, 4097, 4097, 4097));       // aligned copies; the last row of blocks is partial
    CHECK_FALSE(clamp(cpu, 4097, 4097, 4097)); // rows not aligned
    CHECK_FALSE(clamp(gpu32, 4096, 4097, 4096)); // (OpenCL: no copies) rows not aligned
    for (const duet::apps::Defines& bad :
         {duet::apps::Defines{{"BEST_ALIGN", "yes"}}, duet::apps::Defines{{"BEST_EDGES", "2"}},
          duet::apps::Defines{{"BEST_EDGES", "1"}, {"BEST_SPLITK", "2"}}}) {
        cfg.defines = bad;
        CHECK_THROWS_AS(plan(gpu, 4097, 4097, 4097), duet::Error);
    }
}

namespace {

// Every device of both backends, and matmul's best step run on one at `size`, fully checked.
std::vector<duet::Device*> all_devices() {
    auto devs = duet_test::devices_of("opencl");
    for (auto* d : duet_test::devices_of("cuda"))
        devs.push_back(d);
    return devs;
}

duet::apps::Result run_best(duet::Device& dev, const char* size, duet::apps::Defines defines) {
    const auto& app = duet::apps::find_app("matmul");
    for (const auto& v : app.variants())
        if (v.name == "best") {
            duet::apps::RunConfig cfg;
            cfg.size = app.parse_size(size);
            cfg.reps = 1;
            cfg.warmup = 0;
            cfg.verify = duet::apps::Verify::full;
            cfg.defines = std::move(defines);
            return app.run(dev, v, cfg);
        }
    FAIL("matmul has no best step");
    return {};
}

} // namespace

TEST_CASE("apps: matmul best with C's edges by matmul_best_edge gets every entry right") {
    // Thin and wide remainders, no whole block at all, one row, one column; with and without
    // aligned copies.
    for (auto* dev : all_devices())
        for (const char* size : {"131x259x37", "1x300x50", "300x1x70", "33x40x9"})
            for (const char* align : {"0", "1"}) {
                SUBCASE((dev->info().id() + " edges " + size + " align " + align).c_str()) {
                    const auto r =
                        run_best(*dev, size, {{"BEST_EDGES", "1"}, {"BEST_ALIGN", align}});
                    INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                    CHECK(r.pass);
                    CHECK(r.verified);
                    CHECK(r.note.find("by matmul_best_edge") != std::string::npos);
                    CHECK((r.note.find("matmul_best_copy") != std::string::npos) ==
                          (align[0] == '1'));
                }
            }
}

TEST_CASE("apps: matmul best's blocks at C's edges with clamped loads get every entry right") {
    // Aligned rows, blocks past C's last rows and columns (BEST_CLAMP from the plan), and the
    // same with the checked loads.
    for (auto* dev : all_devices())
        for (const char* clamp : {"0", "1"}) {
            SUBCASE((dev->info().id() + " clamp " + clamp).c_str()) {
                const auto r =
                    run_best(*dev, "132x260x20", {{"BEST_EDGES", "0"}, {"BEST_CLAMP", clamp}});
                INFO(dev->label() << " max error " << r.max_error << " " << r.note);
                CHECK(r.pass);
                CHECK(r.verified);
            }
        }
}

TEST_CASE("apps: a split of K beyond 64 slices is a usage error") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        const auto& app = duet::apps::find_app("matmul");
        for (const auto& v : app.variants())
            if (v.name == "best") {
                duet::apps::RunConfig cfg;
                cfg.size = app.parse_size("64");
                cfg.defines = {{"BEST_SPLITK", "65"}};
                try {
                    app.run(*dev, v, cfg);
                    FAIL("BEST_SPLITK=65 was accepted");
                } catch (const duet::Error& e) {
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(std::string(e.what()).find("BEST_SPLITK") != std::string::npos);
                }
            }
        break;
    }
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
