// matmul's best step, its host rules: its defines per device and its plan for a problem (a split
// of K, thin edges by matmul_best_edge, aligned copies, clamped loads, stream-K and its schedule:
// apps/ladders/matmul_best_plan.cpp), without a device. test_apps_best.cpp runs each plan.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "matmul.hpp" // best_defines, best_plan

namespace {

// NVIDIA's OpenCL on an H100 as best's rules see it: `info` as an OpenCL GPU of architecture
// sm_90 with inline PTX (and its device-scope fence), 32-wide warps and 48 KiB of local
// memory (the profile row apps/profiles/device_profiles.json gives it).
duet::DeviceInfo nvidia_opencl(duet::DeviceInfo info) {
    info.kernel_language = duet::KernelLanguage::opencl_c;
    info.vendor = "NVIDIA Corporation";
    info.architecture = "sm_90";
    info.device_type = duet::DeviceType::gpu;
    info.caps.inline_asm = true;
    info.caps.device_scope_fence = true;
    info.subgroup_width = 32;
    info.local_mem_bytes = 49152;
    return info;
}

} // namespace

TEST_CASE("apps: matmul best takes warp tiles and 16-deep tiles on NVIDIA's OpenCL only, "
          "float loads where rows are unaligned, and never over the user's defines") {
    duet::DeviceInfo info = nvidia_opencl({});
    info.backend = "opencl";
    duet::apps::RunConfig cfg;
    using D = duet::apps::Defines;
    // best's defines and the device profile's, as a run adds them (add_step_defines).
    const auto best = duet::apps::select_variants(duet::apps::find_app("matmul"), "best").front();
    const auto build = [&](const duet::DeviceInfo& i, std::size_t N, std::size_t K) {
        duet::BuildOptions o;
        o.defines = duet::apps::best_defines(cfg, N, K);
        duet::apps::add_step_defines("matmul", best, o, i, cfg);
        return o.defines;
    };
    // NVIDIA's compiler's hints (any NVIDIA OpenCL), then the H100 row's warp and deep tiles.
    const D nv{{"DUET_UNROLL_HINTS", "1"},
               {"DUET_PTX_ASM", "1"},
               {"BEST_WAVES_ORDER", "3"},
               {"BEST_STREAM_ORDER", "4"}};
    const auto with_nv = [&](const D& own) {
        D out = nv;
        out.insert(out.end(), own.begin(), own.end());
        return out;
    };
    CHECK(build(info, 4096, 4096) == with_nv({{"BEST_WTX", "4"}, {"BEST_BK", "16"}}));
    cfg.defines = {{"BEST_BK", "8"}, {"BEST_WTX", "0"}}; // the user's, to compare: kept
    CHECK(build(info, 4096, 4096) == nv);
    cfg.defines = {{"BEST_BK", "8"}};
    CHECK(build(info, 4096, 4096) == with_nv({{"BEST_WTX", "4"}}));
    cfg.defines.clear();
    auto other = info; // AMD's 64-wide wavefronts, a device with 32 KiB: the hints only
    other.subgroup_width = 64;
    CHECK(build(other, 4096, 4096) == nv);
    other = info;
    other.local_mem_bytes = 32768;
    CHECK(build(other, 4096, 4096) == nv);
    other = info;
    other.device_type = duet::DeviceType::cpu;
    CHECK(build(other, 4096, 4096).empty());
    other = info;
    other.caps.inline_asm = false;
    CHECK(build(other, 4096, 4096).empty());
    other = info;
    other.kernel_language = duet::KernelLanguage::cuda; // its kernel's own defaults
    CHECK(build(other, 4096, 4096).empty());
    // Rows not 16-byte aligned (1: A's, K not a multiple of 4; 2: B's, N not), on every device.
    CHECK(build(other, 4097, 4096) == D{{"BEST_UNALIGNED", "2"}});
    CHECK(build(other, 4096, 4098) == D{{"BEST_UNALIGNED", "1"}});
    CHECK(build(other, 4099, 4098) == D{{"BEST_UNALIGNED", "3"}});
    D unaligned{{"BEST_UNALIGNED", "2"}};
    for (const auto& d : with_nv({{"BEST_WTX", "4"}, {"BEST_BK", "16"}}))
        unaligned.push_back(d);
    CHECK(build(info, 4095, 4096) == unaligned);
    cfg.defines = {{"BEST_UNALIGNED", "0"}}; // the user's 0 compares with the checked loads
    CHECK(build(other, 4097, 4097).empty());
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
    using Copies = std::tuple<bool, bool, std::size_t, std::size_t>; // copy_a, copy_b, n, k
    const auto copies = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                            std::size_t K) {
        const auto p = duet::apps::best_plan(cfg, info, M, N, K, 128, 256);
        return Copies{p.copy_a, p.copy_b, p.n, p.k};
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
    // Aligned copies where N or K is not a multiple of 4, on GPUs from 2048^3 up (OpenCL and
    // CUDA alike), or when asked: A where K is not (and then B with Kp rows), B where N is not.
    cfg.defines.clear();
    const auto plain = [&](std::size_t N, std::size_t K) { return Copies{false, false, N, K}; };
    CHECK(copies(gpu, 4096, 4097, 4096) == Copies{false, true, 4100, 4096}); // OpenCL
    CHECK(copies(gpu, 4096, 4096, 4097) == Copies{true, true, 4096, 4100});
    gpu.kernel_language = duet::KernelLanguage::cuda; // the H100 through CUDA
    gpu.vendor = "NVIDIA Corporation";
    gpu.architecture = "sm_90";
    CHECK(copies(gpu, 4096, 4097, 4096) == Copies{false, true, 4100, 4096});
    CHECK(copies(gpu, 4096, 4096, 4097) == Copies{true, true, 4096, 4100});
    CHECK(copies(gpu, 4097, 4097, 4097) == Copies{true, true, 4100, 4100});
    CHECK(copies(gpu, 4097, 4096, 4096) == plain(4096, 4096)); // M counts rows: aligned
    CHECK(copies(gpu, 1025, 1025, 1025) == plain(1025, 1025));
    CHECK(copies(cpu, 4097, 4097, 4097) == plain(4097, 4097));
    cfg.defines = {{"BEST_ALIGN", "1"}};
    CHECK(copies(cpu, 5, 7, 9) == Copies{true, true, 8, 12});
    CHECK(copies(cpu, 5, 8, 12) == plain(8, 12)); // nothing to align
    cfg.defines = {{"BEST_ALIGN", "2"}};
    CHECK(copies(cpu, 5, 7, 9) == Copies{false, true, 8, 9});
    CHECK(copies(cpu, 5, 8, 9) == plain(8, 9));
    cfg.defines.clear(); // copies of over 2^31-1 elements (B's Kp x Np here): not by default,
    CHECK(copies(gpu, 8, 46340, 46341) == plain(46340, 46341));
    CHECK(copies(gpu, 8, 46340, 46337) == Copies{true, true, 46340, 46340}); // 46340^2 < 2^31
    cfg.defines = {{"BEST_ALIGN", "1"}}; // and a usage error when asked
    CHECK_THROWS_AS(copies(gpu, 8, 46340, 46341), duet::Error);
    cfg.defines = {{"BEST_ALIGN", "0"}};
    CHECK(copies(gpu, 4097, 4097, 4097) == plain(4097, 4097));
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
    CHECK_FALSE(clamp(cpu, 4097, 4097, 4097)); // B's rows not aligned
    CHECK_FALSE(clamp(cpu, 300, 521, 260));
    CHECK(clamp(cpu, 300, 520, 261)); // A's rows by float: clamped all the same
    // NVIDIA's OpenCL in waves: clamped only where its edge blocks, by the checked loop (20%
    // slower), would end the run later than clamped blocks (3.5% slower each) in their waves.
    // 4097^2's 33 x 16 blocks are 4 whole waves whose last row ends them (4.2 against 4.14);
    // 8191^2's 64 x 32 end at 16.2 against 16 x 1.035 = 16.56, 6000^2's 47 x 24 at 9.2 against
    // 9.32. CUDA keeps its clamps (a clamped block costs it 1.3%).
    const auto nv = nvidia_opencl(gpu);
    CHECK(clamp(nv, 4097, 4097, 4097));
    CHECK(clamp(nv, 4095, 4097, 4099));
    CHECK_FALSE(clamp(nv, 8191, 8191, 8191));
    CHECK_FALSE(clamp(nv, 8193, 8193, 8193));
    CHECK_FALSE(clamp(nv, 6000, 6000, 6000));
    CHECK_FALSE(clamp(nv, 10000, 10000, 10000));
    auto nv_cuda = nv;
    nv_cuda.kernel_language = duet::KernelLanguage::cuda;
    CHECK_FALSE(clamp(nv, 6150, 6150, 6150)); // 6150^2 in waves: unclamped here, clamped in CUDA
    CHECK(clamp(nv_cuda, 6150, 6150, 6150));
    CHECK(clamp(gpu, 8193, 8193, 8193)); // an OpenCL GPU that is not NVIDIA's: unmeasured, kept
    // The schedule behind it: blocks in launch order, each compute unit taking the next when free.
    CHECK(duet::apps::best_waves_slow_edges(2, 2, true, false, 2, 0.5) == doctest::Approx(2.5));
    CHECK(duet::apps::best_waves_slow_edges(2, 2, false, false, 2, 0.5) == doctest::Approx(2.0));
    CHECK(duet::apps::best_waves_slow_edges(3, 1, false, true, 2, 0.5) == doctest::Approx(3.0));
    CHECK(duet::apps::best_waves_slow_edges(3, 3, true, false, 4, 0.2) == doctest::Approx(3.2));
    CHECK(duet::apps::best_waves_slow_edges(1, 5, false, true, 8, 0.2) == doctest::Approx(1.2));
    for (const duet::apps::Defines& bad :
         {duet::apps::Defines{{"BEST_ALIGN", "yes"}}, duet::apps::Defines{{"BEST_ALIGN", "3"}},
          duet::apps::Defines{{"BEST_EDGES", "2"}},
          duet::apps::Defines{{"BEST_EDGES", "1"}, {"BEST_SPLITK", "2"}}}) {
        cfg.defines = bad;
        CHECK_THROWS_AS(plan(gpu, 4097, 4097, 4097), duet::Error);
    }
}

TEST_CASE("apps: matmul best spreads its blocks over the compute units where kernels take PTX") {
    duet::DeviceInfo gpu; // an H100 in CUDA as the plan sees it: 132 compute units, PTX
    gpu.device_type = duet::DeviceType::gpu;
    gpu.kernel_language = duet::KernelLanguage::cuda;
    gpu.vendor = "NVIDIA Corporation";
    gpu.architecture = "sm_90";
    gpu.compute_units = 132;
    gpu.max_work_group_size = 1024;
    gpu.caps.inline_asm = true;
    gpu.caps.device_scope_fence = true;
    duet::apps::RunConfig cfg;
    using Plan = std::tuple<bool, std::size_t, bool, bool>; // stream, splits, edge_cols, sum
    const auto plan = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                          std::size_t K) {
        const auto p = duet::apps::best_plan(cfg, info, M, N, K, 128, 256);
        return Plan{p.stream, p.splits, p.edge_cols, p.stream_sum};
    };
    // 4224^2: 561 blocks, 4.25 waves of 132 run as 5; spread, 3 rounds and the last 165 blocks
    // shared (at 0.92 of best's speed): 4.36. 5120^2: 800 blocks, 6.06 waves; spread rather than
    // split. 8192^2: 2048 blocks, 15.5 waves: 14 rounds and 200 blocks shared, 15.65.
    CHECK(plan(gpu, 4224, 4224, 4224) == Plan{true, 1, false, false});
    CHECK(plan(gpu, 5120, 5120, 5120) == Plan{true, 1, false, false});
    CHECK(plan(gpu, 8192, 8192, 8192) == Plan{true, 1, false, false});
    // Not where a wave is nearly full: 4096^2's 512 blocks (3.88 waves: 2 rounds and 248 blocks
    // shared make 4.04), 4224 x 4096's 528 (4); 4097^2: 33x16 whole waves and the edge column.
    CHECK(plan(gpu, 4096, 4096, 4096) == Plan{false, 1, false, false});
    CHECK(plan(gpu, 4224, 4096, 4096) == Plan{false, 1, false, false});
    CHECK(plan(gpu, 4097, 4097, 4097) == Plan{false, 1, true, false});
    CHECK(plan(gpu, 128, 256, 64) == Plan{false, 1, false, false}); // one block: nothing to spread
    // C's unaligned rows out through local memory (BEST_ROWS_OUT) by best's blocks in waves only:
    // 4097^2 and 4095x4097x4099 in waves (with the edge column); not 8191^2 and 8193^2, spread
    // (8193^2's whole blocks, with its last row and column by the edge kernel), nor 4100, whose
    // rows of C are aligned.
    const auto rows_out = [&](std::size_t M, std::size_t N, std::size_t K) {
        return duet::apps::best_plan(cfg, gpu, M, N, K, 128, 256).rows_out;
    };
    CHECK(rows_out(4097, 4097, 4097));
    CHECK(rows_out(4095, 4097, 4099));
    CHECK(rows_out(4096, 4095, 4096));
    CHECK_FALSE(rows_out(4097, 4100, 4097));
    CHECK(plan(gpu, 8193, 8193, 8193) == Plan{true, 1, true, false});
    CHECK_FALSE(rows_out(8193, 8193, 8193));
    CHECK(plan(gpu, 8191, 8191, 8191) == Plan{true, 1, false, false});
    CHECK_FALSE(rows_out(8191, 8191, 8191));
    CHECK_FALSE(rows_out(300, 300, 300));
    CHECK(rows_out(300, 301, 300));
    // Warp tiles 8 wide for clamped blocks spread in CUDA (8191^2: 64 rows of blocks, the last
    // clamped), the kernel's 4 elsewhere in CUDA (8192^2; 4097^2 in waves); in NVIDIA's OpenCL for
    // blocks all inside C, spread (below).
    const auto stream_defines = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                                    std::size_t K) {
        return duet::apps::best_stream_defines(
            duet::apps::best_plan(cfg, info, M, N, K, 128, 256), info,
            duet::apps::best_all_inside(M, N, N, K, 128, 256, 16));
    };
    const auto sets = [](const duet::apps::Defines& d, const char* name, const char* value) {
        return std::count(d.begin(), d.end(), std::pair<std::string, std::string>{name, value}) ==
               1;
    };
    const auto wide = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                          std::size_t K) {
        return sets(stream_defines(info, M, N, K), "BEST_WTX", "8");
    };
    CHECK(wide(gpu, 8191, 8191, 8191));
    CHECK_FALSE(wide(gpu, 8192, 8192, 8192));
    CHECK_FALSE(wide(gpu, 4097, 4097, 4097));
    CHECK(duet::apps::best_plan(cfg, gpu, 4224, 4224, 4224, 128, 256).groups == 132);
    // NVIDIA's OpenCL: over whole blocks and tiles (its build without the checked loop, B's
    // columns swapped) rounds at 1.005 of best's speed and the shared rest at 0.91, so 5120^2 (5
    // rounds and 1.06 shared: 6.14 against 7 waves), 8192^2 (15.60 against 16), 6144^2 (8.87
    // against 9) and 4224 x 4096 (four whole rounds, 3.98) spread, and 4096^2 not (2 rounds and
    // 1.88 shared, 4.06 against 4); elsewhere 0.91 and 0.87, so 4224^2 takes the edge column
    // (its 33 x 16 whole blocks in four whole rounds, 3.98, and the strip, against 4.73 spread).
    const auto nv_opencl = nvidia_opencl(gpu);
    CHECK(plan(nv_opencl, 5120, 5120, 5120) == Plan{true, 1, false, false});
    cfg.defines = {{"BEST_STREAM", "1"}}; // spread and clamped at the user's word: OpenCL keeps 4
    CHECK(duet::apps::best_plan(cfg, nv_opencl, 8191, 8191, 8191, 128, 256).clamp);
    CHECK_FALSE(wide(nv_opencl, 8191, 8191, 8191));
    cfg.defines.clear();
    CHECK(plan(nv_opencl, 8192, 8192, 8192) == Plan{true, 1, false, false});
    CHECK(plan(nv_opencl, 4096, 4096, 4096) == Plan{false, 1, false, false}); // 4.06 against 4
    CHECK(plan(nv_opencl, 6144, 6144, 6144) == Plan{true, 1, false, false});
    CHECK(plan(nv_opencl, 4224, 4096, 4096) == Plan{true, 1, false, false});
    CHECK(plan(gpu, 6144, 6144, 6144) == Plan{true, 1, false, false}); // CUDA: 8.95 against 9
    // CUDA's clamped blocks cost 1.3% each: 10000^2's 79 x 40 clamped blocks in waves (24 x 1.013
    // = 24.31) lose to its 78 x 39 whole ones spread and the 16-row strips by the edge kernel
    // (24.10); 7000^2, 6000^2 and 8191^2 stay clamped and spread.
    const auto full = [&](std::size_t n) {
        return duet::apps::best_plan(cfg, gpu, n, n, n, 128, 256);
    };
    CHECK(full(10000).stream);
    CHECK(full(10000).edge_rows);
    CHECK(full(10000).edge_cols);
    CHECK_FALSE(full(10000).clamp);
    for (const std::size_t n : {7000, 6000, 8191}) {
        INFO(n);
        CHECK(full(n).stream);
        CHECK(full(n).clamp);
        CHECK_FALSE(full(n).edge_rows);
        CHECK_FALSE(full(n).edge_cols);
    }
    // Its stream kernel over blocks all inside C (8192^2, 5120^2) with warp tiles 8 wide; not in
    // waves (4096^2), nor over clamped blocks (8191^2 at the user's word), nor on an OpenCL GPU
    // that is not NVIDIA's (64-wide sub-groups).
    CHECK(wide(nv_opencl, 8192, 8192, 8192));
    CHECK(wide(nv_opencl, 5120, 5120, 5120));
    CHECK_FALSE(wide(nv_opencl, 4096, 4096, 4096));
    // There also B's columns swapped in pairs, the multiply-adds in order 3; never in CUDA.
    const auto swapped = [&](const duet::DeviceInfo& info, std::size_t M, std::size_t N,
                             std::size_t K) {
        const auto d = stream_defines(info, M, N, K);
        return sets(d, "BEST_BSWAP", "1") && sets(d, "BEST_ORDER", "3");
    };
    CHECK(swapped(nv_opencl, 8192, 8192, 8192));
    CHECK(swapped(nv_opencl, 5120, 5120, 5120));
    CHECK_FALSE(swapped(nv_opencl, 4096, 4096, 4096));
    CHECK_FALSE(swapped(gpu, 8192, 8192, 8192));
    CHECK(stream_defines(gpu, 8192, 8192, 8192).empty());
    cfg.defines = {{"BEST_STREAM", "1"}};
    CHECK(wide(nv_opencl, 4096, 4096, 4096)); // spread at the user's word, all inside
    auto amd = nv_opencl;
    amd.subgroup_width = 64;
    CHECK_FALSE(wide(amd, 8192, 8192, 8192));
    CHECK(stream_defines(amd, 8192, 8192, 8192).empty());
    cfg.defines.clear();
    CHECK(plan(nv_opencl, 4224, 4224, 4224) == Plan{true, 1, true, false});
    // A GPU whose kernels take no PTX: its fence is not known to reach other groups.
    auto other = nv_opencl;
    other.caps.inline_asm = false;
    other.caps.device_scope_fence = false;
    CHECK(plan(other, 4224, 4224, 4224) == Plan{false, 1, true, true}); // the edge column
    cfg.defines = {{"BEST_STREAM", "1"}, {"BEST_GROUPS", "7"}};         // the user's, on any device
    auto cpu = other;
    cpu.device_type = duet::DeviceType::cpu;
    CHECK(plan(cpu, 300, 300, 300) == Plan{true, 1, false, true});
    CHECK(duet::apps::best_plan(cfg, cpu, 300, 300, 300, 128, 256).groups == 7);
    CHECK(plan(other, 4224, 4096, 4096) == Plan{true, 1, false, true});
    cfg.defines = {{"BEST_STREAM", "1"}, {"BEST_STREAM_SUM", "0"}};
    CHECK(plan(other, 4096, 4096, 4096) == Plan{true, 1, false, false});
    cfg.defines = {{"BEST_STREAM", "0"}}; // 4224^2 in waves: the edge column
    CHECK(plan(gpu, 4224, 4224, 4224) == Plan{false, 1, true, false});
    for (const duet::apps::Defines& bad :
         {duet::apps::Defines{{"BEST_STREAM", "2"}}, duet::apps::Defines{{"BEST_GROUPS", "4"}},
          duet::apps::Defines{{"BEST_STREAM", "1"}, {"BEST_GROUPS", "0"}},
          duet::apps::Defines{{"BEST_STREAM", "1"}, {"BEST_SPLITK", "2"}},
          duet::apps::Defines{{"BEST_STREAM_SUM", "yes"}}}) {
        cfg.defines = bad;
        CHECK_THROWS_AS(plan(gpu, 4096, 4096, 4096), duet::Error);
    }
}

TEST_CASE("apps: matmul best's blocks all inside C, K whole tiles: where BEST_ALL_INSIDE holds") {
    using duet::apps::best_all_inside;
    CHECK(best_all_inside(8192, 8192, 8192, 8192, 128, 256, 16));
    CHECK(best_all_inside(4224, 4096, 4096, 4096, 128, 256, 16));
    CHECK(best_all_inside(4096, 4096, 4100, 4096, 128, 256, 16));       // B's rows copied longer
    CHECK_FALSE(best_all_inside(4224, 4224, 4224, 4224, 128, 256, 16)); // a column of blocks past C
    CHECK_FALSE(best_all_inside(4160, 4096, 4096, 4096, 128, 256, 16)); // a row of blocks past C
    CHECK_FALSE(best_all_inside(4096, 4096, 4096, 4104, 128, 256, 16)); // K ends inside a tile
    CHECK(best_all_inside(4096, 4096, 4096, 4104, 128, 256, 8));        // not in tiles of 8
    CHECK_FALSE(best_all_inside(4096, 4096, 4098, 4096, 128, 256, 16)); // B's rows unaligned
    CHECK_FALSE(best_all_inside(128, 256, 256, 8, 128, 256, 16));       // K under one tile
    CHECK_FALSE(best_all_inside(128, 256, 256, 0, 128, 256, 16));       // no K at all
    CHECK_FALSE(best_all_inside(0, 256, 256, 64, 128, 256, 16));        // no C
    CHECK_FALSE(best_all_inside(128, 512, 256, 64, 128, 256, 16));      // blocks past B's rows
}

TEST_CASE("apps: matmul best's blocks cover all of C's rows, or their whole blocks with edges") {
    using duet::apps::best_covered;
    CHECK(best_covered(4097, 128, false) == 4097); // clamped blocks over all of them
    CHECK(best_covered(4097, 128, true) == 4096);  // one row to matmul_best_edge
    CHECK(best_covered(4096, 128, true) == 4096);  // no edge to leave
    CHECK(best_covered(100, 128, true) == 0);      // no whole block: all to the edge kernel
    CHECK(best_covered(10000, 256, true) == 9984);
}

TEST_CASE("apps: matmul_best_stream's schedule: rounds, depth of its tiles, division by multiply") {
    using duet::apps::best_stream_rounds;
    CHECK(best_stream_rounds(512, 132) == 2);   // 3.88 rounds: the last 1.88 shared
    CHECK(best_stream_rounds(528, 132) == 4);   // whole rounds: nothing shared
    CHECK(best_stream_rounds(200, 132) == 0);   // under two rounds: all shared
    CHECK(best_stream_rounds(2048, 132) == 14); // 15.5
    CHECK(best_stream_rounds(9, 9) == 1);
    CHECK(duet::apps::best_tile_depth({}, true) == 16);
    CHECK(duet::apps::best_tile_depth({}, false) == 8);
    CHECK(duet::apps::best_tile_depth({{"BEST_BK", "32"}}, false) == 32);
    CHECK(duet::apps::best_tile_depth({{"BEST_BK", "x"}}, true) == 0);
    // The kernels' x / d = (umulhi(x, m) + x) >> l, for every x they divide (0 <= x < 2^31).
    const auto divide = [](std::uint32_t x, std::size_t d) {
        const auto [m, l] = duet::apps::best_divisor(d);
        const std::uint64_t hi = (std::uint64_t{x} * std::uint32_t(m)) >> 32;
        return std::uint32_t((hi + x) >> l);
    };
    std::vector<std::uint32_t> xs{0, 1, 2, 3, 0x7fffffffu, 0x7ffffffeu, 0x40000000u, 123456789u};
    for (std::uint32_t x = 1; x < 0x7fffffffu / 3; x = x * 3 + 1)
        xs.insert(xs.end(), {x - 1, x, x + 1});
    for (std::size_t d = 1; d <= 70000; d += d < 3000 ? 1 : 997)
        for (const std::uint32_t x : xs) {
            INFO("x " << x << " d " << d);
            REQUIRE(divide(x, d) == x / d);
            const auto near =
                std::uint32_t(std::min<std::uint64_t>(0x7fffffffu, std::uint64_t{x / d + 1} * d));
            REQUIRE(divide(near - 1, d) == (near - 1) / d); // either side of a multiple of d
            REQUIRE(divide(near, d) == near / d);
        }
}
