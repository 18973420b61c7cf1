// The CPU-shaped ladder steps' vector width and task count.
#include <algorithm>
#include <cstdlib>

#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"

namespace duet::apps {

std::size_t cpu_vector_width(const DeviceInfo& info, const RunConfig& cfg) {
    for (const auto& [name, value] : cfg.defines)
        if (name == "CPU_VW") {
            if (value != "4" && value != "8" && value != "16")
                throw Error::usage("CPU_VW=" + value + ": the cpu steps take 4, 8 or 16 floats");
            return std::stoul(value);
        }
    if (!profile_of(info).takes_define("CPU_VW")) // kernels built for 8 (the CUDA twins)
        return 8;
    // The preferred width, else the native one: Intel's CPU runtime prefers 1 (it widens scalar
    // kernels across work-items itself) and reports its SIMD width (8 with AVX2) as native; the
    // cpu steps are written in vectors, and at 4 floats its compiler used half of each register.
    long preferred = -1, native = -1;
    for (const auto& [label, value] : info.details)
        if (label == "Preferred float vector width")
            preferred = std::atol(value.c_str());
        else if (label == "Native float vector width")
            native = std::atol(value.c_str());
    const long w = preferred >= 4 ? preferred : native >= 4 ? native : preferred;
    if (w < 0)
        return 8;
    return w >= 16 ? 16 : w >= 8 ? 8 : 4;
}

std::size_t add_cpu_width(BuildOptions& opts, const DeviceInfo& info, const RunConfig& cfg) {
    const std::size_t w = cpu_vector_width(info, cfg);
    const bool given = std::any_of(cfg.defines.begin(), cfg.defines.end(),
                                   [](const auto& d) { return d.first == "CPU_VW"; });
    if (!given)
        opts.defines.emplace_back("CPU_VW", std::to_string(w));
    // The cache size above which the cpu steps stream their stores (kernels_cl/cpu_stream.clh).
    const bool cache_given = std::any_of(cfg.defines.begin(), cfg.defines.end(), [](const auto& d) {
        return d.first == "CPU_CACHE_BYTES";
    });
    for (const auto& [label, value] : info.details)
        if (label == "Float fused multiply-add" && value == "yes")
            opts.defines.emplace_back("CPU_HAS_FMA", "1");
    if (!cache_given && info.global_mem_cache_bytes > 0)
        opts.defines.emplace_back("CPU_CACHE_BYTES",
                                  std::to_string(info.global_mem_cache_bytes) + "ul");
    return w;
}

std::shared_ptr<const StepHooks> cpu_width_hooks() {
    static const auto hooks = [] {
        auto h = std::make_shared<StepHooks>();
        h->defines = [](BuildOptions& opts, const DeviceInfo& info, const RunConfig& cfg) {
            add_cpu_width(opts, info, cfg);
        };
        return h;
    }();
    return hooks;
}

std::size_t cpu_tasks(const DeviceInfo& info, const RunConfig& cfg, const std::string& app) {
    const std::size_t per_cu = define_or(cfg, app, "CPU_TASKS_PER_CU", 4);
    return std::max<std::size_t>(1, std::size_t(std::max(info.compute_units, 1)) * per_cu);
}

std::size_t loop_bound_items(const DeviceInfo& info, std::size_t iterations) {
    if (info.max_loop_iterations < 2)
        return 1;
    const std::size_t per_item = info.max_loop_iterations / 2; // room for the tails' loops
    return std::max<std::size_t>(1, (iterations + per_item - 1) / per_item);
}

std::vector<Shape> cpu_block_shapes(std::size_t rows, std::size_t cols, std::size_t items) {
    std::vector<Shape> out;
    for (std::size_t l = std::max<std::size_t>(items, 1); l >= 1; l /= 2) {
        Shape s;
        s.local = {1, l};
        s.rows = rows * l;
        s.cols = cols;
        s.label = "1x" + std::to_string(l) + " items, " + std::to_string(rows) + "x" +
                  std::to_string(cols) + " outputs each";
        out.push_back(s);
    }
    return out;
}

} // namespace duet::apps
