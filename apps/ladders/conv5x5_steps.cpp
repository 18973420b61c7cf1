// conv5x5's ladder as records (step.hpp): each step's kernel, doc line, launch shapes and tuning
// space. A new step is its kernels (kernels_cl/, kernels_cu/) and one record in conv5x5_steps().
//
// Shapes: Shape::cols x Shape::rows are the outputs of one work-item (x, y); the textbook shape
// first; every shape carries the tile macros its kernel reads (the kernels have no defaults:
// these records are their one source). The rule is used for a run whose shape the user left to
// the app (no --local, no tile --define); the record's geometry (ConvHooks) gives the macros
// otherwise.
#include <string>

#include "app.hpp"
#include "conv5x5.hpp"
#include "cpu_steps.hpp"

namespace duet::apps {

namespace {

constexpr std::size_t R = 2; // filter radius

std::string num(std::size_t v) {
    return std::to_string(v);
}
std::string by(std::size_t a, std::size_t b) {
    return num(a) + "x" + num(b);
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

// naive, const, rows: a free work-group, halving from `start`; `rows` outputs per work-item.
ShapeRule free_group(std::array<std::size_t, 2> start, bool rows_define) {
    return [=](const RunConfig& cfg, const DeviceInfo&) {
        const std::size_t rows = rows_define ? define_or(cfg, "conv5x5", "CONV_ROWS", 8) : 1;
        auto out = halving_shapes(start);
        for (auto& s : out) {
            s.cols = 1;
            s.rows = rows;
            if (rows_define)
                s.defines = {{"CONV_ROWS", num(rows)}};
        }
        return out;
    };
}

// tiled: a W x H tile of outputs plus its halo in local memory, one work-item per output.
std::vector<Shape> tiled_shapes(const RunConfig&, const DeviceInfo&) {
    std::vector<Shape> out;
    for (const auto& h : halving_shapes({16, 16})) {
        const std::size_t w = h.local[0], hh = h.local[1];
        out.push_back(make({w, hh}, 1, 1, (w + 2 * R) * (hh + 2 * R) * sizeof(float),
                           Defines{{"CONV_TILE_W", num(w)}, {"CONV_TILE_H", num(hh)}},
                           by(w, hh) + " tile"));
    }
    return out;
}

// cpu: groups of 1 x 4 work-items, each CONV_CPU_ROWS x CONV_CPU_COLS outputs
// (kernels_cl/conv5x5_cpu.cl); cpu_block_shapes counts rows per group, conv per work-item.
std::vector<Shape> cpu_shapes(const RunConfig& cfg, const DeviceInfo&) {
    const std::size_t rows = define_or(cfg, "conv5x5", "CONV_CPU_ROWS", 16);
    const std::size_t cols = define_or(cfg, "conv5x5", "CONV_CPU_COLS", 16384);
    auto out = cpu_block_shapes(rows, cols, 4);
    for (auto& s : out) {
        s.rows = rows;
        s.defines = {{"CONV_CPU_ROWS", num(rows)}, {"CONV_CPU_COLS", num(cols)}};
    }
    return out;
}

// best: BX x BY work-items, each 4 columns x BROWS rows of outputs, the block by float4 loads.
std::size_t best_bytes(std::size_t bx, std::size_t bytes_y, std::size_t brows) {
    return (bx + 2) * 4 * sizeof(float) * (bytes_y * brows + 2 * R);
}

std::vector<Shape> best_shapes(const RunConfig&, const DeviceInfo&) {
    std::vector<Shape> out;
    for (const auto& [bx, byy, br] : std::vector<std::array<std::size_t, 3>>{{32, 8, 4},
                                                                             {32, 8, 2},
                                                                             {32, 4, 4},
                                                                             {32, 4, 2},
                                                                             {16, 4, 4},
                                                                             {16, 4, 2},
                                                                             {16, 2, 4},
                                                                             {8, 2, 4},
                                                                             {4, 2, 4},
                                                                             {4, 1, 4},
                                                                             {2, 1, 4},
                                                                             {1, 1, 4}}) {
        out.push_back(
            make({bx, byy}, br, 4, best_bytes(bx, byy, br),
                 Defines{{"CONV_BX", num(bx)}, {"CONV_BY", num(byy)}, {"CONV_BROWS", num(br)}},
                 by(bx, byy) + " items, 4x" + num(br) + " outputs each"));
    }
    return out;
}

// ---- Geometry in a shape the user pins (ConvHooks): the textbook values are those of the first
// shapes above ----

std::size_t define_or(const RunConfig& cfg, const std::string& name, std::size_t fallback) {
    return duet::apps::define_or(cfg, "conv5x5", name, fallback);
}

// The work-group of a tiled kernel: macros wx/wy (defaults dx, dy), or --local, which sets them.
void tile_local(ConvGeometry& g, const RunConfig& cfg, const std::string& wx, const std::string& wy,
                std::size_t dx, std::size_t dy, const std::string& variant) {
    g.free_local = false;
    g.local = {define_or(cfg, wx, dx), define_or(cfg, wy, dy)};
    if (!cfg.local || *cfg.local == g.local)
        return;
    for (const auto& [key, value] : cfg.defines)
        if (key == wx || key == wy)
            throw Error::usage("conv5x5 " + variant + ": --local " +
                               std::to_string((*cfg.local)[0]) + "x" +
                               std::to_string((*cfg.local)[1]) + " contradicts --define " + key +
                               "=" + value + " (the work-group is the tile: give one of them)");
    g.local = *cfg.local;
    g.defines = {{wx, num(g.local[0])}, {wy, num(g.local[1])}};
}

ConvGeometry tiled_geometry(const RunConfig& cfg) {
    ConvGeometry g;
    tile_local(g, cfg, "CONV_TILE_W", "CONV_TILE_H", 16, 16, "tiled");
    g.macros = {{"CONV_TILE_W", num(g.local[0])}, {"CONV_TILE_H", num(g.local[1])}};
    g.pins = {"CONV_TILE_W", "CONV_TILE_H"};
    return g;
}

ConvGeometry rows_geometry(const RunConfig& cfg) {
    ConvGeometry g;
    g.rows = define_or(cfg, "CONV_ROWS", 8);
    g.local = {32, 8};
    g.macros = {{"CONV_ROWS", num(g.rows)}};
    return g;
}

ConvGeometry cpu_geometry(const RunConfig& cfg) { // kernels_cl/conv5x5_cpu.cl
    ConvGeometry g;
    g.cols = define_or(cfg, "CONV_CPU_COLS", 16384);
    g.rows = define_or(cfg, "CONV_CPU_ROWS", 16);
    g.local = {1, 4};
    g.macros = {{"CONV_CPU_ROWS", num(g.rows)}, {"CONV_CPU_COLS", num(g.cols)}};
    return g;
}

ConvGeometry best_geometry(const RunConfig& cfg) {
    ConvGeometry g;
    tile_local(g, cfg, "CONV_BX", "CONV_BY", 32, 8, "best");
    g.cols = 4;
    g.rows = define_or(cfg, "CONV_BROWS", 4);
    g.macros = {
        {"CONV_BX", num(g.local[0])}, {"CONV_BY", num(g.local[1])}, {"CONV_BROWS", num(g.rows)}};
    g.pins = {"CONV_BX", "CONV_BY", "CONV_BROWS"};
    return g;
}

// A record's hooks: its geometry, and the cpu step's vector width (cpu_width_hooks).
std::shared_ptr<const StepHooks> geometry(ConvGeometry (*rule)(const RunConfig&),
                                          bool cpu_width = false) {
    auto h = std::make_shared<ConvHooks>();
    h->geometry = rule;
    if (cpu_width)
        h->defines = cpu_width_hooks()->defines;
    return h;
}

// best's tuning space: a BX x BY work-group, each work-item 4 columns x ROWS rows of outputs.
struct ConvBlock {
    std::size_t bx, by, rows;
};
constexpr ConvBlock best_blocks[] = {
    {32, 8, 4}, {32, 8, 2}, {32, 8, 8}, {32, 4, 4},  {32, 4, 8}, {32, 16, 2},
    {64, 4, 4}, {64, 4, 2}, {64, 8, 2}, {16, 16, 4}, {16, 8, 4}, {128, 2, 4},
};

std::vector<TunePoint> best_points(const DeviceInfo& info) {
    std::vector<TunePoint> out;
    for (const auto& b : best_blocks) {
        const bool first = out.empty();
        TunePoint p;
        p.is_default = first;
        p.label = "BX=" + num(b.bx) + " BY=" + num(b.by) + " ROWS=" + num(b.rows);
        if (!first)
            p.defines = {
                {"CONV_BX", num(b.bx)}, {"CONV_BY", num(b.by)}, {"CONV_BROWS", num(b.rows)}};
        const std::size_t bytes = 16 * (b.by * b.rows + 4) * (b.bx + 2);
        p.excluded = over_limits(b.bx * b.by, bytes, info);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace

// The ladder. Fields: name, kernel, description (runapp's and design/ladders.md's line), needs,
// shapes (the rules above), tuning (TuneSpace).
const std::vector<Step>& conv5x5_steps() {
    static const std::vector<Step> steps = {
        {.name = "naive",
         .kernel = "conv5x5_naive",
         .description = "one output per work-item, image and filter from global memory",
         .shapes = free_group({16, 16}, false)},
        {.name = "const",
         .kernel = "conv5x5_const",
         .description = "filter in constant memory (CUDA: read-only cache, __ldg)",
         .shapes = free_group({16, 16}, false)},
        {.name = "tiled",
         .kernel = "conv5x5_tiled",
         .description = "16x16 outputs + 2-pixel halo in local memory, clamped cooperative load",
         .shapes = tiled_shapes,
         .hooks = geometry(tiled_geometry)},
        {.name = "rows",
         .kernel = "conv5x5_rows",
         .description = "8 outputs down a column per work-item, 5-row sliding window in registers",
         .shapes = free_group({32, 8}, true),
         .hooks = geometry(rows_geometry)},
        {.name = "best",
         .kernel = "conv5x5_best",
         .description = "128x32 block in local memory by float4 loads, 4x4 outputs per work-item",
         .shapes = best_shapes,
         .tuning = TuneSpace{.params = {"CONV_BX", "CONV_BY", "CONV_BROWS"},
                             .local_bound = true,
                             .points = best_points},
         .hooks = geometry(best_geometry)},
        {.name = "cpu",
         .kernel = "conv5x5_cpu",
         .description = "CPU-shaped: 16 rows x 1024 columns per work-item, row by row, 4 vectors "
                        "of the device's float width at once, streamed stores, no barrier",
         .shapes = cpu_shapes,
         .hooks = geometry(cpu_geometry, true)},
    };
    return steps;
}

} // namespace duet::apps
