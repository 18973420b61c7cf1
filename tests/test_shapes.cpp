// The shape-picking and auto-size rules (apps/framework/shape.hpp, the steps' shape rules in
// apps/ladders/, auto_size.hpp), as pure functions of a device description: no device needed.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>

#include "app.hpp"
#include "auto_size.hpp"
#include "matmul.hpp" // best_tile_depth

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

} // namespace

TEST_CASE("shapes: the textbook shape where it fits, else the largest that does") {
    const RunConfig cfg;
    // Every first shape is the textbook one and carries no defines (unchanged builds).
    for (const char* v :
         {"naive", "tiled16", "tiled32", "wpt2", "btrans", "reg4x4", "reg8x8", "best"}) {
        const auto s = matmul_shapes(v, cfg);
        REQUIRE(!s.empty());
        CHECK(s.front().defines.empty());
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
    // Nothing fits: the index past the end, and the misfit says why.
    const auto r = shapes("reduction", "grid_stride_f32", cfg); // 256 down, -DWG (OpenCL)
    CHECK(first_fitting(r, limits(1)) == r.size());
    CHECK(shape_misfit(r.back(), limits(1)).find("over the limit of 1") != std::string::npos);
    CHECK(pick(r, limits(64)).defines ==
          std::vector<std::pair<std::string, std::string>>{{"WG", "64"}});
    // Free shapes halve the larger side: 16x16, 16x8, 8x8, ...
    const auto h = halving_shapes({16, 16});
    CHECK(h[1].local == std::array<std::size_t, 2>{16, 8});
    CHECK(h[2].local == std::array<std::size_t, 2>{8, 8});
    CHECK(h.back().local == std::array<std::size_t, 2>{1, 1});
}

TEST_CASE("auto size: 4x the last-level cache, about 1 ms, within memory, capped on CPUs") {
    const auto gpu = h100();
    // The H100: every ladder outside its 50 MiB L2.
    const auto mm = choose_size(matmul_model(), gpu);
    CHECK(mm.n >= 4096);
    CHECK(12.0 * mm.n * mm.n >= 4.0 * (50 << 20));
    CHECK(choose_size(reduction_model(), gpu).n >= (std::size_t{1} << 26));
    CHECK(choose_size(conv_model(), gpu).n == 8192);
    CHECK(choose_size(vecadd_model(), gpu).n * 12.0 >= 4.0 * (50 << 20));
    // A small GPU memory bounds it.
    auto small = gpu;
    small.global_mem_bytes = std::uint64_t{1} << 30;
    small.max_alloc_bytes = std::uint64_t{256} << 20;
    const auto r = choose_size(reduction_model(), small);
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
    const auto c = choose_size(matmul_model(), cpu);
    CHECK(c.n == 512);
    CHECK(c.note.find("CPU device") != std::string::npos);
    // Oclgrind (the OpenCL backend marks its devices as simulators): small sizes.
    auto sim = cpu;
    sim.platform = "Oclgrind";
    sim.caps.simulator = true;
    CHECK(choose_size(matmul_model(), sim).n == 32);
    // Unknown cache: assumed, and said.
    auto unknown = gpu;
    unknown.global_mem_cache_bytes = 0;
    CHECK(choose_size(vecadd_model(), unknown).note.find("assumed") != std::string::npos);
    // The apps' hook uses the same rule; "auto" parses to the empty (automatic) size.
    const auto& app = find_app("matmul");
    CHECK(app.auto_size(gpu) == std::vector<std::size_t>{mm.n});
    CHECK(app.parse_size("auto").empty());
}

TEST_CASE("shapes: the textbook shapes are the kernels' own defaults, in both languages") {
    // The first shape carries no defines, so the kernels build with their #ifndef defaults:
    // those must be the shape the host launches.
    const auto read = [](const std::string& rel) {
        std::ifstream f(std::string(DUET_SOURCE_DIR) + "/" + rel);
        REQUIRE_MESSAGE(f.good(), "cannot read " << rel);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    const RunConfig cfg;
    const auto mm = [&](const char* v) { return matmul_shapes(v, cfg).front(); };
    const auto cv = [&](const char* v) { return conv_shapes(v, cfg).front(); };
    const std::vector<std::pair<std::string, std::size_t>> matmul = {
        {"T16_TS", mm("tiled16").cols}, {"T16_RPI", 16 / mm("tiled16").local[1]},
        {"T32_TS", mm("tiled32").cols}, {"T32_RPI", 32 / mm("tiled32").local[1]},
        {"WPT2_TS", mm("wpt2").cols},   {"BT_TS", mm("btrans").cols},
        {"R4_BM", mm("reg4x4").rows},   {"R4_BN", mm("reg4x4").cols},
        {"R8_BM", mm("reg8x8").rows},   {"R8_BN", mm("reg8x8").cols},
        {"BEST_BM", mm("best").rows},   {"BEST_BN", mm("best").cols}};
    const std::vector<std::pair<std::string, std::size_t>> conv = {
        {"CONV_TILE_W", cv("tiled").local[0]}, {"CONV_TILE_H", cv("tiled").local[1]},
        {"CONV_BX", cv("best").local[0]},      {"CONV_BY", cv("best").local[1]},
        {"CONV_BROWS", cv("best").rows},       {"CONV_ROWS", cv("rows").rows}};
    // matmul's steps are one file each (matmul_tiled.cl, ...), best's defaults in its header
    // (matmul_best.clh, .cuh: the language's extension and "h"): all of them are searched.
    const std::vector<std::pair<std::string, std::string>> matmul_files = {
        {"naive", ""}, {"tiled", ""}, {"wpt2", ""}, {"btrans", ""}, {"reg", ""}, {"best", "h"}};
    for (const char* lang : {"kernels_cl/", "kernels_cu/"})
        for (const auto& [file, macros] :
             {std::pair{std::string("matmul"), matmul}, std::pair{std::string("conv5x5"), conv}}) {
            const std::string ext = std::string(lang) == "kernels_cl/" ? ".cl" : ".cu";
            std::string text;
            if (file == "matmul")
                for (const auto& [step, header] : matmul_files)
                    text += read(lang + file + "_" + step + ext + header);
            else
                text = read(lang + file + ext);
            for (const auto& [name, value] : macros) {
                INFO(lang << file << ": " << name);
                CHECK(text.find("#define " + name + " " + std::to_string(value) + "\n") !=
                      std::string::npos);
            }
        }
    // best's depth of tiles differs by language; the host counts stream-K's work in it.
    for (const auto& [header, cuda] : {std::pair{"kernels_cl/matmul_best.clh", false},
                                       std::pair{"kernels_cu/matmul_best.cuh", true}}) {
        INFO(header);
        CHECK(read(header).find("#define BEST_BK " +
                                std::to_string(duet::apps::best_tile_depth({}, cuda)) + "\n") !=
              std::string::npos);
    }
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
