// The shape-picking and auto-size rules (apps/framework/shape.hpp, the steps' shape rules in
// apps/ladders/, auto_size.hpp), as pure functions of a device description: no device needed.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "app.hpp"
#include "auto_size.hpp"
#include "step_builds.hpp"

using namespace duet::apps;

namespace {

ShapeLimits limits(std::size_t items, std::uint64_t local_bytes = 0) {
    ShapeLimits l;
    l.max_items = items;
    l.local_bytes = local_bytes;
    return l;
}

Shape pick(const std::vector<Shape>& shapes, const ShapeLimits& lim) {
    const auto i = first_fitting(shapes, lim);
    REQUIRE(i < shapes.size());
    return shapes[i];
}

// The shapes of step `variant` of `app` (its record's rule) on an OpenCL GPU.
std::vector<Shape> shapes(const std::string& app, const std::string& variant,
                          const RunConfig& cfg) {
    duet::DeviceInfo gpu;
    gpu.backend = "opencl";
    gpu.type = "GPU";
    gpu.device_type = duet::DeviceType::gpu;
    for (const auto& s : find_app(app).steps())
        if (s.name == variant)
            return shapes_of(s, cfg, gpu);
    FAIL("no step " << app << " " << variant);
    return {};
}
std::vector<Shape> matmul_shapes(const std::string& v, const RunConfig& cfg) {
    return shapes("matmul", v, cfg);
}
std::vector<Shape> conv_shapes(const std::string& v, const RunConfig& cfg) {
    return shapes("conv5x5", v, cfg);
}

duet::DeviceInfo h100() {
    duet::DeviceInfo i;
    i.backend = "cuda";
    i.kernel_language = duet::KernelLanguage::cuda;
    i.type = "GPU";
    i.device_type = duet::DeviceType::gpu;
    i.platform = "CUDA";
    i.compute_units = 132;
    i.clock_mhz = 1755;
    i.memory_clock_mhz = 2619;
    i.memory_bus_bits = 5120;
    i.global_mem_bytes = std::uint64_t{80} << 30;
    i.max_alloc_bytes = std::uint64_t{80} << 30;
    i.global_mem_cache_bytes = std::uint64_t{50} << 20;
    return i;
}

// The H100 as the CUDA backend describes it: sm_90, tensor cores, nv.wgmma (tf32 and tc3 start
// with their wgmma kernels there), the NVIDIA Hopper profile rows.
duet::DeviceInfo hopper() {
    auto i = h100();
    i.vendor = "NVIDIA Corporation";
    i.name = "NVIDIA H100 80GB HBM3";
    i.architecture = "sm_90";
    i.extensions = {"nv.mma_sync", "nv.wgmma"};
    i.caps.inline_asm = i.caps.matrix_units = true;
    i.max_work_group_size = 1024;
    i.local_mem_bytes = 48 * 1024;
    i.local_mem_optin_bytes = 227 * 1024;
    return i;
}

} // namespace

TEST_CASE("shapes: the textbook shape where it fits, else the largest that does") {
    const RunConfig cfg;
    // Every first shape is the textbook one and fits a plain 1024-item device.
    for (const char* v :
         {"naive", "tiled16", "tiled32", "wpt2", "btrans", "reg4x4", "reg8x8", "best"}) {
        const auto s = matmul_shapes(v, cfg);
        REQUIRE(!s.empty());
        CHECK(first_fitting(s, limits(1024, 48 << 10)) == 0);
    }
    // NVIDIA OpenCL: 256 work-items for tiled32 -> 32x8, 4 rows each (the same 32x32 tile).
    const auto t32 = pick(matmul_shapes("tiled32", cfg), limits(256));
    CHECK(t32.local == std::array<std::size_t, 2>{32, 8});
    CHECK(t32.rows == 32);
    CHECK(t32.label == "32x32 tile, 32x8 items, 4 rows each");
    // 32 work-items: every matmul step has a shape, none over the limit.
    for (const auto& v :
         {"naive", "tiled16", "tiled32", "wpt2", "btrans", "reg4x4", "reg8x8", "best"}) {
        const auto s = pick(matmul_shapes(v, cfg), limits(32, 16384));
        CHECK(s.items() <= 32);
        CHECK(s.local_bytes <= 16384);
    }
    // 16 KiB of local memory: best's double-buffered 128x256 block (24.25 KiB) does not fit.
    const auto best = pick(matmul_shapes("best", cfg), limits(1024, 16384));
    CHECK(best.rows * best.cols < 128 * 256);
    CHECK(best.local_bytes <= 16384);
    const auto conv = pick(conv_shapes("best", cfg), limits(1024, 16384));
    CHECK(conv.local_bytes <= 16384);
    CHECK(conv.items() == 256); // fewer rows per work-item first, the group kept
    // A user's tile define pins the shape: one candidate, nothing adapted.
    RunConfig pinned;
    pinned.defines = {{"WPT2_TS", "16"}};
    const auto w = matmul_shapes("wpt2", pinned);
    REQUIRE(w.size() == 1);
    CHECK(w[0].local == std::array<std::size_t, 2>{16, 8});
    CHECK(w[0].defines == std::vector<std::pair<std::string, std::string>>{{"WPT2_TS", "16"}});
    // Nothing fits: the index past the end, and the misfit says why.
    const auto r = shapes("reduction", "grid_stride_f32", cfg); // 256 down, -DWG (OpenCL)
    CHECK(first_fitting(r, limits(1)) == r.size());
    CHECK(shape_misfit(r.back(), limits(1)).find("over the limit of 1") != std::string::npos);
    CHECK(pick(r, limits(64)).defines ==
          std::vector<std::pair<std::string, std::string>>{{"RED_PER", "4"}, {"WG", "64"}});
    // Free shapes halve the larger side: 16x16, 16x8, 8x8, ...
    const auto h = halving_shapes({16, 16});
    CHECK(h[1].local == std::array<std::size_t, 2>{16, 8});
    CHECK(h[2].local == std::array<std::size_t, 2>{8, 8});
    CHECK(h.back().local == std::array<std::size_t, 2>{1, 1});
}

TEST_CASE("auto size: 4x the last-level cache, about 1 ms, within memory, capped on CPUs") {
    const auto gpu = h100();
    // The H100: every ladder outside its 50 MiB L2.
    const auto mm = choose_size(find_app("matmul").size_model(), gpu);
    CHECK(mm.n >= 4096);
    CHECK(12.0 * mm.n * mm.n >= 4.0 * (50 << 20));
    CHECK(choose_size(find_app("reduction").size_model(), gpu).n >= (std::size_t{1} << 26));
    CHECK(choose_size(find_app("conv5x5").size_model(), gpu).n == 8192);
    CHECK(choose_size(find_app("vecadd").size_model(), gpu).n * 12.0 >= 4.0 * (50 << 20));
    // A small GPU memory bounds it.
    auto small = gpu;
    small.global_mem_bytes = std::uint64_t{1} << 30;
    small.max_alloc_bytes = std::uint64_t{256} << 20;
    const auto r = choose_size(find_app("reduction").size_model(), small);
    CHECK(r.n * 4.0 <= double(small.max_alloc_bytes));
    CHECK(r.note.find("device memory") != std::string::npos);
    // A CPU device: capped, and the note says so.
    duet::DeviceInfo cpu;
    cpu.backend = "opencl";
    cpu.type = "CPU";
    cpu.device_type = duet::DeviceType::cpu;
    cpu.platform = "Portable Computing Language";
    cpu.global_mem_cache_bytes = std::uint64_t{32} << 20;
    cpu.global_mem_bytes = std::uint64_t{8} << 30;
    const auto c = choose_size(find_app("matmul").size_model(), cpu);
    CHECK(c.n == 512);
    CHECK(c.note.find("CPU device") != std::string::npos);
    // Oclgrind (the OpenCL backend marks its devices as simulators): small sizes.
    auto sim = cpu;
    sim.platform = "Oclgrind";
    sim.caps.simulator = true;
    CHECK(choose_size(find_app("matmul").size_model(), sim).n == 32);
    // Unknown cache: assumed, and said.
    auto unknown = gpu;
    unknown.global_mem_cache_bytes = 0;
    CHECK(choose_size(find_app("vecadd").size_model(), unknown).note.find("assumed") !=
          std::string::npos);
    // The apps' hook uses the same rule; "auto" parses to the empty (automatic) size.
    const auto& app = find_app("matmul");
    CHECK(app.auto_size(gpu) == std::vector<std::size_t>{mm.n});
    CHECK(app.parse_size("auto").empty());
}

TEST_CASE("step builds: every shape carries its kernel's tile macros, the first included") {
    // The kernels have no tile defaults: every shape of a step gives the same macros (its
    // kernel's), at its own values, and the textbook shape the textbook values.
    for (const auto& info : {plain_device(duet::KernelLanguage::cuda), h100(), hopper(),
                             plain_device(duet::KernelLanguage::opencl_c)})
        for (const auto* app : all_apps())
            for (const auto& step : app->steps()) {
                const std::string id = app->name() + "/" + step.name;
                if (!step.shapes)
                    continue;
                const auto s = shapes_of(step, RunConfig{}, info);
                INFO(id << " on " << info.backend);
                const auto names = [](const Shape& x) {
                    std::vector<std::string> n;
                    for (const auto& d : x.defines)
                        n.push_back(d.first);
                    std::sort(n.begin(), n.end());
                    return n;
                };
                for (const auto& shape : s) // against the first shape of the same kernel
                    for (const auto& first : s)
                        if (first.kernel == shape.kernel) {
                            CHECK(names(shape) == names(first));
                            break;
                        }
            }
    const RunConfig cfg;
    const auto has = [](const Shape& s, const std::string& name, const std::string& value) {
        return std::find(s.defines.begin(), s.defines.end(), std::pair{name, value}) !=
               s.defines.end();
    };
    CHECK(has(matmul_shapes("tiled32", cfg).front(), "T32_TS", "32"));
    CHECK(has(matmul_shapes("tiled32", cfg).front(), "T32_RPI", "1"));
    CHECK(has(matmul_shapes("reg4x4", cfg).front(), "R4_BK", "16"));
    CHECK(has(matmul_shapes("reg8x8", cfg).front(), "R8_BM", "128"));
    CHECK(has(conv_shapes("best", cfg).front(), "CONV_BROWS", "4"));
    CHECK(has(conv_shapes("rows", cfg).front(), "CONV_ROWS", "8"));
    CHECK(has(conv_shapes("cpu", cfg).front(), "CONV_CPU_COLS", "16384"));
    CHECK(has(matmul_shapes("cpu", cfg).front(), "CPU_KC", "256"));
    CHECK(has(matmul_shapes("tf32", cfg).front(), "TF_STAGES", "2"));
    CHECK(has(shapes("reduction", "det_f32", cfg).front(), "DET_PAIRS", "4096"));
    // best's depth of tiles is the device profile's: 16 through CUDA, 8 on a plain OpenCL GPU.
    const auto best_on = [&](const duet::DeviceInfo& info) {
        for (const auto& s : find_app("matmul").steps())
            if (s.name == "best")
                return shapes_of(s, cfg, info).front();
        FAIL("no best");
        return Shape{};
    };
    CHECK(has(best_on(h100()), "BEST_BK", "16"));
    CHECK(has(best_on(plain_device(duet::KernelLanguage::opencl_c)), "BEST_BK", "8"));
}

TEST_CASE("step builds: the CUDA plugin embeds every step's first build (cold start)") {
    // A run's first build of a step is embedded when the plugin holds an image of its file with
    // exactly its defines (backends/cuda/cuda_build.cpp). The images are the builds of a plain
    // CUDA device (duet_step_builds); on the H100 (sm_90: its profile rows) and
    // on the plain device every step whose defines are not the device's own is among them.
#ifndef DUET_STEP_BUILDS
    MESSAGE("the CUDA plugin is not built here: nothing embedded to check");
#else
    std::ifstream f(DUET_STEP_BUILDS);
    REQUIRE_MESSAGE(f.good(), "cannot read " << DUET_STEP_BUILDS);
    std::vector<std::string> images;
    for (std::string line; std::getline(f, line);)
        images.push_back(line);
    REQUIRE(!images.empty());
    for (const auto& info : {hopper(), h100(), plain_device(duet::KernelLanguage::cuda)}) {
        std::size_t covered = 0;
        const auto builds = step_builds(info);
        for (const auto& b : builds) {
            if (b.device_specific || b.extra) // cpu's widths, stream-K's switches: NVRTC, as before
                continue;
            const std::string line =
                b.file + (b.defines.empty() ? "" : " " + defines_text(b.defines));
            INFO(b.app << " " << b.step << " (" << info.architecture << "): " << line);
            CHECK(std::find(images.begin(), images.end(), line) != images.end());
            ++covered;
        }
        CHECK(covered >= 20); // every app's ladder, not a few steps
    }
    // The tile macros are in the embedded builds' defines, not in the kernels.
    CHECK(std::find(images.begin(), images.end(), "matmul_tiled.cu T16_RPI=1 T16_TS=16") !=
          images.end());
    CHECK(std::find(images.begin(), images.end(),
                    "matmul_best.cu BEST_BK=16 BEST_BM=128 BEST_BN=256 BEST_TM=8 BEST_TN=16") !=
          images.end());
    CHECK(std::find(images.begin(), images.end(), "duet_fill.cu") != images.end());
#endif
}

TEST_CASE("docs: the ladders page's step list is the one the step records give") {
    // The list between the markers is `runapp list steps`: every record of every app, so a new
    // step or app shows in the docs or this fails.
    std::ifstream f(std::string(DUET_SOURCE_DIR) + "/docs/design/ladders.md");
    REQUIRE(f.good());
    const std::string doc(std::istreambuf_iterator<char>(f), {});
    const std::string begin = "<!-- steps: `runapp list steps` -->\n",
                      end = "<!-- end of steps -->";
    const auto b = doc.find(begin), e = doc.find(end);
    REQUIRE_MESSAGE(b != std::string::npos, "docs/design/ladders.md has no " << begin);
    REQUIRE(e != std::string::npos);
    REQUIRE(b < e);
    const std::string listed = doc.substr(b + begin.size(), e - b - begin.size());
    INFO("docs/design/ladders.md differs from the records: replace the list with `runapp list "
         "steps`");
    CHECK(listed == "\n" + steps_markdown());
    for (const auto* app : all_apps())
        for (const auto& s : app->steps())
            CHECK(listed.find("| `" + s.name + "` | `" + s.kernel + "` |") != std::string::npos);
}
