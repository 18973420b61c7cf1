// matmul's ladder as records (step.hpp): each step's kernel, doc line, needs, launch shapes and
// tuning space. A new step is its kernels (kernels_cl/, kernels_cu/) and one record in `steps`.
//
// Shapes: Shape::rows x Shape::cols is the block of C one work-group computes. The textbook
// shape first, then smaller ones; every shape carries all the tile macros its kernel reads (the
// kernels have no defaults: these records are their one source). A user's --define of a tile
// macro pins the shape (one candidate; the user's macro stands over the shape's).
#include <cstdlib>
#include <string>

#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"
#include "matmul.hpp"
#include "matmul_tc3.hpp"

namespace duet::apps {

// Tensor cores for the tf32 step: "" when the device's kernels can reach them with TF32
// operands (the extension nv.mma_sync: mma.sync in inline PTX, compute capability 8.0 or newer,
// through CUDA or NVIDIA's OpenCL), else "is skipped on X: why".
std::string tf32_unsupported(const DeviceInfo& info) {
    if (info.has_extension("nv.mma_sync"))
        return "";
    return "is skipped on " + info.name + " (" + info.id() + ", " +
           (info.architecture.empty() ? info.vendor : info.architecture) +
           "): tf32 runs on NVIDIA tensor cores with TF32 through mma.sync PTX (the extension "
           "nv.mma_sync: compute capability 8.0 or newer, through CUDA or NVIDIA's OpenCL)";
}

namespace {

std::string num(std::size_t v) {
    return std::to_string(v);
}
std::string by(std::size_t a, std::size_t b) {
    return num(a) + "x" + num(b);
}

std::size_t def(const RunConfig& cfg, const std::string& name, std::size_t fallback) {
    return define_or(cfg, "matmul", name, fallback);
}

Shape make(std::array<std::size_t, 2> local, std::size_t rows, std::size_t cols, std::size_t bytes,
           Defines defines, std::string label) {
    Shape s;
    s.local = local;
    s.rows = rows;
    s.cols = cols;
    s.local_bytes = bytes;
    s.defines = std::move(defines);
    s.label = std::move(label);
    return s;
}

// naive: a free work-group, 16x16 halving; --local is the user's shape.
std::vector<Shape> naive_shapes(const RunConfig& cfg) {
    return halving_shapes(cfg.local ? *cfg.local : std::array<std::size_t, 2>{16, 16});
}

// tiled16 / tiled32: a TS x TS tile by TS x TS/RPI work-items, each computing RPI rows.
std::vector<Shape> tiled_shapes(std::size_t textbook, const std::string& p, const RunConfig& cfg) {
    const std::string ts_name = p + "_TS", rpi_name = p + "_RPI";
    auto one = [&](std::size_t ts, std::size_t rpi) {
        const Defines d = {{ts_name, num(ts)}, {rpi_name, num(rpi)}};
        std::string label = by(ts, ts) + " tile, " + by(ts, ts / rpi) + " items";
        if (rpi > 1)
            label += ", " + num(rpi) + " rows each";
        return make({ts, ts / rpi}, ts, ts, 2 * ts * ts * sizeof(float), d, label);
    };
    if (user_sets(cfg, {ts_name, rpi_name})) {
        const auto ts = def(cfg, ts_name, textbook), rpi = def(cfg, rpi_name, 1);
        if (ts % rpi)
            throw Error::usage("matmul: " + rpi_name + "=" + num(rpi) + " must divide " + ts_name +
                               "=" + num(ts));
        return {one(ts, rpi)};
    }
    std::vector<Shape> out;
    for (std::size_t ts = textbook; ts >= 2; ts /= 2)
        for (std::size_t rpi = 1; rpi <= ts; rpi *= 2)
            out.push_back(one(ts, rpi));
    return out;
}

// wpt2 / btrans: a TS x TS tile by TS x TS/2 work-items, two rows each; smaller tiles after.
std::vector<Shape> wpt2_shapes(const std::string& macro, bool padded, const RunConfig& cfg) {
    auto one = [&](std::size_t ts) {
        const std::size_t bytes = (ts * ts + ts * (ts + (padded ? 1 : 0))) * sizeof(float);
        return make({ts, ts / 2}, ts, ts, bytes, Defines{{macro, num(ts)}},
                    by(ts, ts) + " tile, " + by(ts, ts / 2) + " items");
    };
    if (user_sets(cfg, {macro}))
        return {one(def(cfg, macro, 32))};
    std::vector<Shape> out;
    for (std::size_t ts = 32; ts >= 2; ts /= 2)
        out.push_back(one(ts));
    return out;
}

// reg4x4 / reg8x8 / best: a BM x BN block by (BN/TN) x (BM/TM) work-items, TM x TN outputs each
// in registers; smaller blocks keep the register block (the step's point) and shrink the group.
// Every block keeps each tile whole float4 loads per work-item (the kernels' #error).
struct RegBlock {
    std::string bm, bn, bk; // macro names
    std::size_t tm, tn, bk_value;
    bool double_buffered;
    std::string tm_name = "", tn_name = ""; // best's register block is a macro pair too
};

std::size_t reg_bytes(const RegBlock& r, std::size_t bm, std::size_t bn) {
    if (!r.double_buffered)
        return r.bk_value * (bm + bn) * sizeof(float);
    // best: two copies of the tiles, A's rows padded by 4 floats where 48 KiB leave room
    // (BEST_PAD's default in the kernels).
    const std::size_t pad = 8 * r.bk_value * (bm + 4 + bn) <= 49152 ? 4 : 0;
    return 2 * r.bk_value * (bm + pad + bn) * sizeof(float);
}

std::vector<Shape> reg_shapes(const RegBlock& r, std::vector<std::array<std::size_t, 2>> blocks,
                              const RunConfig& cfg) {
    auto one = [&](std::size_t bm, std::size_t bn) {
        Defines d = {{r.bm, num(bm)}, {r.bn, num(bn)}, {r.bk, num(r.bk_value)}};
        if (!r.tm_name.empty())
            d.insert(d.end(), {{r.tm_name, num(r.tm)}, {r.tn_name, num(r.tn)}});
        return make({bn / r.tn, bm / r.tm}, bm, bn, reg_bytes(r, bm, bn), std::move(d),
                    by(bm, bn) + " block, " + by(bn / r.tn, bm / r.tm) + " items of " +
                        by(r.tm, r.tn));
    };
    if (user_sets(cfg, {r.bm, r.bn}))
        return {one(def(cfg, r.bm, blocks[0][0]), def(cfg, r.bn, blocks[0][1]))};
    std::vector<Shape> out;
    for (std::size_t i = 0; i < blocks.size(); ++i)
        out.push_back(one(blocks[i][0], blocks[i][1]));
    return out;
}

// The K depth of best's tiles where the user has not set it: the device profile's (16 through
// CUDA and on NVIDIA's OpenCL on Hopper, 8 elsewhere; docs/design/sgemm.md).
std::size_t best_bk(const RunConfig& cfg, const DeviceInfo& info) {
    return def(cfg, "BEST_BK", profile_of(info).best.tile_depth);
}

// best: the register block is BEST_TM x BEST_TN (8x16 unless defined).
std::vector<Shape> best_shapes(const RunConfig& cfg, const DeviceInfo& info) {
    const auto tm = def(cfg, "BEST_TM", 8), tn = def(cfg, "BEST_TN", 16);
    const RegBlock best{"BEST_BM",          "BEST_BN", "BEST_BK", tm,       tn,
                        best_bk(cfg, info), true,      "BEST_TM", "BEST_TN"};
    if (tm != 8 || tn != 16) // a tuned register block: the user's shape, as given
        return reg_shapes(best, {{def(cfg, "BEST_BM", 128), def(cfg, "BEST_BN", 256)}}, cfg);
    return reg_shapes(best, {{128, 256}, {128, 128}, {64, 128}, {64, 64}, {32, 64}, {32, 32}}, cfg);
}

} // namespace

// tf32: a BM x BN block by TF_WM x TF_WN warps of 32 (the group is 32 x WM*WN work-items),
// TF_STAGES copies of the tiles (CUDA; OpenCL keeps 2), A's rows padded by 4 floats and B's by 8
// (kernels_c?/matmul_tf32.c?h); smaller blocks of fewer warps after, down
// to one warp (the small devices of the tests, which run the emulated mma: 192 floats per warp).
std::vector<Shape> tf32_shapes(const RunConfig& cfg, const DeviceInfo& info) {
    std::vector<Shape> out;
    // Hopper through CUDA (the extension nv.wgmma) with no --define (a define builds through
    // NVRTC for plain sm_90, which has no wgmma): matmul_tf32_wgmma first, a 256x128 block by
    // two warpgroups fed by a third through the tile copy engine (32x12 threads), in clusters of
    // two blocks sharing A's tiles by multicast, its 4 stages of 48 KiB plus 1 KiB to align them
    // passed as the launch's duet::local argument, beyond 48 KiB by opt-in
    // (kernels_cu/matmul_tf32_wgmma.cu).
    if (info.has_extension("nv.wgmma") && cfg.defines.empty()) {
        Shape w = make({32, 12}, 256, 128, 4 * 48 * 1024 + 1024, {},
                       "256x128 block, 2 warpgroups of 128 + a copy warpgroup (wgmma, C^T = B^T "
                       "A^T with B from registers, TMA, pairs sharing A by multicast, sm_90a)");
        w.kernel = "matmul_tf32_wgmma";
        w.local_by_argument = true;
        w.own_launch = true;
        out.push_back(std::move(w));
    }
    const std::size_t bk = def(cfg, "TF_BK", 16), stages = def(cfg, "TF_STAGES", 2);
    const std::size_t scratch = def(cfg, "DUET_TF32_EMULATE", 0) ? 192 : 0;
    auto one = [&](std::size_t bm, std::size_t bn, std::size_t wm, std::size_t wn) {
        const std::size_t floats = stages * (bm * (bk + 4) + bk * (bn + 8)) + wm * wn * scratch;
        return make({32, wm * wn}, bm, bn, floats * sizeof(float),
                    Defines{{"TF_BM", num(bm)},
                            {"TF_BN", num(bn)},
                            {"TF_BK", num(bk)},
                            {"TF_WM", num(wm)},
                            {"TF_WN", num(wn)},
                            {"TF_STAGES", num(stages)}},
                    by(bm, bn) + " block, " + by(wm, wn) + " warps of 32");
    };
    if (user_sets(cfg, {"TF_BM", "TF_BN", "TF_WM", "TF_WN"}))
        return {one(def(cfg, "TF_BM", 128), def(cfg, "TF_BN", 128), def(cfg, "TF_WM", 2),
                    def(cfg, "TF_WN", 4))};
    for (auto& s : {one(128, 128, 2, 4), one(64, 64, 2, 2), one(32, 32, 1, 1)})
        out.push_back(s);
    return out;
}

namespace {

// ---- best's tuning space ----

// A BM x BN block of C per work-group, BK-deep tiles, TM x TN outputs per work-item.
struct MatmulTile {
    std::size_t bm, bn, bk, tm, tn;
    bool on_cpu; // also swept on CPUs
};
// The first two are the kernels' defaults: kernels_cu's (BK 16) and kernels_cl's (BK 8), each the
// faster through its own backend on the H100; a sweep starts with its kernels' own. The others
// trade block size (reuse of each loaded value) against work-groups in flight and registers:
// taller, wider and deeper blocks for big GPUs, 4x4 register blocks for small ones. On a CPU
// (PoCL) every point is a build of about 13 s of one core, so CPUs get five, those that came
// out ahead in sweeps there (4x4 register blocks were always among the slowest): about a minute.
constexpr MatmulTile best_tiles[] = {
    {128, 256, 16, 8, 16, true}, {128, 256, 8, 8, 16, true}, {128, 128, 8, 8, 8, true},
    {128, 128, 16, 8, 8, true},  {128, 64, 8, 8, 8, false},  {64, 128, 8, 8, 8, false},
    {64, 64, 8, 8, 8, true},     {64, 64, 16, 8, 8, false},  {256, 128, 8, 16, 8, true},
    {64, 64, 16, 4, 4, false},   {32, 32, 8, 4, 4, false},
};

// The kernel's #if: 4 | TM, TN, BK; TM | BM; TN | BN; each tile whole float4 loads per work-item.
bool tile_valid(const MatmulTile& t) {
    const std::size_t nt = (t.bn / t.tn) * (t.bm / t.tm);
    return t.tm % 4 == 0 && t.tn % 4 == 0 && t.bk % 4 == 0 && t.bm % t.tm == 0 &&
           t.bn % t.tn == 0 && (t.bm * t.bk) % (4 * nt) == 0 && (t.bk * t.bn) % (4 * nt) == 0 &&
           t.bm * t.bk >= 4 * nt && t.bk * t.bn >= 4 * nt;
}

std::vector<TunePoint> best_points(const DeviceInfo& info) {
    // The device's own default first (the table's first two: best_bk), the other one skipped.
    const bool deep = best_bk(RunConfig{}, info) == 16;
    std::vector<MatmulTile> tiles{best_tiles[deep ? 0 : 1]};
    for (std::size_t i = 2; i < std::size(best_tiles); ++i)
        tiles.push_back(best_tiles[i]);
    std::vector<TunePoint> out;
    for (const auto& t : tiles) {
        if (!tile_valid(t))
            continue; // a mistake in the table; the kernel would #error
        if (!t.on_cpu && !is_gpu(info))
            continue;
        const bool first = out.empty();
        TunePoint p;
        p.is_default = first;
        p.label = "BM=" + num(t.bm) + " BN=" + num(t.bn) + " BK=" + num(t.bk) + " TM=" + num(t.tm) +
                  " TN=" + num(t.tn);
        if (!first) // the defaults build as a plain run does (CUDA: the embedded image)
            p.defines = {{"BEST_BM", num(t.bm)},
                         {"BEST_BN", num(t.bn)},
                         {"BEST_BK", num(t.bk)},
                         {"BEST_TM", num(t.tm)},
                         {"BEST_TN", num(t.tn)}};
        const std::size_t items = (t.bn / t.tn) * (t.bm / t.tm);
        // Both copies of both tiles; A's padded by 4 floats where that fits in 48 KiB (the
        // kernels' BEST_PAD).
        std::size_t bytes = 8 * t.bk * (t.bm + 4 + t.bn);
        if (bytes > 49152)
            bytes = 8 * t.bk * (t.bm + t.bn);
        p.excluded = over_limits(items, bytes, info);
        out.push_back(std::move(p));
    }
    return out;
}

// cpu: a block of CPU_GM x CPU_GN micro-blocks (CPU_MR rows x 2 vectors of the device's float
// width each, one per work-item) by GM x GN work-items, with B's KC x (GN * NR) panel in local
// memory (kernels_cl/matmul_cpu.cl). A device with less local memory or a smaller work-group
// limit takes a shorter block of K, then fewer rows per group; the user's CPU_GN, CPU_GM or
// CPU_KC pins the shape.
std::vector<Shape> cpu_shapes(const RunConfig& c, const DeviceInfo& info) {
    const std::size_t mr = def(c, "CPU_MR", 6), nr = 2 * cpu_vector_width(info, c);
    auto one = [&](std::size_t gn, std::size_t gm, std::size_t kc) {
        return make(
            {gm, gn}, gm * mr, gn * nr, gn * kc * nr * sizeof(float),
            {{"CPU_MR", num(mr)}, {"CPU_GN", num(gn)}, {"CPU_GM", num(gm)}, {"CPU_KC", num(kc)}},
            by(gm, gn) + " items, blocks of " + by(mr, nr) + ", K in blocks of " + num(kc));
    };
    if (user_sets(c, {"CPU_GN", "CPU_GM", "CPU_KC"})) {
        const auto gn = def(c, "CPU_GN", 4), gm = def(c, "CPU_GM", 16), kc = def(c, "CPU_KC", 256);
        return {one(gn, gm, kc)};
    }
    std::vector<Shape> out{one(4, 16, 256)};
    for (std::size_t kc = 128; kc >= 32; kc /= 2)
        out.push_back(one(4, 16, kc));
    for (std::size_t gm = 8; gm >= 1; gm /= 2)
        out.push_back(one(4, gm, 32));
    out.push_back(one(1, 1, 32));
    return out;
}

constexpr const char* tf32_note =
    "NVIDIA tensor cores with TF32 (nv.mma_sync: compute capability 8.0+, CUDA or NVIDIA's OpenCL)";

// naive: --local is its work-group, as given (or an error), never another one.
std::shared_ptr<const StepHooks> naive_hooks() {
    auto h = std::make_shared<MatmulHooks>();
    h->user_local = true;
    return h;
}

// A shape rule that depends on the run's defines only.
ShapeRule rule(std::vector<Shape> (*shapes)(const RunConfig&)) {
    return [shapes](const RunConfig& cfg, const DeviceInfo&) { return shapes(cfg); };
}

} // namespace

// The ladder. Fields: name, kernel, description (runapp's and docs/design/ladders.md's line), needs
// (sub-group assumptions, a device it refuses), shapes (the rule above), tuning (TuneSpace).
Defines best_defines(const RunConfig& cfg, std::size_t N, std::size_t K) {
    Defines want;
    if (N % 4 != 0 || K % 4 != 0) // A's rows, B's, or both
        want.emplace_back("BEST_UNALIGNED", std::to_string((K % 4 != 0) + 2 * (N % 4 != 0)));
    Defines out;
    for (auto& [name, value] : want)
        if (!user_sets(cfg, {name}))
            out.emplace_back(std::move(name), std::move(value));
    return out;
}

const std::vector<Step>& matmul_steps() {
    static const std::vector<Step> steps = {
        {.name = "naive",
         .kernel = "matmul_naive",
         .description = "one output per work-item from global memory (--local WxH)",
         .shapes = rule(naive_shapes),
         .hooks = naive_hooks()},
        {.name = "tiled16",
         .kernel = "matmul_tiled16",
         .description = "16x16 tiles of A and B in local memory",
         .shapes = rule([](const RunConfig& c) { return tiled_shapes(16, "T16", c); })},
        {.name = "tiled32",
         .kernel = "matmul_tiled32",
         .description = "32x32 tiles (1024 work-items per group)",
         .shapes = rule([](const RunConfig& c) { return tiled_shapes(32, "T32", c); })},
        {.name = "wpt2",
         .kernel = "matmul_wpt2",
         .description = "32x32 tiles, two outputs per work-item (32x16 items)",
         .shapes = rule([](const RunConfig& c) { return wpt2_shapes("WPT2_TS", false, c); })},
        {.name = "btrans",
         .kernel = "matmul_btrans",
         .description = "as wpt2, B's tile transposed and padded (+1)",
         .shapes = rule([](const RunConfig& c) { return wpt2_shapes("BT_TS", true, c); })},
        {.name = "reg4x4",
         .kernel = "matmul_reg4x4",
         .description = "64x64 block, 4x4 outputs per work-item in registers, float4 loads",
         .shapes = rule([](const RunConfig& c) {
             return reg_shapes({"R4_BM", "R4_BN", "R4_BK", 4, 4, def(c, "R4_BK", 16), false},
                               {{64, 64}, {64, 32}, {32, 32}, {32, 16}, {16, 16}}, c);
         })},
        {.name = "reg8x8",
         .kernel = "matmul_reg8x8",
         .description = "128x128 block, 8x8 outputs per work-item, float4 loads",
         .shapes = rule([](const RunConfig& c) {
             return reg_shapes({"R8_BM", "R8_BN", "R8_BK", 8, 8, def(c, "R8_BK", 8), false},
                               {{128, 128}, {128, 64}, {64, 64}, {64, 32}, {32, 32}}, c);
         })},
        {.name = "best",
         .kernel = "matmul_best",
         .description =
             "128x256 block, 8x16 per work-item, double-buffered; K split or thin edges apart",
         .shapes = best_shapes,
         .tuning = TuneSpace{.params = {"BEST_BM", "BEST_BN", "BEST_BK", "BEST_TM", "BEST_TN"},
                             .points = best_points},
         .hooks = best_hooks(),
         .extra_kernels = {"matmul_best_stream"}}, // kernels_c?/matmul_best_stream.c?
        {.name = "tf32",
         .kernel = "matmul_tf32",
         .description = "tensor cores (mma.sync; on compute capability 9.0 wgmma: CUDA's fed by "
                        "TMA, OpenCL's through sm_90a PTX): TF32 inputs (10-bit mantissa), float "
                        "sums; not float32",
         .needs = {.refuses = tf32_unsupported, .refuses_note = tf32_note},
         .shapes = tf32_shapes,
         .hooks = tf32_hooks()},
        tc3_step(), // matmul_tc3.cpp
        {.name = "cpu",
         .kernel = "matmul_cpu",
         .description = "CPU-shaped, a BLAS's loops: K in blocks of 256, B's panel packed in "
                        "local memory, 6 rows x 2 vectors of C per work-item in registers, "
                        "16x4 of them per group",
         .shapes = cpu_shapes,
         .hooks = cpu_width_hooks()}, // the vector width its shapes assume
    };
    return steps;
}

} // namespace duet::apps
