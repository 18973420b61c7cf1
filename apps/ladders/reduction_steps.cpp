// reduction's ladder as records (step.hpp). The nine steps of Harris's ladder are one table
// (`ladder`); each row becomes two records, STEP_i32 and STEP_f32 (kernels reduce_STEP_i32 and
// reduce_STEP_f32). A new step is its kernels (kernels_cl/, kernels_cu/) and one row.
#include <algorithm>
#include <bit>
#include <string>

#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"
#include "reduction.hpp"
#include "reduction_det.hpp"

namespace duet::apps {

namespace {

constexpr ReductionStep ladder[] = {
    {"interleaved", "interleaved addressing, tid % 2s: divergent branches", Split::one, false,
     false},
    {"strided", "interleaved addressing, strided index 2s*tid: no divergence, bank conflicts",
     Split::one, false, false},
    {"sequential", "sequential addressing: the lower half adds the upper half", Split::one, false,
     false},
    {"first_add", "two elements per work-item, first add during the global load", Split::two, false,
     false},
    {"unroll_last", "last six tree steps unrolled (OpenCL: barriers; on NVIDIA a warp barrier)",
     Split::two, false, false},
    {"unroll_all", "tree completely unrolled for the work-group size (CUDA template, CL -DWG)",
     Split::two, true, false},
    // The grid-stride steps: their work-group size sets how many groups fill the device and how
    // deep the group's tree is, so it is tuned. (The earlier steps launch one group per 256 or
    // 512 values and are the ladder's lesson, not something to tune.)
    {"grid_stride", "many elements per work-item (grid-stride), then the unrolled tree",
     Split::grid, true, true},
    {"shuffle", "grid-stride, then sub-group/warp reductions in registers", Split::grid, false,
     true, SubGroups::uses},
    {"atomic", "grid-stride and shuffles, one pass: each group atomically adds its sum",
     Split::grid_atomic, false, true, SubGroups::uses},
    // Shaped for CPUs (kernels_cl/reduction_cpu.cl): groups of one work-item by default.
    {"cpu", "CPU-shaped: 4 work-items per core, each a contiguous chunk in 4 vector accumulators",
     Split::chunk, false, false},
};

// One-dimensional groups, powers of two from `ls` down to 2, each with `elem` bytes of local
// memory per work-item and the file's RED_PER (kernels_c?/reduction.c?: the grid-stride loads);
// `wg_define` adds -DWG=<size> (the unrolled OpenCL trees).
std::vector<Shape> group_shapes(std::size_t ls, std::size_t elem, bool wg_define, std::size_t per) {
    std::vector<Shape> out;
    for (std::size_t l = ls; l >= 2; l /= 2) {
        Shape s;
        s.local = {l, 1};
        s.rows = 1;
        s.cols = l;
        s.local_bytes = l * elem;
        s.label = std::to_string(l) + " work-items";
        s.defines = {{"RED_PER", std::to_string(per)}};
        if (wg_define)
            s.defines.emplace_back("WG", std::to_string(l));
        out.push_back(s);
        if (!std::has_single_bit(l))
            break;
    }
    return out;
}

// The group: 256 (or --local's size) where the kernel allows it, else the largest power of two
// that it does. WG (OpenCL C only: CUDA takes the block size from blockDim) comes with each
// shape, unless the user's --define WG fixes the group.
ShapeRule shapes_for(const ReductionStep& step, std::size_t elem) {
    const bool wg_step = step.wg_define;
    const bool chunk = step.split == Split::chunk; // any group size, 1 by default
    return [wg_step, elem, chunk](const RunConfig& cfg, const DeviceInfo& info) {
        if (chunk)
            return halving_shapes({cfg.local ? (*cfg.local)[0] : 1, 1});
        const std::size_t ls = cfg.local ? (*cfg.local)[0] : 256;
        const bool user_wg = user_sets(cfg, {"WG"});
        auto shapes = group_shapes(
            ls, elem, wg_step && !user_wg && profile_of(info).takes_define("WG"), red_per(cfg));
        if (user_wg)
            shapes.resize(1);
        return shapes;
    };
}

// Half, the same as and twice the app's default of 256, or the three largest powers of two a
// smaller device allows: three points per variant, six variants.
std::vector<TunePoint> group_points(const DeviceInfo& info) {
    std::vector<TunePoint> out;
    std::size_t top = 512;
    if (info.max_work_group_size)
        top = std::min(top, std::bit_floor(info.max_work_group_size));
    for (std::size_t ls = std::max<std::size_t>(top >> 2, 2); ls <= top; ls *= 2) {
        TunePoint p;
        p.local = std::array<std::size_t, 2>{ls, 1};
        p.is_default = ls == 256;
        p.label = "local=" + std::to_string(ls);
        out.push_back(std::move(p));
    }
    return out;
}

// A record's hooks: its ladder step and type; the cpu steps' defines, the device's vector width
// (cpu_steps.hpp) and CPU_ACC, the user's standing (kernels_c?/reduction_cpu.c?).
std::shared_ptr<const StepHooks> step_hooks(const ReductionStep& s, bool ints) {
    auto h = std::make_shared<ReductionHooks>();
    h->step = &s;
    h->ints = ints;
    if (s.split == Split::chunk)
        h->defines = [](BuildOptions& opts, const DeviceInfo& info, const RunConfig& cfg) {
            add_cpu_width(opts, info, cfg);
            if (!user_sets(cfg, {"CPU_ACC"}))
                opts.defines.emplace_back("CPU_ACC", std::to_string(cpu_accumulators(cfg)));
        };
    return h;
}

std::vector<Step> make_records() {
    std::vector<Step> out;
    for (const char* type : {"i32", "f32"})
        for (const ReductionStep& s : ladder) {
            Step r{.name = std::string(s.name) + "_" + type,
                   .kernel = std::string("reduce_") + s.name + "_" + type,
                   .description =
                       std::string(s.description) + (type[0] == 'i' ? ", int32" : ", float32"),
                   .needs = {.sub_groups = s.sub_groups},
                   .shapes = shapes_for(s, 4), // int and float: 4 bytes each
                   .hooks = step_hooks(s, type[0] == 'i')};
            if (s.tunable)
                r.tuning =
                    TuneSpace{.local_param = true, .local_bound = true, .points = group_points};
            out.push_back(std::move(r));
        }
    out.push_back(det_f32_step()); // reduction_det.cpp
    return out;
}

} // namespace

std::size_t red_per(const RunConfig& cfg) {
    return define_or(cfg, "reduction", "RED_PER", 4);
}

std::size_t cpu_accumulators(const RunConfig& cfg) {
    return define_or(cfg, "reduction", "CPU_ACC", 4);
}

const std::vector<Step>& reduction_steps() {
    static const std::vector<Step> records = make_records();
    return records;
}

const ReductionStep& reduction_step_of(const Step& record) {
    if (const auto* h = hooks_of<ReductionHooks>(record); h && h->step)
        return *h->step;
    throw Error::not_found("reduction's record '" + record.name + "' runs no step of its ladder");
}

} // namespace duet::apps
